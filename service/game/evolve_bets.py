"""`evolve` for a betting round: blinds, passes, looks, calls, raises, folds, turn deadlines
and timeouts. The frequent ones are written flat: the hand fetched inline, players rebuilt in
one pass, no keyword-forwarding helpers."""

from __future__ import annotations

from msgspec.structs import replace

from events import table as ev
from service.game.rebuild import (
    hand_of,
    hand_turn,
    handed_over,
    index_of,
    own_action,
    reset_timeouts,
    seat_at,
    staked,
    with_player,
    with_seat,
)
from service.game.state import TableState


def blind_placed(state: TableState, e: ev.BlindPlaced) -> TableState:
    hand = state.hand
    assert hand is not None, "no hand in progress"
    seat = e.seat
    amount = e.amount
    players = list(hand.players)
    i = index_of(players, seat)
    players[i] = replace(players[i], put_in=amount, blind=True, acted=True)
    new_hand = replace(
        hand,
        players=tuple(players),
        pot=hand.pot + amount,
        level=amount,
        last_blind=amount,
        last_blind_seat=seat,
    )
    return handed_over(staked(state, seat, amount, new_hand), e)


def passed(state: TableState, e: ev.Passed) -> TableState:
    return handed_over(reset_timeouts(state, e.seat), e)


def looked(state: TableState, e: ev.Looked) -> TableState:
    hand = state.hand
    assert hand is not None, "no hand in progress"
    players = list(hand.players)
    seat = e.seat
    i = index_of(players, seat)
    players[i] = replace(players[i], looked=True)
    return handed_over(own_action(state, seat, replace(hand, players=tuple(players))), e)


def called(state: TableState, e: ev.Called) -> TableState:
    hand = state.hand
    assert hand is not None, "no hand in progress"
    amount = e.amount
    players = list(hand.players)
    i = index_of(players, e.seat)
    p = players[i]
    players[i] = replace(p, put_in=p.put_in + amount, acted=True)
    if e.turn is not None and e.phase == hand.phase:  # the usual case, in one rebuild
        new_hand = replace(
            hand,
            players=tuple(players),
            pot=hand.pot + amount,
            turn=e.turn,
            turn_deadline=e.deadline,
        )
        return staked(state, e.seat, amount, new_hand)
    new_hand = replace(hand, players=tuple(players), pot=hand.pot + amount)
    return handed_over(staked(state, e.seat, amount, new_hand), e)


def raised(state: TableState, e: ev.Raised) -> TableState:
    hand = state.hand
    assert hand is not None, "no hand in progress"
    seat = e.seat
    amount = e.amount
    players = tuple(
        [
            replace(p, put_in=p.put_in + amount, raises=p.raises + 1, acted=True)
            if p.seat == seat
            else (replace(p, acted=False) if p.acted else p)
            for p in hand.players
        ]
    )
    if e.turn is not None and e.phase == hand.phase:  # the usual case, in one rebuild
        new_hand = replace(
            hand,
            players=players,
            pot=hand.pot + amount,
            level=e.level,
            must_double=False,
            turn=e.turn,
            turn_deadline=e.deadline,
        )
        return staked(state, seat, amount, new_hand)
    new_hand = replace(
        hand, players=players, pot=hand.pot + amount, level=e.level, must_double=False
    )
    return handed_over(staked(state, seat, amount, new_hand), e)


def folded(state: TableState, e: ev.Folded) -> TableState:
    hand = state.hand
    assert hand is not None, "no hand in progress"
    players = list(hand.players)
    seat = e.seat
    i = index_of(players, seat)
    players[i] = replace(players[i], folded=True)
    if e.turn is not None and e.phase == hand.phase:  # the usual case, in one rebuild
        new_hand = replace(
            hand, players=tuple(players), turn=e.turn, turn_deadline=e.deadline
        )
        return own_action(state, seat, new_hand)
    return handed_over(own_action(state, seat, replace(hand, players=tuple(players))), e)


def turn_deadline_set(state: TableState, e: ev.TurnDeadlineSet) -> TableState:
    return hand_turn(state, e.seat, e.deadline, e.phase)


def _fold_player(state: TableState, seat: int) -> TableState:
    hand = hand_of(state)
    return replace(state, hand=replace(hand, players=with_player(hand, seat, folded=True)))


def timed_out(state: TableState, e: ev.TimedOut) -> TableState:
    if e.action == "skip_svara":
        hand = hand_of(state)
        return replace(state, hand=replace(hand, answered=(*hand.answered, e.seat)))
    s = seat_at(state, e.seat)
    state = with_seat(state, replace(s, timeouts=s.timeouts + 1), e.seat)
    if e.action == "fold":
        state = _fold_player(state, e.seat)
    return handed_over(state, e)
