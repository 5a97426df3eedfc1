"""The idle limit is the deployment's, recorded when the table is created: `table_created`
carries `idle_close_seconds`, so every replica (and every replay) closes the table after the
same time, whatever its own setting. A log that records none waits the rule's day."""

from __future__ import annotations

import math

import pytest

from events import table as ev
from events.codec import decode_table_event, encode_table_event
from service.game import commands as cmd
from service.game.decider import decide, fold, step
from service.game.errors import GameError
from service.game.settings import TableSettings
from service.game.state import IDLE_CLOSE_SECONDS
from tests.support.tablekit import T0, Table, seed_of

A = 11
TEN_MINUTES = 600.0


def test_a_table_created_with_a_limit_records_it_and_closes_after_it() -> None:
    t = Table(ante=2, idle_close_seconds=TEN_MINUTES)
    created = t.log[0]
    assert isinstance(created, ev.TableCreated) and created.idle_close_seconds == TEN_MINUTES
    assert t.s.idle_limit == TEN_MINUTES and t.s.deadline == T0 + TEN_MINUTES
    t.refused("not_due", cmd.Tick(now=T0 + TEN_MINUTES - 0.001, seed=seed_of(1)))
    assert t.tick() == [ev.TableClosed(reason="idle", idle_seconds=TEN_MINUTES)]
    assert t.s.closed and t.s.deadline is None


def test_the_limit_counts_again_from_when_the_last_player_left() -> None:
    t = Table(ante=2, idle_close_seconds=TEN_MINUTES)
    t.now += TEN_MINUTES - 1
    t.sit(A, 50)
    assert t.s.deadline is None  # someone seated: no idle clock
    t.now += 5 * IDLE_CLOSE_SECONDS
    t.refused("not_due", cmd.Tick(now=t.now, seed=seed_of(1)))
    t.leave(A)
    left_at = t.now
    assert t.s.deadline == left_at + TEN_MINUTES
    [closed] = t.tick()
    assert closed == ev.TableClosed(reason="idle", idle_seconds=TEN_MINUTES)
    assert t.now == left_at + TEN_MINUTES


def test_a_log_that_records_no_limit_waits_a_day_and_keeps_its_bytes() -> None:
    older = ev.TableCreated(table_id="t", settings=TableSettings(ante=2), created_by=1,
                            created_at=5.0)
    stored = encode_table_event(older)
    assert b"idle_close_seconds" not in stored  # what an older log holds
    created = decode_table_event(stored)
    assert isinstance(created, ev.TableCreated) and created.idle_close_seconds == 0.0
    assert encode_table_event(created) == stored  # left out while it has its default
    state = fold([created])
    assert state.idle_limit == IDLE_CLOSE_SECONDS and state.deadline == 5.0 + IDLE_CLOSE_SECONDS


@pytest.mark.parametrize("limit", [-1.0, math.nan, math.inf, "600"])
def test_a_limit_that_is_no_number_of_seconds_is_refused(limit: object) -> None:
    command = cmd.CreateTable(table_id="t", settings=TableSettings(ante=2), created_by=1,
                              now=T0, seed=seed_of(1), idle_close_seconds=limit)  # type: ignore[arg-type]
    for decider in (decide, step):  # refused before any handler reads it (compiled too)
        with pytest.raises(GameError) as refused:
            decider(None, command)
        assert refused.value.code == "invalid_settings"
