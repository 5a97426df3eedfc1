"""docs/RULES.md "Time" (deadlines, timeouts, sitting out) and the table's seating rules."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from events import table as ev
from service.game import commands as cmd
from service.game.decider import decide
from service.game.errors import GameError
from service.game.legal import can_rebuy, can_sit_down, legal_actions
from service.game.settings import TableSettings
from tests.support.tablekit import T0, Table, seed_of, table_with

A, B, C, D = 11, 12, 13, 14


# --- Time -----------------------------------------------------------------------------------


def test_time_every_turn_has_a_deadline_of_turn_seconds() -> None:
    t = table_with([A, B, C], turn_seconds=20)
    assert t.last_turn() == (1, t.now + 20, "blind")
    assert t.s.deadline == t.now + 20
    t.now += 5
    t.act(B, "blind", 1)
    assert t.last_turn() == (2, t.now + 20, "blind") and t.s.hand.turn == 2  # type: ignore[union-attr]
    assert isinstance(t.log[-1], ev.BlindPlaced)  # the blind itself handed the turn on


def test_time_a_tick_before_the_deadline_is_not_due() -> None:
    t = table_with([A, B])
    deadline = t.s.deadline
    assert deadline is not None
    t.refused("not_due", cmd.Tick(now=deadline - 0.001, seed=seed_of(1)))


def test_time_timeout_in_the_blind_round_is_a_pass() -> None:
    t = table_with([A, B, C])
    events = t.tick()
    assert events[0] == ev.TimedOut(
        seat=1, user_id=B, action="pass", turn=1, deadline=t.now + 30, phase="betting"
    )
    assert t.s.phase == "betting" and t.turn_user == B


def test_time_timeout_in_the_betting_round_is_a_fold() -> None:
    t = table_with([A, B, C])
    t.act(B, "pass")
    events = t.tick()
    assert events[0] == ev.TimedOut(
        seat=1, user_id=B, action="fold", turn=2, deadline=t.now + 30, phase="betting"
    )
    assert t.s.hand.player(1).folded and t.turn_user == C  # type: ignore[union-attr]


def test_time_two_timeouts_in_a_row_sit_a_player_out() -> None:
    t = table_with([A, B, C])
    t.tick()  # B: pass
    events = t.tick()  # B: fold, second in a row
    assert t.types(events)[:2] == ["timed_out", "sat_out"]
    assert t.s.seat_by_user(B).sat_out  # type: ignore[union-attr]
    assert [a.type for a in legal_actions(t.s, B)] == ["sit_in"]
    # a sat-out player is dealt no hands
    t.act(C, "fold")
    t.tick()
    assert {p.seat for p in t.s.hand.players} == {0, 2}  # type: ignore[union-attr]


def test_time_any_own_action_resets_the_timeout_count() -> None:
    t = table_with([A, B, C])
    t.tick()  # B passes by timeout
    t.act(B, "look")
    assert t.s.seat_by_user(B).timeouts == 0  # type: ignore[union-attr]
    events = t.tick()  # B folds by timeout: only one in a row
    assert "sat_out" not in t.types(events)


def test_time_sit_in_returns_a_sat_out_player() -> None:
    t = table_with([A, B])
    t.tick()
    t.tick()  # B sat out; B folded, A won
    assert t.s.seat_by_user(B).sat_out  # type: ignore[union-attr]
    t.refused("not_sat_out", t.command(A, "sit_in"))
    t.now = t.s.next_hand_at  # type: ignore[assignment]
    assert t.s.deadline is None  # one eligible player: no hand to start
    events = t.act(B, "sit_in")
    assert t.types(events)[:2] == ["returned", "hand_started"]  # back, and a hand starts


# --- Seating ----------------------------------------------------------------------------------


def test_seating_create_a_table_once_with_valid_settings() -> None:
    t = Table(ante=2)
    t.refused(
        "table_exists",
        cmd.CreateTable(table_id="t1", settings=TableSettings(ante=2), created_by=1, now=T0),
    )
    bad = cmd.CreateTable(table_id="t2", settings=TableSettings(ante=0), created_by=1, now=T0)
    with pytest.raises(GameError) as info:
        decide(None, bad)
    assert info.value.code == "invalid_settings"


def test_seating_commands_on_a_missing_table_are_table_not_found() -> None:
    with pytest.raises(GameError) as info:
        decide(None, cmd.Pass(user_id=A, now=T0))
    assert info.value.code == "table_not_found"


def test_seating_buy_in_within_range_one_seat_each() -> None:
    t = Table(ante=2, max_seats=2)  # buy-in 20..200
    sit = cmd.SitDown(user_id=A, name="a", buy_in=19, transfer_id="x", now=T0, seed=seed_of(1))
    t.refused("buy_in_out_of_range", sit)
    t.refused("buy_in_out_of_range", replace(sit, buy_in=201))
    t.refused("invalid_seat", replace(sit, buy_in=20, seat=2))
    t.refused("invalid_seat", replace(sit, buy_in=20, seat="1"))
    t.refused("invalid_amount", replace(sit, buy_in=20.5))
    t.sit(A, 20, seat=1)
    t.refused("already_seated", replace(sit, buy_in=20))
    t.refused("seat_taken", replace(sit, user_id=B, buy_in=20, seat=1))
    t.sit(B, 20)
    assert t.s.seat_of(B) == 0
    t.refused("table_full", replace(sit, user_id=C, buy_in=20))


def test_seating_mid_hand_waits_for_the_next_hand() -> None:
    t = table_with([A, B])
    t.sit(C, 100)
    assert t.s.hand.player(2) is None  # type: ignore[union-attr]
    assert legal_actions(t.s, C) == []
    t.refused("not_your_turn", t.command(C, "pass"))
    t.refused("not_in_hand", t.command(C, "look"))


def test_seating_leaving_mid_hand_folds_first_and_cashes_out_the_stack() -> None:
    t = table_with([A, B, C])
    t.act(B, "pass")
    t.act(B, "raise", 5)
    stack = t.stack(B)
    events = t.leave(B)  # not B's turn
    assert t.types(events) == ["folded", "player_left"]
    assert events[0] == ev.Folded(seat=1, user_id=B, left=True)
    assert isinstance(events[1], ev.PlayerLeft) and events[1].cashed_out == stack
    assert t.turn_user == C and t.s.seat_of(B) is None
    t.refused("not_seated", t.command(B, "fold"))


def test_seating_leaving_on_your_turn_moves_the_turn_on() -> None:
    t = table_with([A, B, C])
    t.act(B, "pass")
    events = t.leave(B)
    assert t.types(events) == ["folded", "player_left"]
    assert events[0].turn == 2  # type: ignore[union-attr]
    assert t.turn_user == C


def test_seating_leaving_on_your_blind_turn_ends_the_blind_round() -> None:
    t = table_with([A, B, C])
    t.act(B, "blind", 1)
    t.leave(C)
    assert t.s.phase == "betting" and t.turn_user == A


def test_seating_the_last_opponent_leaving_wins_the_pot_for_the_other() -> None:
    t = table_with([A, B])
    events = t.leave(A)
    assert t.types(events) == ["folded", "hand_settled", "seed_drawn", "player_left"]
    assert t.stack(B) == 101 and events[3].cashed_out == 99  # type: ignore[union-attr]


def test_seating_a_hand_starts_at_once_when_a_sit_down_makes_two_players() -> None:
    t = Table(ante=1)
    t.sit(A)
    events = t.sit(B)
    assert t.types(events)[1] == "hand_started"


def test_seating_a_rebuy_stands_up_only_if_the_whole_rebuy_is_allowed() -> None:
    """`Leave(rebuy=n)`, the first step of a rebuy, is refused (nothing emitted) unless the
    player is busted, out of the hand, and n is a buy-in the table takes."""
    t = Table(ante=10, min_buy_in=10, max_buy_in=500, max_seats=3)
    t.sit(A, 10)
    t.sit(B, 10)  # both all in with the ante: settled at once, one of them busted
    assert t.s.phase == "settled"
    loser, winner = (A, B) if t.stack(A) == 0 else (B, A)

    def rebuy(user_id: int, amount: object) -> cmd.Leave:
        return cmd.Leave(user_id=user_id, transfer_id="r", rebuy=amount, now=t.now)  # type: ignore[arg-type]

    t.refused("buy_in_out_of_range", rebuy(loser, 501))
    t.refused("buy_in_out_of_range", rebuy(loser, 9))
    t.refused("invalid_amount", rebuy(loser, 100.5))
    t.refused("not_busted", rebuy(winner, 100))
    t.refused("not_seated", rebuy(C, 100))
    assert not can_rebuy(t.s, loser, 501) and not can_rebuy(t.s, winner, 100)
    assert can_rebuy(t.s, loser, 500)
    events = t.do(rebuy(loser, 500))
    assert t.types(events) == ["player_left"] and t.s.seat_of(loser) is None


def test_seating_no_rebuy_while_still_in_the_hand() -> None:
    t = table_with([A, B], ante=10)
    t.act(B, "pass")
    t.act(B, "raise", 90)  # all in: nothing left, but still in the hand
    assert t.stack(B) == 0
    t.refused("hand_in_progress", cmd.Leave(user_id=B, transfer_id="r", rebuy=100, now=t.now))
    assert not can_rebuy(t.s, B, 100)


def test_seating_can_sit_down_asks_the_sit_down_rules() -> None:
    t = Table(ante=2, max_seats=2)  # buy-in 20..200
    assert can_sit_down(t.s, A, 20) and can_sit_down(t.s, A, 200, seat=1)
    assert not can_sit_down(t.s, A, 201) and not can_sit_down(t.s, A, 20, seat=2)
    t.sit(A, 20, seat=1)
    assert not can_sit_down(t.s, A, 20) and not can_sit_down(t.s, B, 20, seat=1)
    assert can_sit_down(t.s, B, 20)
