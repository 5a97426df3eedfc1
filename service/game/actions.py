"""Player actions in a hand: blind, pass, look, call, raise, fold, join or skip a svara.

Each handler verifies with service.game.legal (the same predicates `legal_actions` lists),
emits the action's event, then lets service.game.flow move the hand on.
"""

from __future__ import annotations

from events import table as ev
from service.game import commands as cmd
from service.game import flow, legal
from service.game.tx import Tx


def place_blind(tx: Tx, c: cmd.PlaceBlind) -> None:
    _, p = legal.verify_blind(tx.state, c.user_id, c.amount)
    tx.emit(ev.BlindPlaced(seat=p.seat, user_id=p.user_id, amount=c.amount))
    flow.after_blind_turn(tx, p.seat)


def pass_blind(tx: Tx, c: cmd.Pass) -> None:
    _, p = legal.verify_pass(tx.state, c.user_id)
    tx.emit(ev.Passed(seat=p.seat, user_id=p.user_id))
    flow.blind_round_over(tx)


def look(tx: Tx, c: cmd.Look) -> None:
    hand, p = legal.verify_look(tx.state, c.user_id)
    assert p.cards is not None
    tx.emit(ev.Looked(seat=p.seat, user_id=p.user_id, cards=p.cards))
    if hand.phase == "blind" and hand.turn == p.seat:
        flow.start_betting(tx)  # a player who looked cannot go blind: the chain ends here


def call(tx: Tx, c: cmd.Call) -> None:
    hand, p = legal.verify_call(tx.state, c.user_id)
    tx.emit(
        ev.Called(seat=p.seat, user_id=p.user_id, amount=hand.level - p.put_in, level=hand.level)
    )
    flow.after_bet(tx, p.seat)


def raise_to(tx: Tx, c: cmd.Raise) -> None:
    _, p = legal.verify_raise(tx.state, c.user_id, c.amount)
    tx.emit(ev.Raised(seat=p.seat, user_id=p.user_id, amount=c.amount - p.put_in, level=c.amount))
    flow.after_bet(tx, p.seat)


def fold(tx: Tx, c: cmd.Fold) -> None:
    _, p = legal.verify_fold(tx.state, c.user_id)
    tx.emit(ev.Folded(seat=p.seat, user_id=p.user_id))
    flow.after_bet(tx, p.seat)


def join_svara(tx: Tx, c: cmd.JoinSvara) -> None:
    hand, s = legal.verify_svara_answer(tx.state, c.user_id, joining=True)
    tx.emit(ev.SvaraJoined(seat=s.seat, user_id=s.user_id, fee=hand.svara_fee))
    flow.svara_answered(tx)


def skip_svara(tx: Tx, c: cmd.SkipSvara) -> None:
    _, s = legal.verify_svara_answer(tx.state, c.user_id, joining=False)
    tx.emit(ev.SvaraSkipped(seat=s.seat, user_id=s.user_id))
    flow.svara_answered(tx)
