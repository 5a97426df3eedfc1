"""Per-viewer projections: the only shapes of state and events that leave the server.

What a viewer may see: their own cards once they looked (their `looked` event carries them),
everyone's cards at a showdown, deck seeds once the hand is settled (in `hand_settled`; the
`seed` of `hand_started`, `svara_deal_started` and `seed_drawn` is never projected: a seed
drawn in advance belongs to a hand still to come). Commitments and players' own seeds are
public. Spectators (viewer None) see the public view. Everything else is removed (seeds) or
nulled (cards).
"""

from __future__ import annotations

from typing import Any

import msgspec

from events import table as ev
from events.codec import event_type
from events.table import TableEvent
from service.game.legal import legal_actions
from service.game.scoring import score
from service.game.settings import ScoringOptions
from service.game.state import Hand, Player, Seat, TableState

JSON = dict[str, Any]

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode


def _to_json(event: TableEvent) -> JSON:
    out: JSON = _decode(_encode(event))
    return out


def _visible_cards(
    state: TableState, hand: Hand, p: Player, viewer: int | None
) -> tuple[str, str, str] | None:
    shown = hand.shown.get(p.seat)
    if shown is not None:
        return shown.cards
    if viewer is not None and p.user_id == viewer and p.looked:
        return p.cards
    return None


def _hand_view(state: TableState, hand: Hand) -> JSON:
    out: JSON = {
        "number": hand.number,
        "deal": hand.deal,
        "phase": hand.phase,
        "dealer": hand.dealer,
        "pot": hand.pot,
        "level": hand.level,
        "turn": hand.turn,
        "deadline": state.deadline,
        "commitment": hand.commitment,
        "last_blind": hand.last_blind,
        "last_blind_seat": hand.last_blind_seat,
        # after blinds, until someone raises: a player who did not go blind must raise to at
        # least twice the last blind (docs/RULES.md step 5); `legal` has the exact bounds
        "must_double": hand.must_double,
    }
    if hand.phase == "svara_join":
        out["svara"] = {
            "tied": list(hand.tied),
            "fee": hand.svara_fee,
            "eligible": list(hand.eligible),
            "answered": list(hand.answered),
            "joined": list(hand.joined),
            "deadline": hand.join_deadline,
        }
    if hand.result is not None:
        r = hand.result
        out["result"] = {
            "winner_seats": list(r.winners),
            "amounts": {str(k): v for k, v in r.amounts.items()},
            "pot": r.pot,
            "rake": r.rake,
            "reason": r.reason,
        }
        out["seeds"] = [msgspec.to_builtins(s) for s in hand.seeds]
    return out


def seat_player(hand: Hand | None, s: Seat) -> Player | None:
    """The seat's player in the hand; None if not dealt in, or a newcomer sitting where
    someone who left mid-hand was."""
    p = hand.player(s.seat) if hand is not None else None
    return p if p is not None and p.user_id == s.user_id else None


def seat_entry(
    s: Seat, p: Player | None, cards: tuple[str, str, str] | None, options: ScoringOptions
) -> JSON:
    """One entry of a view's `seats`: `p` is the seat's player in the hand (None: not dealt
    in), `cards` what the viewer may see of theirs (None: nothing)."""
    return {
        "seat": s.seat,
        "user_id": s.user_id,
        "name": s.name,
        "stack": s.stack,
        "sat_out": s.sat_out,
        "in_hand": p is not None and not p.folded,
        "folded": p is not None and p.folded,
        "blind": p is not None and p.blind,
        "looked": p is not None and p.looked,
        "put_in": p.put_in if p is not None else 0,
        # folded by the clock (docs/RULES.md "Time"): a player's own action resets the count of
        # missed turns, so a folded player whose count is not zero was folded by the timer
        "timed_out": p is not None and p.folded and s.timeouts > 0,
        "cards": list(cards) if cards is not None else None,
        "score": score(cards, options) if cards is not None else None,
    }


def table_host(state: TableState) -> str | None:
    """Whom a table is named after: its creator while seated, else the person seated there
    longest (never a practice bot); None when no person sits there."""
    longest: Seat | None = None
    for s in state.seats:
        if s is None or s.user_id <= 0:
            continue
        if s.user_id == state.created_by:
            return s.name
        if longest is None or s.order < longest.order:
            longest = s
    return longest.name if longest is not None else None


def view(state: TableState, viewer_user_id: int | None, version: int) -> JSON:
    """The caller's view (docs/API.md) of the table for `viewer_user_id` (None: a spectator)."""
    hand = state.hand
    options = state.settings.scoring
    seats: list[JSON] = []
    you: JSON = {"seat": None, "cards": None, "score": None, "legal": [], "client_seed": None}
    for s in state.seats:
        if s is None:
            continue
        p = seat_player(hand, s)
        cards = None
        if hand is not None and p is not None:
            cards = _visible_cards(state, hand, p, viewer_user_id)
        entry = seat_entry(s, p, cards, options)
        seats.append(entry)
        if viewer_user_id is not None and s.user_id == viewer_user_id:
            you = {
                "seat": s.seat,
                "cards": entry["cards"],
                "score": entry["score"],
                "legal": [a.to_dict() for a in legal_actions(state, viewer_user_id)],
                "client_seed": s.client_seed or None,
            }
    return {
        "table_id": state.table_id,
        "version": version,
        "settings": msgspec.to_builtins(state.settings),
        "phase": state.phase,
        "host": table_host(state),
        "name": state.name or None,
        "private": state.private,
        "created_by": state.created_by,
        "hand": _hand_view(state, hand) if hand is not None else None,
        "next_commitment": state.next_commitment or None,
        **tournament_part(state),
        "seats": seats,
        "you": you,
    }


def tournament_part(state: TableState) -> JSON:
    """A tournament table says so (no rebuy, no cash-out) with its ante level and the ante
    the next hand pays when the level rose (docs/API.md "Tournaments"); a cash table: {}."""
    if not state.tournament_id:
        return {}
    return {"tournament": {
        "tournament_id": state.tournament_id, "level": state.ante_level,
        "next_ante": state.pending_ante or None,
    }}


def _redacted(event: TableEvent) -> bool:
    """Whether `project_event` takes anything out of `event` for some viewer."""
    return isinstance(
        event, ev.HandStarted | ev.SvaraDealStarted | ev.SeedDrawn | ev.CardsDealt | ev.Looked
    )


def public_data_json(event: TableEvent) -> bytes | None:
    """`project_event(event, viewer)["data"]` as JSON, the same for every viewer, straight
    from the event's encoding (its tag comes first; the rest is the data); None for the events
    some viewer sees less of (use `project_event`)."""
    if _redacted(event):
        return None
    encoded = _encode(event)
    # b'{"type":"<tag>"' then b'}' or b',"field":...}'
    rest = encoded[len(event_type(event)) + 10 :]
    return b"{" + rest[1:] if len(rest) > 1 else b"{}"


def project_event(event: TableEvent, viewer_user_id: int | None) -> JSON:
    """`{"type": tag, "data": {...}}` with what `viewer_user_id` may not see taken out."""
    data: JSON = _to_json(event)  # JSON types: lists, string keys
    del data["type"]
    if isinstance(event, ev.HandStarted | ev.SvaraDealStarted | ev.SeedDrawn):
        del data["seed"]
    elif isinstance(event, ev.CardsDealt):
        data["cards"] = {seat: None for seat in data["cards"]}
    elif isinstance(event, ev.Looked) and (
        viewer_user_id is None or event.user_id != viewer_user_id
    ):
        data["cards"] = None
    return {"type": event_type(event), "data": data}
