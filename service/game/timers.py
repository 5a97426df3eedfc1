"""`Tick`: the clock reached the state's deadline. The one command the timer worker sends.

A Tick before the deadline (or with none) is refused `not_due`, so timers may fire early,
late, twice or on several replicas: one Tick per deadline wins the version check.
docs/RULES.md "Time": a turn timeout counts toward sitting out (two in a row); letting a svara
join window lapse does not (it is declining an offer, not a missed turn). A table nobody has
sat at for its idle limit (`TableState.idle_limit`) is closed (`table_closed`).
"""

from __future__ import annotations

from events import table as ev
from service.game import commands as cmd
from service.game import flow
from service.game.errors import GameError
from service.game.tx import Tx

SIT_OUT_AFTER = 2  # consecutive turn timeouts


def tick(tx: Tx, c: cmd.Tick) -> None:
    state = tx.state
    deadline = state.deadline
    if deadline is None or c.now < deadline:
        raise GameError("not_due", "nothing is due yet")
    hand = state.hand
    if hand is not None and hand.active:
        _turn_timeout(tx)
    elif hand is not None and hand.phase == "svara_join":
        for seat in hand.eligible:
            s = state.seats[seat]
            if seat not in hand.answered and s is not None:
                tx.emit(ev.TimedOut(seat=seat, user_id=s.user_id, action="skip_svara"))
        flow.close_svara_window(tx)
    elif state.can_start_hand():
        flow.start_hand(tx)
    else:  # the only other deadline: nobody seated for the table's idle limit
        tx.emit(ev.TableClosed(reason="idle", idle_seconds=state.idle_limit))


def _turn_timeout(tx: Tx) -> None:
    hand = tx.hand
    seat = hand.turn
    assert seat is not None
    s = tx.state.seats[seat]
    assert s is not None
    blind_round = hand.phase == "blind"
    tx.emit(ev.TimedOut(seat=seat, user_id=s.user_id, action="pass" if blind_round else "fold"))
    after = tx.state.seats[seat]
    if after is not None and not after.sat_out and after.timeouts >= SIT_OUT_AFTER:
        tx.emit(ev.PlayerSatOut(seat=seat, user_id=s.user_id))
    if blind_round:
        flow.blind_round_over(tx)
    else:
        flow.after_bet(tx, seat)
