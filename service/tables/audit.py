"""The audit of one settled hand (docs/API.md "The audit of a hand"), from the stored events.

Nothing is taken on trust from a stored "verified" flag. The hand is checked event by event on
the server's own fold of the log (the rules engine's states), and every failure names the
check, the event version and the reason, with the same check names as the offline verifier
(`service/verify.py`, which shares no code with this module; tests hold the two to the same
verdicts):

- `chain`      the hash chain from version 1 through the hand's settlement (docs/CHAIN.md);
               a break later in the table's log is reported apart (`table_chain`);
- `commitment` each revealed seed hashes to the commitment restated at its deal and (v2) to
               the one published before the players' seeds were final;
- `seeds`      (v2) the players' seeds named at a deal are those recorded before it, and `mix`
               is their digest;
- `deck`       every dealt card is where the deck (v1 or v2) puts it;
- `cards`      every card looked at or shown is the one dealt;
- `scores`     shown scores follow from the cards and the table's scoring options;
- `winner`     the svara's tied players and the winners follow from the scores and folds;
- `chips`      antes, bets and fees add up to the pot, payout and rake to the pot, chips are
               conserved at every step and no stack goes below zero;
- `replay`     the log folds to a settled hand, and to the state the live path cached
               (the stored snapshot) where there is one.

The four booleans of docs/API.md "The audit of a hand" summarise them: `chain`; `deck`
(commitment, seeds, deck, cards); `chips`; `replay` (scores, winner, replay).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from events import table as ev
from events.codec import event_type
from events.store.base import ChainBroken, EventStore, StoredEvent
from events.store.chain import find_break
from events.table import TableEvent
from service.game.deck import (
    ALGORITHM,
    ALGORITHM_V2,
    commitment,
    deal_hands,
    deck_for,
    mix_of,
)
from service.game.evolve import evolve
from service.game.scoring import score
from service.game.settings import TableSettings
from service.game.state import Hand, TableState, decode_state, encode_state
from service.tables.export import (
    build_export,
    decode_lenient,
    first_index,
    hand_range,
    readable,
)
from service.tables.facade import JSON, ServiceError
from service.tables.repo import fold_onto

CHECKS = (
    "chain", "commitment", "seeds", "deck", "cards", "scores", "winner", "chips", "replay"
)  # fmt: skip
SUMMARY = {
    "chain": ("chain",),
    "deck": ("commitment", "seeds", "deck", "cards"),
    "chips": ("chips",),
    "replay": ("scores", "winner", "replay"),
}


class Findings:
    def __init__(self) -> None:
        self.failures: list[JSON] = []

    def fail(self, check: str, version: int, reason: str, chain: int | None = None) -> None:
        failure: JSON = {"check": check, "version": version, "reason": reason}
        if chain is not None:
            failure["chain_version"] = chain
        self.failures.append(failure)

    def results(self) -> list[JSON]:
        """One result per check: ok, or its earliest failure."""
        out: list[JSON] = []
        for check in CHECKS:
            mine = [f for f in self.failures if f["check"] == check]
            if not mine:
                out.append({"check": check, "ok": True})
            else:
                first = min(mine, key=lambda f: f["version"])
                out.append({"ok": False, **first})
        return out


def _data(event: TableEvent) -> dict[str, Any]:
    data = msgspec.to_builtins(event, str_keys=True)
    assert isinstance(data, dict)
    data.pop("type", None)
    return data


async def load_log(
    store: EventStore, stream: str, table_id: str
) -> tuple[list[StoredEvent], list[TableEvent | None]]:
    stored = await store.read(stream)
    if not stored:
        raise ServiceError(404, "table_not_found", f"no table {table_id!r}")
    events = decode_lenient(stored)
    if events[0] is None:
        raise ServiceError(422, "unreadable_log", "the table's first event is unreadable")
    return stored, events


async def export_hand(store: EventStore, stream: str, table_id: str, hand: int) -> JSON:
    stored, events = await load_log(store, stream, table_id)
    return build_export(table_id, hand, stored, events)


async def audit_hand(store: EventStore, stream: str, table_id: str, hand: int) -> JSON:
    stored, events = await load_log(store, stream, table_id)
    start, end = hand_range(events, hand)
    first = first_index(events, start)
    findings = Findings()

    broken = find_break(stored[: end + 1])
    if broken is not None:
        version, reason = broken[0], broken[1]
        bad = next((s for s in stored if s.version == version), None)
        findings.fail("chain", version, reason, bad.chain if bad is not None else None)
    table_chain: JSON = {"ok": True}
    try:
        await store.verify(stream)
    except ChainBroken as exc:
        table_chain = {"ok": False, "version": exc.version, "reason": exc.reason}
        if exc.version <= stored[end].version and broken is None:
            findings.fail("chain", exc.version, exc.reason)

    replay = _Replay(table_id, hand, stored, events, first, end, findings)
    replay.run()
    after = replay.state
    if after is not None and (after.hand is None or after.hand.phase != "settled"):
        findings.fail("replay", stored[end].version, "the log does not fold to a settled hand")
    # the settlement's own append ends with the next hand's `seed_drawn`: a snapshot taken
    # there is this hand's too
    upto = end + 1 if end + 1 < len(events) and isinstance(events[end + 1], ev.SeedDrawn) else end
    if not await _snapshot_agrees(store, stream, events, stored[upto].version):
        findings.fail("replay", stored[end].version, "the stored snapshot differs from the fold")

    results = findings.results()
    failed = {r["check"] for r in results if not r["ok"]}
    checks = {name: not failed.intersection(parts) for name, parts in SUMMARY.items()}
    settled = events[end]
    assert isinstance(settled, ev.HandSettled)
    in_hand = list(zip(stored[start : end + 1], events[start : end + 1], strict=True))
    showdowns = [e for e in events[start : end + 1] if isinstance(e, ev.ShowdownHappened)]
    scores = {str(s): h.score for s, h in showdowns[-1].hands.items()} if showdowns else {}
    return {
        "table_id": table_id,
        "hand": hand,
        "verified": not findings.failures,
        "checks": checks,
        "results": results,
        "failures": sorted(findings.failures, key=lambda f: (f["version"], f["check"])),
        "table_chain": table_chain,
        "deals": replay.deal_reports,
        "events": [
            {
                "version": s.version,
                "type": event_type(e) if e is not None else "unreadable",
                "at": s.at,
                "data": _data(e) if e is not None else {},
                "hash": s.hash,
                "chain": s.chain,
            }
            for s, e in in_hand
        ],
        "result": {
            "winner_seats": list(settled.winners),
            "pot": settled.pot,
            "scores": scores,
            "amounts": {str(k): v for k, v in settled.amounts.items()},
            "rake": settled.rake,
            "reason": settled.reason,
        },
    }


class _Deal:
    __slots__ = ("deal", "dealt", "drawn", "published", "start")

    def __init__(self, deal: int, start: int, published: int | None, drawn: int | None) -> None:
        self.deal = deal
        self.start = start  # index of hand_started / svara_deal_started
        self.published = published  # index of the event publishing its commitment (v2)
        self.drawn = drawn  # index of the seed_drawn after it
        self.dealt: int | None = None  # index of cards_dealt


class _Replay:
    """The exported range folded event by event with the rules engine, checking each event
    against the state before it."""

    def __init__(
        self,
        table_id: str,
        hand: int,
        stored: Sequence[StoredEvent],
        events: Sequence[TableEvent | None],
        first: int,
        end: int,
        findings: Findings,
    ) -> None:
        self.table_id = table_id
        self.hand = hand
        self.stored = stored
        self.events = events
        self.first = first
        self.end = end
        self.f = findings
        self.state: TableState | None = None
        self.ready = True  # False: the log before the hand does not fold; nothing to replay
        try:
            self.state = fold_onto(None, readable(events, stored, first))
        except ServiceError as exc:
            findings.fail("chain", _version_in(exc.message), exc.message)
            self.ready = False
        self.deals: dict[int, _Deal] = {}
        self.published: int | None = None
        self.drawn: int | None = None
        self.deal_reports: list[JSON] = []

    def version(self, i: int) -> int:
        return self.stored[i].version

    def run(self) -> None:
        if not self.ready:
            return
        for i in range(self.first, self.end + 1):
            event = self.events[i]
            before = self.state
            if event is None:
                self.f.fail("chain", self.version(i), "the stored bytes are not an event")
                self.state = None
                return
            self.track(i, event)
            if before is not None:
                self.check(i, before, event)
            try:
                self.state = evolve(before, event)
            except (AssertionError, KeyError, IndexError, ValueError, TypeError) as exc:
                self.f.fail("replay", self.version(i), f"the event does not apply: {exc!r}")
                self.state = None
                return
            self.after(i, self.state)
        self.check_deals()

    # -- each event against the state before it ------------------------------------------------

    def track(self, i: int, e: TableEvent) -> None:
        """Which event published each deal's commitment, drew its seed, started and dealt it."""
        if isinstance(e, ev.TableCreated | ev.HandSettled | ev.SvaraStarted):
            if e.next_commitment:
                self.published, self.drawn = i, None
        elif isinstance(e, ev.SeedDrawn):
            self.drawn = i
        elif isinstance(e, ev.HandStarted):
            self._new_deal(1, i)
        elif isinstance(e, ev.SvaraDealStarted):
            self._new_deal(e.deal, i)

    def check(self, i: int, state: TableState, e: TableEvent) -> None:
        v = self.version(i)
        hand = state.hand
        settings = state.settings
        if isinstance(e, ev.AntesPaid):
            if e.ante != settings.ante:
                self.f.fail("chips", v, f"an ante of {e.ante}; the table's is {settings.ante}")
            pot = (hand.pot if hand is not None else 0) + e.ante * len(e.seats)
            if e.pot != pot:
                self.f.fail("chips", v, f"the pot after the antes is {pot}, not {e.pot}")
        elif isinstance(e, ev.CardsDealt):
            self._dealt(i, state, e)
        elif isinstance(e, ev.BlindPlaced) and hand is not None:
            p = hand.player(e.seat)
            if p is None or p.put_in != 0 or (hand.level > 0 and e.amount <= hand.level):
                self.f.fail("chips", v, f"a blind of {e.amount} from seat {e.seat} does not "
                            "follow the bets before it")  # fmt: skip
        elif isinstance(e, ev.Called) and hand is not None:
            p = hand.player(e.seat)
            put_in = p.put_in if p is not None else 0
            if e.level != hand.level or put_in + e.amount != hand.level:
                due = hand.level - put_in
                self.f.fail("chips", v, f"seat {e.seat} calls {e.amount}: with {put_in} in and "
                            f"the level at {hand.level} a call is {due}")  # fmt: skip
        elif isinstance(e, ev.Raised) and hand is not None:
            p = hand.player(e.seat)
            put_in = p.put_in if p is not None else 0
            if e.level <= hand.level or put_in + e.amount != e.level:
                self.f.fail("chips", v, f"seat {e.seat} raises to {e.level} paying {e.amount} "
                            f"with {put_in} in and the level at {hand.level}")  # fmt: skip
        elif isinstance(e, ev.Looked) and hand is not None:
            self._seen(v, hand, e.seat, e.cards, "looks at")
        elif isinstance(e, ev.ShowdownHappened) and hand is not None:
            for seat, shown in e.hands.items():
                self._seen(v, hand, seat, shown.cards, "shows")
                right = score(shown.cards, settings.scoring)
                if shown.score != right:
                    self.f.fail("scores", v, f"seat {seat} shows {' '.join(shown.cards)} scored "
                                f"{shown.score}; the rules give {right}")  # fmt: skip
        elif isinstance(e, ev.SvaraStarted) and hand is not None:
            self._svara(v, hand, settings, e)
        elif isinstance(e, ev.SvaraJoined) and hand is not None:
            if e.fee != hand.svara_fee:
                self.f.fail("chips", v, f"seat {e.seat} joins for {e.fee}; the fee is "
                            f"{hand.svara_fee}")  # fmt: skip
        elif isinstance(e, ev.PlayerLeft):
            s = state.seats[e.seat] if 0 <= e.seat < len(state.seats) else None
            if s is not None and s.stack != e.cashed_out:
                self.f.fail("chips", v, f"seat {e.seat} cashes out {e.cashed_out} but holds "
                            f"{s.stack}")  # fmt: skip
        elif isinstance(e, ev.HandSettled) and e.number == self.hand and hand is not None:
            self._settled(v, hand, settings, e)

    def after(self, i: int, state: TableState) -> None:
        v = self.version(i)
        if state.chips_in_play() != state.bought_in - state.cashed_out:
            self.f.fail("chips", v, "chips are not conserved: stacks, pot and rake differ from "
                        "what was bought in minus what was cashed out")  # fmt: skip
        for s in state.seats:
            if s is not None and s.stack < 0:
                self.f.fail("chips", v, f"seat {s.seat}'s stack goes below zero ({s.stack})")

    def _new_deal(self, deal: int, i: int) -> None:
        self.deals[deal] = _Deal(deal, i, self.published, self.drawn)
        self.published = self.drawn = None

    def _dealt(self, i: int, state: TableState, e: ev.CardsDealt) -> None:
        deal = self.deals.get(e.deal)
        if deal is None:
            self.f.fail("deck", self.version(i), f"cards for deal {e.deal}, which never started")
            return
        deal.dealt = i
        if e.algorithm != ALGORITHM_V2:
            return
        start = self.events[deal.start]
        assert isinstance(start, ev.HandStarted | ev.SvaraDealStarted)
        recorded = {}
        for seat in start.participants:
            s = state.seats[seat]
            if s is not None and s.client_seed:
                recorded[seat] = s.client_seed
        named = dict(e.client_seeds or {})
        if named != recorded:
            self.f.fail("seeds", self.version(i), f"the players' seeds named at the deal {named}"
                        f" are not those recorded before it {recorded}")  # fmt: skip
        elif e.mix != mix_of(named):
            self.f.fail("seeds", self.version(i), "mix is not the digest of the players' seeds")

    def _seen(self, v: int, hand: Hand, seat: int, cards: Sequence[str], verb: str) -> None:
        p = hand.player(seat)
        if p is None or p.cards is None or tuple(cards) != tuple(p.cards):
            dealt = " ".join(p.cards) if p is not None and p.cards else "nothing"
            self.f.fail("cards", v, f"seat {seat} {verb} {' '.join(cards)} but was dealt "
                        f"{dealt}")  # fmt: skip

    @staticmethod
    def _best(hand: Hand, settings: TableSettings) -> list[int]:
        scores = {s: score(h.cards, settings.scoring) for s, h in hand.shown.items()}
        if not scores:
            return []
        top = max(scores.values())
        return [s for s, x in scores.items() if x == top]

    def _svara(self, v: int, hand: Hand, settings: TableSettings, e: ev.SvaraStarted) -> None:
        best = self._best(hand, settings)
        if sorted(best) != sorted(e.tied) or len(best) < 2 or settings.svara != "play":
            self.f.fail("winner", v, f"a svara between {list(e.tied)}; the showdown's best are "
                        f"{best} (svara rule {settings.svara})")  # fmt: skip
        if e.pot != hand.pot:
            self.f.fail("chips", v, f"the svara's pot is {e.pot}, not {hand.pot}")
        fee = settings.ante if settings.svara_join_fee == "ante" else hand.pot // max(
            1, len(e.tied))  # fmt: skip
        if e.fee != fee:
            self.f.fail("chips", v, f"a join fee of {e.fee}; the rule gives {fee}")

    def _settled(self, v: int, hand: Hand, settings: TableSettings, e: ev.HandSettled) -> None:
        expected: list[int] | None
        if e.reason == "last_player":
            expected = [p.seat for p in hand.players if not p.folded]
        elif e.reason in ("showdown", "split"):
            best = self._best(hand, settings)
            single = e.reason == "showdown"
            fits = len(best) == 1 if single else len(best) >= 2 and settings.svara == "split"
            expected = best if fits else None
        elif e.reason == "svara_walkover":
            expected = sorted({*hand.tied, *hand.joined})
        else:
            expected = None
        if expected is None or sorted(expected) != sorted(e.winners):
            self.f.fail("winner", v, f"winners {list(e.winners)} ({e.reason}) do not follow "
                        f"from the hand (the rules give {expected})")  # fmt: skip
        if e.pot != hand.pot:
            self.f.fail("chips", v, f"the settled pot is {e.pot}; the bets add up to {hand.pot}")
        rake = hand.pot * settings.rake_percent // 100
        share, odd = divmod(hand.pot - rake, max(1, len(e.winners)))
        right = {s: share + (1 if k < odd else 0) for k, s in enumerate(e.winners)}
        if e.rake != rake or dict(e.amounts) != right:
            self.f.fail("chips", v, f"paid {dict(e.amounts)} with rake {e.rake}; a pot of "
                        f"{hand.pot} pays {right} with rake {rake}")  # fmt: skip

    # -- commitments and decks, once the hand is settled ------------------------------------

    def check_deals(self) -> None:
        settled = self.events[self.end]
        assert isinstance(settled, ev.HandSettled)
        revealed = {s.deal: s for s in settled.seeds}
        for number, deal in sorted(self.deals.items()):
            self._check_deal(deal, revealed.get(number))

    def _check_deal(self, deal: _Deal, revealed: ev.DealSeed | None) -> None:
        x = self.version(self.end)
        start = self.events[deal.start]
        assert isinstance(start, ev.HandStarted | ev.SvaraDealStarted)
        dealt = self.events[deal.dealt] if deal.dealt is not None else None
        assert dealt is None or isinstance(dealt, ev.CardsDealt)
        algorithm = dealt.algorithm if dealt is not None else ALGORITHM
        report: JSON = {
            "deal": deal.deal,
            "algorithm": algorithm,
            "commitment": start.commitment,
            "seed": revealed.seed if revealed is not None else "",
            "deck": [],
            "cards": {},
        }
        self.deal_reports.append(report)
        if algorithm == ALGORITHM_V2:
            source = self.events[deal.published] if deal.published is not None else None
            published = (
                source.next_commitment
                if isinstance(source, ev.TableCreated | ev.HandSettled | ev.SvaraStarted)
                else None
            )
            if published is None:
                self.f.fail("commitment", self.version(deal.start), f"deal {deal.deal} is v2 but"
                            " no commitment was published before it")  # fmt: skip
            elif published != start.commitment:
                assert deal.published is not None
                self.f.fail("commitment", self.version(deal.start), f"deal {deal.deal}'s "
                            f"commitment is not the one published at version "
                            f"{self.version(deal.published)}")  # fmt: skip
            else:
                report["published_at"] = self.version(deal.published)  # type: ignore[arg-type]
        seed: bytes | None = None
        if revealed is None:
            self.f.fail("commitment", x, f"no seed revealed for deal {deal.deal}")
        else:
            try:
                seed = bytes.fromhex(revealed.seed)
            except ValueError:
                seed = None
            drawn = self.events[deal.drawn] if deal.drawn is not None else None
            if seed is None or commitment(seed) != start.commitment:
                self.f.fail("commitment", x, f"the seed revealed for deal {deal.deal} does not "
                            "match its commitment")  # fmt: skip
            elif revealed.commitment != start.commitment:
                self.f.fail("commitment", x, f"deal {deal.deal}'s revealed commitment differs "
                            "from the one at the deal")  # fmt: skip
            elif start.seed != revealed.seed:
                self.f.fail("commitment", self.version(deal.start), f"the seed recorded at deal"
                            f" {deal.deal} is not the one revealed")  # fmt: skip
            elif isinstance(drawn, ev.SeedDrawn) and drawn.seed != revealed.seed:
                assert deal.drawn is not None
                self.f.fail("commitment", self.version(deal.drawn), "the seed drawn in advance "
                            "is not the one revealed")  # fmt: skip
        if dealt is None or deal.dealt is None:
            self.f.fail("deck", self.version(deal.start), f"deal {deal.deal} has no cards_dealt")
            return
        v = self.version(deal.dealt)
        report["cards"] = {str(s): list(c) for s, c in sorted(dealt.cards.items())}
        if algorithm == ALGORITHM_V2:
            report.update(client_seeds={str(k): s for k, s in (dealt.client_seeds or {}).items()},
                          mix=dealt.mix)  # fmt: skip
        if seed is None or len(seed) != 32:
            self.f.fail("deck", v, "no valid seed to rebuild the deck from")
            return
        try:
            deck = deck_for(algorithm, seed, self.table_id, self.hand, deal.deal, dealt.mix)
        except ValueError:
            self.f.fail("deck", v, f"unknown deck algorithm {algorithm!r}")
            return
        report["deck"] = deck
        participants = start.participants
        if set(dealt.cards) != set(participants) or not 2 <= len(participants) <= 10:
            self.f.fail("deck", v, f"cards dealt to seats {sorted(dealt.cards)}; the deal's "
                        f"players are {list(participants)}")  # fmt: skip
            return
        for seat, right in zip(participants, deal_hands(deck, len(participants)), strict=True):
            if tuple(dealt.cards[seat]) != right:
                self.f.fail("deck", v, f"seat {seat} got {' '.join(dealt.cards[seat])}; the "
                            f"{algorithm} deck puts {' '.join(right)} there")  # fmt: skip


def _version_in(message: str) -> int:
    """The version named in an `unreadable_log` message."""
    digits = "".join(c if c.isdigit() else " " for c in message).split()
    return int(digits[0]) if digits else 0


async def _snapshot_agrees(
    store: EventStore, stream: str, events: Sequence[TableEvent | None], upto: int
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
    prefix = events[: snapshot.version]
    if any(e is None for e in prefix):
        return False
    try:
        replayed = fold_onto(None, [e for e in prefix if e is not None])
    except (AssertionError, KeyError, IndexError, ValueError, TypeError):
        return False
    return replayed is not None and encode_state(replayed) == encode_state(cached)
