"""`evolve` for how a deal ends: the showdown, a svara (who is tied, who joins or skips) and
the hand's settlement (stacks paid, rake, the next hand's dealer and commitment)."""

from __future__ import annotations

from msgspec.structs import replace

from events import table as ev
from service.game.rebuild import hand_of, pay, reset_timeouts
from service.game.state import HandResult, TableState


def showdown(state: TableState, e: ev.ShowdownHappened) -> TableState:
    hand = replace(hand_of(state), shown=e.hands, turn=None, turn_deadline=None)
    return replace(state, hand=hand)


def svara_started(state: TableState, e: ev.SvaraStarted) -> TableState:
    hand = replace(
        hand_of(state),
        phase="svara_join",
        tied=e.tied,
        svara_fee=e.fee,
        eligible=e.eligible,
        answered=(),
        joined=(),
        join_deadline=e.join_deadline,
        turn=None,
        turn_deadline=None,
    )
    return replace(state, hand=hand, next_commitment=e.next_commitment, next_seed="")


def svara_joined(state: TableState, e: ev.SvaraJoined) -> TableState:
    hand = hand_of(state)
    return pay(
        state,
        e.seat,
        e.fee,
        answered=(*hand.answered, e.seat),
        joined=(*hand.joined, e.seat),
    )


def svara_skipped(state: TableState, e: ev.SvaraSkipped) -> TableState:
    hand = hand_of(state)
    state = replace(state, hand=replace(hand, answered=(*hand.answered, e.seat)))
    return reset_timeouts(state, e.seat)


def hand_settled(state: TableState, e: ev.HandSettled) -> TableState:
    seats = list(state.seats)
    for number, amount in e.amounts.items():
        s = seats[number]
        assert s is not None
        seats[number] = replace(s, stack=s.stack + amount)
    hand = replace(
        hand_of(state),
        phase="settled",
        pot=0,
        turn=None,
        turn_deadline=None,
        join_deadline=None,
        result=HandResult(
            winners=e.winners, amounts=e.amounts, pot=e.pot, rake=e.rake, reason=e.reason
        ),
    )
    return replace(
        state,
        seats=tuple(seats),
        hand=hand,
        rake_total=state.rake_total + e.rake,
        next_hand_at=e.next_hand_at,
        next_dealer=e.next_dealer,
        next_commitment=e.next_commitment,
        next_seed="",
    )
