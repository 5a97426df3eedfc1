"""What a tournament table does differently: its players are seated together by the
tournament, its ante rises by level, and leaving forfeits instead of cashing out.

A tournament player who leaves is sat out (`sat_out`, reason `left`) and keeps being dealt
in, paying antes (a timed-out one too: `TableState.eligible_seats`) until the stack is gone:
tournament chips never leave the table, so nothing goes back to a wallet.
"""

from __future__ import annotations

from events import table as ev
from service.game import commands as cmd
from service.game import flow, seating
from service.game.errors import GameError
from service.game.legal import seated
from service.game.tx import Tx


def _tournament(tx: Tx) -> None:
    if not tx.state.tournament_id:
        raise GameError("not_a_tournament", "only a tournament table takes this command")


def seat_players(tx: Tx, c: cmd.SeatPlayers) -> None:
    _tournament(tx)
    state = tx.state
    if state.seated():
        return  # seated already: the command was repeated
    if not 2 <= len(c.players) <= len(state.seats) or type(c.stack) is not int or c.stack < 1:
        raise GameError("invalid_settings", "a tournament seats 2 to max_seats players")
    for number, (user_id, name) in enumerate(c.players):
        tx.emit(ev.PlayerSeated(
            user_id=user_id, name=name, seat=number, buy_in=c.stack,
            transfer_id=f"tournament:{state.tournament_id}:{user_id}",
        ))
    flow.maybe_start_hand(tx)


def change_ante(tx: Tx, c: cmd.ChangeAnte) -> None:
    _tournament(tx)
    if type(c.ante) is not int or type(c.level) is not int or c.ante < 1:
        raise GameError("invalid_amount", "an ante is a whole number of chips")
    if c.level > tx.state.ante_level:
        tx.emit(ev.AnteChanged(ante=c.ante, level=c.level))


def leave(tx: Tx, c: cmd.Leave) -> None:
    if not tx.state.tournament_id:
        seating.leave(tx, c)
        return
    if c.rebuy is not None:  # refused before anything moves: the wallet releases the buy-in
        raise GameError("tournament_table", "a tournament has no rebuy")
    s = seated(tx.state, c.user_id)
    hand = tx.state.hand
    if hand is not None and hand.active:
        p = hand.player(s.seat)
        if p is not None and not p.folded:
            on_turn, phase = hand.turn == s.seat, hand.phase
            tx.emit(ev.Folded(seat=s.seat, user_id=s.user_id))
            if on_turn and phase == "blind":
                flow.blind_round_over(tx)
            elif on_turn:
                flow.after_bet(tx, s.seat)
            else:
                flow.won_by_folds(tx)
    after = tx.state.seats[s.seat]
    if after is not None and not after.sat_out:
        tx.emit(ev.PlayerSatOut(seat=s.seat, user_id=s.user_id, reason="left"))
