"""The table machine (tests/game/table_machine.py) driven directly, outside Hypothesis:
volume (many random hands with legal random play, every invariant checked along the way)
and a path Hypothesis reaches only by chance (a closed table refusing a seat)."""

from __future__ import annotations

import random

import pytest

from events import table as ev
from service.game.settings import TableSettings
from tests.game.random_play import Dice
from tests.game.table_machine import USERS, TableMachine


@pytest.mark.parametrize("seed", range(4))
def test_many_random_hands_keep_every_invariant(seed: int) -> None:
    """Volume on top of Hypothesis: 150 random 2-6 player hands with legal random play."""
    rng = random.Random(seed)
    machine = TableMachine()
    settings_ = TableSettings(
        ante=1, max_seats=6, min_buy_in=1, max_buy_in=30, svara_join_fee="ante"
    )
    machine.create(settings_, rng.randint(2, 6))
    hands = 0
    steps = 0
    while hands < 150:
        steps += 1
        assert steps < 20_000
        s = machine.s
        if s.hand is None or s.hand.phase == "settled" or rng.random() < 0.02:
            if s.hand is not None and s.hand.phase == "settled":
                hands += 1
            if len([x for x in s.seats if x is not None and x.stack >= 1 and not x.sat_out]) < 2:
                _refill(machine, rng)
            if s.deadline is not None:
                machine.tick(rng.choice([0.0, 7.0]))
            continue
        machine.play_legal_with(Dice(rng))
        if steps % 5 == 0:
            machine.views_hide_what_they_must()
    machine.chips_are_conserved()
    machine.fold_of_the_log_is_the_live_state()


def test_the_machine_expects_a_closed_table_to_refuse_a_seat() -> None:
    """The machine's own expectation, on the path Hypothesis takes only by chance: everyone
    leaves, a day passes, the table closes; sitting down there is refused (`table_closed`),
    not a failure of the machine, while an open table takes the same sit-down."""
    machine = TableMachine()
    machine.create(TableSettings(ante=1, max_seats=3, min_buy_in=1, max_buy_in=30), 2)
    machine.sit_down_where_free(USERS[2], 10)
    for uid in list(machine.seated_users()):
        machine.leave_table(uid)
    while not machine.s.closed:  # the pause after the hand, then the idle day
        machine.tick(0.0)
    assert machine.log[-1] == ev.TableClosed(reason="idle", idle_seconds=86_400.0)
    machine.sit_down_where_free(USERS[0], 10)
    machine.chips_are_conserved()
    machine.fold_of_the_log_is_the_live_state()


def _refill(machine: TableMachine, rng: random.Random) -> None:
    for s in machine.s.seats:
        if s is not None and (s.stack < 1 or s.sat_out):
            machine.leave_table(s.user_id)
    for uid in USERS:
        if uid not in machine.seated_users() and None in machine.s.seats:
            machine.apply(machine._sit(uid, rng.randint(1, 30), None))
