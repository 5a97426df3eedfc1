"""`evolve` for deals: a hand starting, its antes, cards dealt, and a svara's re-deal."""

from __future__ import annotations

from msgspec.structs import replace

from events import table as ev
from service.game.rebuild import hand_of, handed_over, players_dealt_in
from service.game.state import Hand, TableState


def hand_started(state: TableState, e: ev.HandStarted) -> TableState:
    players = players_dealt_in(state, e.participants)
    hand = Hand(
        number=e.number,
        deal=1,
        dealer=e.dealer,
        phase="blind",
        players=tuple(players),
        dealt_in=tuple([p.user_id for p in players]),
        commitment=e.commitment,
        seeds=(ev.DealSeed(deal=1, commitment=e.commitment, seed=e.seed),),
    )
    if state.pending_ante:  # a tournament's new level counts from this hand
        state = replace(
            state, settings=replace(state.settings, ante=state.pending_ante), pending_ante=0
        )
    return replace(
        state,
        hand=hand,
        hand_number=e.number,
        next_hand_at=None,
        next_commitment="",  # a pending seed is used by this deal
        next_seed="",
    )


def antes_paid(state: TableState, e: ev.AntesPaid) -> TableState:
    seats = list(state.seats)
    short = e.short or {}
    for number in e.seats:
        s = seats[number]
        assert s is not None
        seats[number] = replace(s, stack=s.stack - short.get(number, e.ante))
    return replace(state, seats=tuple(seats), hand=replace(hand_of(state), pot=e.pot))


def cards_dealt(state: TableState, e: ev.CardsDealt) -> TableState:
    hand = state.hand
    assert hand is not None, "no hand in progress"
    cards = e.cards
    players = tuple(
        [replace(p, cards=cards[p.seat]) if p.seat in cards else p for p in hand.players]
    )
    return handed_over(replace(state, hand=replace(hand, players=players)), e)


def svara_deal_started(state: TableState, e: ev.SvaraDealStarted) -> TableState:
    hand = hand_of(state)
    players = players_dealt_in(state, e.participants)
    hand = replace(
        hand,
        deal=e.deal,
        phase="blind",
        players=tuple(players),
        level=0,
        turn=None,
        turn_deadline=None,
        commitment=e.commitment,
        seeds=(*hand.seeds, ev.DealSeed(deal=e.deal, commitment=e.commitment, seed=e.seed)),
        last_blind=0,
        last_blind_seat=None,
        must_double=False,
        tied=(),
        svara_fee=0,
        eligible=(),
        answered=(),
        joined=(),
        join_deadline=None,
        shown={},
    )
    return replace(state, hand=hand, next_commitment="", next_seed="")
