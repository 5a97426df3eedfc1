"""A table nobody sits at for a day is closed by the next Tick (`table_closed`), decided by the
pure game core like every other timer: the idle clock starts when the table is created or its
last player leaves, any seat stops it, and a closed table refuses seats and needs no timer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from events import table as ev
from service.game import commands as cmd
from service.game.decider import fold
from service.game.legal import legal_actions
from service.game.state import IDLE_CLOSE_SECONDS
from service.game.view import project_event, view
from tests.support.tablekit import T0, Table, seed_of, table_with

A, B = 11, 12
DAY = IDLE_CLOSE_SECONDS


def test_a_new_table_nobody_sits_at_closes_after_a_day() -> None:
    t = Table(ante=2)
    assert t.s.empty_since == T0 and t.s.deadline == T0 + DAY
    t.refused("not_due", cmd.Tick(now=T0 + DAY - 0.001, seed=seed_of(1)))
    events = t.tick()
    assert events == [ev.TableClosed(reason="idle", idle_seconds=DAY)]
    assert t.s.closed and t.s.phase == "closed" and t.s.deadline is None
    t.refused("not_due", cmd.Tick(now=T0 + 10 * DAY, seed=seed_of(2)))
    sit = cmd.SitDown(user_id=A, name="a", buy_in=50, transfer_id="x", now=t.now, seed=seed_of(3))
    t.refused("table_closed", sit)
    t.refused("table_closed", replace(sit, seat=1))
    assert view(t.s, None, len(t.log))["phase"] == "closed"
    assert project_event(events[0], None) == {
        "type": "table_closed", "data": {"reason": "idle", "idle_seconds": DAY}}


def test_a_seat_stops_the_idle_clock_and_the_last_one_out_restarts_it() -> None:
    t = Table(ante=2)
    t.now += 3600
    t.sit(A, 50)
    assert t.s.empty_since is None and t.s.deadline is None  # one player waits: no timer
    t.now += 5 * DAY  # someone seated: never idle, however long
    t.refused("not_due", cmd.Tick(now=t.now, seed=seed_of(1)))
    left_at = t.now + 60
    t.now = left_at
    [left] = t.leave(A)
    assert isinstance(left, ev.PlayerLeft) and left.at == left_at
    assert t.s.empty_since == left_at and t.s.deadline == left_at + DAY
    t.now += DAY / 2
    t.sit(B, 50)  # back within the day: open again
    assert t.s.deadline is None
    t.leave(B)
    t.tick()
    assert t.s.closed


def test_a_table_where_hands_were_played_closes_a_day_after_everyone_left() -> None:
    t = table_with([A, B])
    t.leave(A)  # B wins the pot; the hand is settled
    assert t.s.phase == "settled"
    assert t.s.deadline is None  # one player left: no hand can start, no idle clock yet
    t.now += 30
    t.leave(B)
    assert t.s.deadline == t.now + DAY and t.s.phase == "settled"
    events = t.tick()
    assert t.types(events) == ["table_closed"] and t.s.phase == "closed"
    assert legal_actions(t.s, A) == [] and t.s.chips_in_play() == 0


def test_old_logs_without_leave_times_close_at_the_next_tick() -> None:
    """A `player_left` written before it carried `at` decodes with 0.0: the table's idle time
    is unknown, and it closes at the first Tick (nobody is seated, so nobody loses a game)."""
    t = Table(ante=2)
    t.sit(A, 50)
    [left] = t.leave(A)
    old = [*t.log[:-1], replace(left, at=0.0)]
    state = fold(old)
    assert state.deadline == DAY  # 0.0 + a day: long past
    assert fold([*old, ev.TableClosed()]).phase == "closed"


def test_a_player_left_stored_before_it_had_a_time_re_encodes_to_its_bytes() -> None:
    """Old stored events re-encode to their very bytes (the chain and any export hash what
    was stored): `at` is left out while it has its default."""
    from events.codec import decode_table_event, encode_table_event

    stored = b'{"type":"player_left","user_id":5,"seat":0,"cashed_out":40,"transfer_id":"x"}'
    event = decode_table_event(stored)
    assert isinstance(event, ev.PlayerLeft) and event.at == 0.0
    assert encode_table_event(event) == stored
    later = replace(event, at=1234.5)
    assert decode_table_event(encode_table_event(later)) == later


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["sit_a", "sit_b", "leave_a", "leave_b", "wait"]), max_size=12),
       st.floats(min_value=0, max_value=3 * DAY))
def test_the_idle_deadline_follows_who_is_seated(moves: list[str], wait: float) -> None:
    """Whatever the order of seats and departures: a table has the idle deadline exactly when
    nobody is seated (and it is not closed), a day after the last one left."""
    t = Table(ante=2, next_hand_seconds=0)
    last_empty = T0
    for move in moves:
        user = A if move.endswith("a") else B
        if move.startswith("sit") and t.s.seat_of(user) is None and not t.s.closed:
            t.sit(user, 50)
        elif move.startswith("leave") and t.s.seat_of(user) is not None:
            t.leave(user)
            if t.s.seated() == 0:
                last_empty = t.now
        elif move == "wait":
            t.now += wait
            deadline = t.s.deadline
            if deadline is not None and t.now >= deadline and not t.s.closed:
                t.do(cmd.Tick(now=t.now, seed=seed_of(7)))
        if t.s.closed:
            assert t.s.seated() == 0 and t.s.deadline is None
        elif t.s.seated() == 0:
            assert t.s.deadline == last_empty + DAY
        elif t.s.hand is None or t.s.phase == "settled":
            assert t.s.deadline is None or t.s.can_start_hand()
