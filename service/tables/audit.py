"""The audit of one settled hand (API.md), computed only from the stored events.

Nothing is taken on trust from a stored "verified" flag: the hash chain is recomputed, every
deal's deck is rebuilt from the revealed seed and checked against the commitment published
before the deal and against every card dealt, shown or looked at; chips are counted at every
step; and the result is replayed (scores recomputed, winners re-derived, the folded state
compared with the stored snapshot when there is one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from events.codec import decode_table_event, event_type
from events.store.base import ChainBroken, EventStore, StoredEvent
from events.table import (
    CardsDealt,
    HandSettled,
    HandStarted,
    Looked,
    ShowdownHappened,
    SvaraDealStarted,
    TableEvent,
)
from service.game.deck import ALGORITHM, commitment, deal_hands, shuffled_deck
from service.game.scoring import score
from service.game.state import TableState, decode_state, encode_state
from service.tables.facade import JSON, ServiceError
from service.tables.repo import fold_onto


@dataclass(frozen=True)
class _Deal:
    deal: int
    participants: tuple[int, ...]
    commitment: str


def _data(event: TableEvent) -> dict[str, Any]:
    data = msgspec.to_builtins(event, str_keys=True)
    assert isinstance(data, dict)
    data.pop("type", None)
    return data


def _hand_range(events: Sequence[TableEvent], hand: int) -> tuple[int, int]:
    start = end = -1
    for i, event in enumerate(events):
        if isinstance(event, HandStarted) and event.number == hand:
            start = i
        if isinstance(event, HandSettled) and event.number == hand:
            end = i
    if start < 0:
        raise ServiceError(404, "hand_not_found", f"no hand {hand} at this table")
    if end < 0:
        raise ServiceError(409, "hand_in_progress", f"hand {hand} is not settled yet")
    return start, end


async def audit_hand(store: EventStore, stream: str, table_id: str, hand: int) -> JSON:
    stored = await store.read(stream)
    if not stored:
        raise ServiceError(404, "table_not_found", f"no table {table_id!r}")
    events = [decode_table_event(e.data) for e in stored]
    start, end = _hand_range(events, hand)
    record: Sequence[StoredEvent] = stored[start : end + 1]
    in_hand = events[start : end + 1]

    try:
        await store.verify(stream)
        chain_ok = True
    except ChainBroken:
        chain_ok = False

    before = fold_onto(None, events[:start])
    assert before is not None
    deals, deck_ok = _check_decks(table_id, hand, in_hand)
    chips_ok = _check_chips(before, in_hand)
    after = fold_onto(before, in_hand)
    assert after is not None
    replay_ok = _check_replay(after, in_hand) and await _check_snapshot(
        store, stream, events, record[-1].version
    )
    settled = in_hand[-1]
    assert isinstance(settled, HandSettled)
    showdowns = [e for e in in_hand if isinstance(e, ShowdownHappened)]
    scores = {str(s): h.score for s, h in showdowns[-1].hands.items()} if showdowns else {}
    checks = {"chain": chain_ok, "deck": deck_ok, "chips": chips_ok, "replay": replay_ok}
    return {
        "table_id": table_id,
        "hand": hand,
        "verified": all(checks.values()),
        "checks": checks,
        "deals": deals,
        "events": [
            {
                "version": s.version,
                "type": event_type(e),
                "at": s.at,
                "data": _data(e),
                "hash": s.hash,
            }
            for s, e in zip(record, in_hand, strict=True)
        ],
        "result": {"winner_seats": list(settled.winners), "pot": settled.pot, "scores": scores},
    }


def _check_decks(table_id: str, hand: int, events: Sequence[TableEvent]) -> tuple[list[JSON], bool]:
    settled = events[-1]
    assert isinstance(settled, HandSettled)
    announced: dict[int, _Deal] = {}
    dealt: dict[int, dict[int, tuple[str, str, str]]] = {}
    seen: list[tuple[int, int, tuple[str, ...]]] = []  # (deal, seat, cards) looked at / shown
    deal = 0
    for event in events:
        if isinstance(event, HandStarted):
            deal = 1
            announced[1] = _Deal(1, event.participants, event.commitment)
        elif isinstance(event, SvaraDealStarted):
            deal = event.deal
            announced[deal] = _Deal(deal, event.participants, event.commitment)
        elif isinstance(event, CardsDealt):
            dealt[event.deal] = dict(event.cards)
        elif isinstance(event, Looked):
            seen.append((deal, event.seat, event.cards))
        elif isinstance(event, ShowdownHappened):
            seen.extend((event.deal, seat, shown.cards) for seat, shown in event.hands.items())
    ok = True
    out: list[JSON] = []
    revealed = {s.deal: s for s in settled.seeds}
    for number, info in sorted(announced.items()):
        seed_hex = revealed[number].seed if number in revealed else ""
        try:
            seed = bytes.fromhex(seed_hex)
            deck = shuffled_deck(seed, table_id, hand, number)
            expected = deal_hands(deck, len(info.participants))
        except ValueError:
            ok = False
            out.append({"deal": number, "commitment": info.commitment, "seed": seed_hex,
                        "algorithm": ALGORITHM, "deck": [], "cards": {}})  # fmt: skip
            continue
        cards = dealt.get(number, {})
        ok &= commitment(seed) == info.commitment == revealed[number].commitment
        ok &= set(cards) == set(info.participants)
        for i, seat in enumerate(info.participants):
            ok &= tuple(cards.get(seat, ())) == expected[i]
        out.append(
            {
                "deal": number,
                "commitment": info.commitment,
                "seed": seed_hex,
                "algorithm": ALGORITHM,
                "deck": deck,
                "cards": {str(seat): list(c) for seat, c in sorted(cards.items())},
            }
        )
    for number, seat, shown in seen:
        ok &= tuple(dealt.get(number, {}).get(seat, ())) == tuple(shown)
    return out, bool(ok)


def _check_chips(before: TableState, events: Sequence[TableEvent]) -> bool:
    """Stacks + pot + rake == bought in - cashed out at every step; the pot is paid out whole."""
    state: TableState | None = before
    ok = before.chips_in_play() == before.bought_in - before.cashed_out
    for event in events:
        state = fold_onto(state, [event])
        assert state is not None
        ok &= state.chips_in_play() == state.bought_in - state.cashed_out
        ok &= all(s is None or s.stack >= 0 for s in state.seats)
    settled = events[-1]
    assert isinstance(settled, HandSettled)
    ok &= sum(settled.amounts.values()) + settled.rake == settled.pot
    return bool(ok)


def _check_replay(after: TableState, events: Sequence[TableEvent]) -> bool:
    """Re-derive the result from the rules: scores of shown hands, and who may win."""
    settled = events[-1]
    assert isinstance(settled, HandSettled)
    ok = True
    showdowns = [e for e in events if isinstance(e, ShowdownHappened)]
    for showdown in showdowns:
        for shown in showdown.hands.values():
            ok &= score(shown.cards, after.settings.scoring) == shown.score
    if settled.reason in ("showdown", "split") and showdowns:
        last = showdowns[-1].hands
        best = max(h.score for h in last.values())
        ok &= set(settled.winners) == {s for s, h in last.items() if h.score == best}
    if settled.reason == "showdown":
        ok &= len(settled.winners) == 1
    ok &= after.hand is not None and after.hand.phase == "settled"
    return bool(ok)


async def _check_snapshot(
    store: EventStore, stream: str, events: Sequence[TableEvent], upto: int
) -> bool:
    """Replay from scratch equals the live path's cached state (the stored snapshot), where
    the snapshot lies at or before this hand's end."""
    snapshot = await store.load_snapshot(stream)
    if snapshot is None or snapshot.version > upto:
        return True
    try:
        cached = decode_state(snapshot.data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return True  # a snapshot is only a cache; an unreadable one is ignored everywhere
    replayed = fold_onto(None, events[: snapshot.version])
    return replayed is not None and encode_state(replayed) == encode_state(cached)
