"""The bookkeeping that `evolve`'s handlers share: rebuild the touched structs of a state (a
seat, a player, the hand), move chips from a stack into the pot, and apply the turn part of
an event that hands the turn on. Written flat, for the inner loop of replay and the decider.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from msgspec.structs import replace

from events import table as ev
from service.game.state import Hand, Player, Seat, TableState


def seat_at(state: TableState, seat: int) -> Seat:
    s = state.seats[seat]
    assert s is not None, f"no player at seat {seat}"
    return s


def with_seat(state: TableState, seat: Seat | None, number: int, **changes: Any) -> TableState:
    seats = state.seats
    return replace(state, seats=(*seats[:number], seat, *seats[number + 1 :]), **changes)


def hand_of(state: TableState) -> Hand:
    hand = state.hand
    if hand is None:
        raise AssertionError("no hand in progress")
    return hand


def with_player(hand: Hand, seat: int, **changes: Any) -> tuple[Player, ...]:
    players = hand.players
    for i, p in enumerate(players):
        if p.seat == seat:
            return (*players[:i], replace(p, **changes), *players[i + 1 :])
    raise AssertionError(f"seat {seat} is not in the hand")


def pay(state: TableState, number: int, amount: int, **hand_changes: Any) -> TableState:
    """Move `amount` from a seat's stack into the pot; the player acted on their own."""
    hand = hand_of(state)
    return staked(state, number, amount, replace(hand, pot=hand.pot + amount, **hand_changes))


def staked(state: TableState, number: int, amount: int, hand: Hand) -> TableState:
    """`hand` (pot already raised by `amount`) with `amount` taken from the seat's stack.
    The hot path of betting, so it avoids keyword plumbing."""
    seats = list(state.seats)  # list, set, tuple: half the cost of slicing around the seat
    s = seats[number]
    assert s is not None
    seats[number] = replace(s, stack=s.stack - amount, timeouts=0)
    return replace(state, seats=tuple(seats), hand=hand)


def reset_timeouts(state: TableState, number: int) -> TableState:
    s = state.seats[number]
    if s is None or s.timeouts == 0:
        return state
    return with_seat(state, replace(s, timeouts=0), number)


def index_of(players: Sequence[Player], seat: int) -> int:
    for i, p in enumerate(players):
        if p.seat == seat:
            return i
    raise AssertionError(f"seat {seat} is not in the hand")


def own_action(state: TableState, seat: int, hand: Hand) -> TableState:
    """`state` with `hand`; `seat` acted on their own, so their timeouts reset.
    Shared by the two most frequent flag events (looked, folded), each struct rebuilt once."""
    seats = state.seats
    s = seats[seat]
    if s is None or s.timeouts == 0:
        return replace(state, hand=hand)
    seats_list = list(seats)
    seats_list[seat] = replace(s, timeouts=0)
    return replace(state, seats=tuple(seats_list), hand=hand)


def players_dealt_in(state: TableState, participants: tuple[int, ...]) -> list[Player]:
    """Fresh players for a deal, in playing order."""
    players = []
    for number in participants:
        s = state.seats[number]
        assert s is not None
        players.append(Player(seat=number, user_id=s.user_id))
    return players


def hand_turn(state: TableState, seat: int, deadline: float, phase: ev.Phase) -> TableState:
    """`seat`'s move in round `phase` until `deadline` (a blind round ending doubles)."""
    hand = state.hand
    assert hand is not None, "no hand in progress"
    if hand.phase == "blind" and phase == "betting":
        hand = replace(
            hand,
            turn=seat,
            turn_deadline=deadline,
            phase="betting",
            must_double=hand.last_blind > 0,
        )
    else:
        hand = replace(hand, turn=seat, turn_deadline=deadline, phase=phase)
    return replace(state, hand=hand)


def handed_over(state: TableState, e: ev.TurnHandover) -> TableState:
    """The turn part of a `TurnHandover` event, applied after the rest of it (also what
    `Tx` applies when it hands the turn on with an event it already applied)."""
    if e.turn is None:
        return state
    assert e.deadline is not None and e.phase is not None
    return hand_turn(state, e.turn, e.deadline, e.phase)
