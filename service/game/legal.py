"""What a player may do now: `legal_actions` for clients, `verify_*` for the decider.

Both are built on the same predicates (service.game.betting), so an action listed as legal is
exactly one `decide` accepts, with the same amount bounds. Verifiers raise a precise GameError.
"""

from __future__ import annotations

import re

import msgspec

from service.game import betting
from service.game.errors import GameError
from service.game.state import Hand, Player, Seat, TableState


class LegalAction(msgspec.Struct, frozen=True, omit_defaults=True):
    """One entry of the `legal` list (docs/API.md "The caller's view"); None fields are left
    out of its JSON. Encode it through `to_dict()`: compiled by mypyc, this module's Struct
    loses `omit_defaults`."""

    type: str
    min: int | None = None
    max: int | None = None
    amount: int | None = None

    def to_dict(self) -> dict[str, int | str]:
        out: dict[str, int | str] = {"type": self.type}
        if self.min is not None:
            out["min"] = self.min
        if self.max is not None:
            out["max"] = self.max
        if self.amount is not None:
            out["amount"] = self.amount
        return out


# Actions without amounts are the same value every time: shared (they are frozen), since
# legal_actions runs for every view and every bot move.
_PASS = LegalAction("pass")
_LOOK = LegalAction("look")
_FOLD = LegalAction("fold")
_SKIP_SVARA = LegalAction("skip_svara")
_SIT_IN = LegalAction("sit_in")


def seated(state: TableState, user_id: int) -> Seat:
    s = state.seat_by_user(user_id)
    if s is None:
        raise GameError("not_seated", "you are not seated at this table")
    return s


def current_hand(state: TableState) -> Hand:
    hand = state.hand
    if hand is None or hand.phase == "settled":
        raise GameError("no_hand", "no hand is being played")
    return hand


def _in_hand(hand: Hand, s: Seat) -> Player | None:
    p = hand.player(s.seat)
    if p is None or p.folded or p.user_id != s.user_id:
        return None
    return p


def turn_player(state: TableState, user_id: int) -> tuple[Hand, Player]:
    """The hand and the caller's player, if it is the caller's turn (in either round).

    Checked in this order: seated, a hand, the turn -- so a player acting out of turn hears
    `not_your_turn` (docs/API.md "Errors": 403) whatever the action; the round is checked
    after (`on_turn`; docs/decisions/turn-first-refusals.md).
    """
    for s in state.seats:
        if s is not None and s.user_id == user_id:
            break
    else:
        raise GameError("not_seated", "you are not seated at this table")
    hand = state.hand
    if hand is None or hand.phase == "settled":
        raise GameError("no_hand", "no hand is being played")
    if hand.turn == s.seat:
        for p in hand.players:
            if p.seat == s.seat and p.user_id == user_id and not p.folded:
                return hand, p
    raise GameError("not_your_turn", "it is not your turn")


def on_turn(state: TableState, user_id: int, phase: str, action: str) -> tuple[Hand, Player]:
    """`turn_player`, in round `phase` (else `wrong_phase`: the player on turn picked an
    action of the other round)."""
    hand, p = turn_player(state, user_id)
    if hand.phase != phase:
        raise GameError("wrong_phase", f"'{action}' is not possible in the {hand.phase} phase")
    return hand, p


def _check_amount(amount: int, bounds: tuple[int, int] | None, what: str, why: str) -> None:
    """Bounds only: that `amount` is a whole number was checked before dispatch
    (`commands.check_numbers`)."""
    if bounds is None:
        raise GameError("amount_too_large", f"no {what} is possible: {why}")
    low, high = bounds
    if amount < low:
        raise GameError("amount_too_small", f"the {what} must be at least {low}")
    if amount > high:
        raise GameError("amount_too_large", f"the {what} may be at most {high}")


def verify_blind(state: TableState, user_id: int, amount: int) -> tuple[Hand, Player]:
    hand, p = turn_player(state, user_id)
    if p.looked:  # more to the point than "wrong phase" (looking ends the blind chain)
        raise GameError("cannot_blind_after_look", "you have looked at your cards")
    if hand.phase != "blind":
        raise GameError("wrong_phase", f"'blind' is not possible in the {hand.phase} phase")
    why = "the poorest player cannot cover a bigger one"
    _check_amount(amount, betting.blind_range(state, hand), "blind", why)
    return hand, p


def verify_pass(state: TableState, user_id: int) -> tuple[Hand, Player]:
    return on_turn(state, user_id, "blind", "pass")


def verify_look(state: TableState, user_id: int) -> tuple[Hand, Player]:
    s = seated(state, user_id)
    hand = current_hand(state)
    if not hand.active:
        raise GameError("wrong_phase", "there are no cards to look at now")
    p = _in_hand(hand, s)
    if p is None:
        raise GameError("not_in_hand", "you have no cards in this deal")
    if p.looked:
        raise GameError("already_looked", "you have already looked at your cards")
    return hand, p


def verify_call(state: TableState, user_id: int) -> tuple[Hand, Player]:
    hand, p = on_turn(state, user_id, "betting", "call")
    refusal = betting.call_refusal(state, hand, p)
    if refusal == "cannot_call_blind":
        raise GameError(
            "cannot_call_blind", f"after a blind you must raise to at least {2 * hand.last_blind}"
        )
    if refusal is not None:
        raise GameError(refusal, "there is no check: raise or fold")
    return hand, p


def verify_raise(state: TableState, user_id: int, amount: int) -> tuple[Hand, Player]:
    hand, p = on_turn(state, user_id, "betting", "raise")
    if p.raises >= state.settings.max_raises:
        raise GameError("raise_limit", f"you may raise at most {state.settings.max_raises} times")
    bounds = betting.raise_range(state, hand, p)
    if bounds is not None and bounds[0] <= amount <= bounds[1]:
        return hand, p  # the usual case: skip composing the refusal's message
    why = f"the level is capped at {betting.cap(state, hand)} by the poorest player"
    _check_amount(amount, bounds, "raise", why)
    return hand, p


def verify_fold(state: TableState, user_id: int) -> tuple[Hand, Player]:
    return on_turn(state, user_id, "betting", "fold")


def verify_svara_answer(state: TableState, user_id: int, joining: bool) -> tuple[Hand, Seat]:
    s = seated(state, user_id)
    hand = state.hand
    if hand is None or hand.phase == "settled":
        raise GameError("no_hand", "no hand is being played")
    if hand.phase != "svara_join":
        raise GameError("wrong_phase", "no svara is open for joining")
    if s.seat not in hand.eligible:
        raise GameError("not_eligible", "you may not join this svara")
    if s.seat in hand.answered:
        raise GameError("already_answered", "you have already answered this svara")
    if joining and s.stack < hand.svara_fee:
        raise GameError("insufficient_chips", f"joining costs {hand.svara_fee} chips")
    return hand, s


def verify_sit_in(state: TableState, user_id: int) -> Seat:
    s = seated(state, user_id)
    if not s.sat_out:
        raise GameError("not_sat_out", "you are not sat out")
    return s


CLIENT_SEED = re.compile(r"[A-Za-z0-9_-]{1,64}")


def verify_client_seed(client_seed: object) -> str:
    """A player's own seed for the deck: 1 to 64 characters of A-Z a-z 0-9 _ - (it needs no
    table: the service asks this before it loads one)."""
    if not isinstance(client_seed, str) or CLIENT_SEED.fullmatch(client_seed) is None:
        raise GameError(
            "invalid_client_seed", "a client seed is 1 to 64 characters of A-Z a-z 0-9 _ -"
        )
    return client_seed


def _check_buy_in(state: TableState, buy_in: int) -> None:
    low, high = state.settings.buy_in_range
    if not low <= buy_in <= high:
        raise GameError("buy_in_out_of_range", f"the buy-in must be between {low} and {high}")


def verify_sit_down(state: TableState, user_id: int, buy_in: int, seat: int | None) -> int:
    """The seat `user_id` would take with `buy_in` chips (`seat`, or the lowest free one).
    Checked in this order: the table open, not seated yet, a free seat, the buy-in's range
    (the service asks this before it reserves chips, so a refusal writes nothing)."""
    if state.closed:
        raise GameError("table_closed", "this table is closed; pick or create another")
    if state.seat_of(user_id) is not None:
        raise GameError("already_seated", "you already have a seat at this table")
    free = [i for i, s in enumerate(state.seats) if s is None]
    if seat is not None and not 0 <= seat < state.settings.max_seats:
        raise GameError("invalid_seat", f"seats are numbered 0 to {state.settings.max_seats - 1}")
    if not free:
        raise GameError("table_full", "every seat is taken")
    if seat is not None and state.seats[seat] is not None:
        raise GameError("seat_taken", f"seat {seat} is taken")
    _check_buy_in(state, buy_in)
    return free[0] if seat is None else seat


def can_sit_down(state: TableState, user_id: int, buy_in: int, seat: int | None = None) -> bool:
    try:
        verify_sit_down(state, user_id, buy_in, seat)
    except GameError:
        return False
    return True


def verify_rebuy(state: TableState, user_id: int, buy_in: int) -> Seat:
    """Whether `user_id` may stand up and buy in again with `buy_in` chips at the same seat:
    seated, busted (below one ante), out of the hand, and the new buy-in within the table's
    range. The whole rebuy is checked before its first step, so a refused one changes
    nothing: the stand-up step runs this (`seating.leave` with `rebuy`)."""
    s = seated(state, user_id)
    if s.stack >= state.settings.ante:
        raise GameError("not_busted", "you still have chips at this table")
    hand = state.hand
    if hand is not None and hand.phase != "settled" and _in_hand(hand, s) is not None:
        raise GameError("hand_in_progress", "you are still in this hand")
    _check_buy_in(state, buy_in)
    return s


def can_rebuy(state: TableState, user_id: int, buy_in: int) -> bool:
    try:
        verify_rebuy(state, user_id, buy_in)
    except GameError:
        return False
    return True


def legal_actions(state: TableState, user_id: int) -> list[LegalAction]:
    """Exactly the actions `decide` would accept from `user_id` now, with their bounds."""
    for s in state.seats:
        if s is not None and s.user_id == user_id:
            break
    else:
        return []
    out: list[LegalAction]
    hand = state.hand
    phase = hand.phase if hand is not None else None
    if hand is not None and (phase == "blind" or phase == "betting"):
        seat = s.seat
        for p in hand.players:
            if p.seat == seat:
                break
        else:
            p = None
        if p is not None and not p.folded and p.user_id == s.user_id:
            out = _hand_actions(state, hand, p)
        else:
            out = []
    else:
        out = []
    if (
        hand is not None
        and phase == "svara_join"
        and s.seat in hand.eligible
        and s.seat not in hand.answered
    ):
        if s.stack >= hand.svara_fee:
            out.append(LegalAction("join_svara", amount=hand.svara_fee))
        out.append(_SKIP_SVARA)
    if s.sat_out:
        out.append(_SIT_IN)
    return out


def _hand_actions(state: TableState, hand: Hand, p: Player) -> list[LegalAction]:
    out: list[LegalAction] = []
    mine = hand.turn == p.seat
    phase = hand.phase
    if mine and phase == "blind":
        bounds = None if p.looked else betting.blind_range(state, hand)
        if bounds is not None:
            low, high = bounds
            out.append(
                LegalAction("blind", amount=low)
                if low == high
                else LegalAction("blind", min=low, max=high)
            )
        out.append(_PASS)
    if not p.looked:
        out.append(_LOOK)
    if mine and phase == "betting":
        bounds = betting.raise_range(state, hand, p)
        if betting.call_refusal_given(state, hand, p, bounds) is None:
            out.append(LegalAction("call", amount=hand.level - p.put_in))
        if bounds is not None and p.raises < state.settings.max_raises:
            out.append(LegalAction("raise", min=bounds[0], max=bounds[1]))
        out.append(_FOLD)
    return out


def can_raise(state: TableState, seat: int) -> bool:
    """Whether the player at `seat` could raise if it were their turn in the betting round."""
    hand = state.hand
    if hand is None or not hand.active:
        return False
    p = hand.player(seat)
    return p is not None and not p.folded and betting.can_raise(state, hand, p)
