"""What a "turn" is for the pings (`service.bot.pings.current_turn`), checked on random hands
through the real game engine, one event at a time (a replica's feed sees every intermediate
state): the value changes exactly when an event hands the turn to someone, so every new turn
gets its own ping mark and nothing in between looks like one."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from events.table import TurnDeadlineSet, TurnHandover
from service.bot.pings import current_turn
from service.game import commands as cmd
from service.game.decider import decide, evolve
from tests.support import random_play


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([0.000_001, 0.001, 1.0]), st.floats(0, 0.3))
def test_the_turn_changes_exactly_when_it_is_handed_on(
    seed: int, step: float, timeouts: float
) -> None:
    """`step`: how far the clock moves per command (a microsecond at least: commands never
    share a clock reading); `timeouts`: how often the timer acts instead of the player."""
    rng = random.Random(seed)
    state = random_play.new_table(rng)
    now = 1_000.0
    handed = 0
    for _ in range(400):
        hand = state.hand
        deadline = state.deadline
        if hand is None or hand.phase == "settled" or (
            deadline is not None and rng.random() < timeouts
        ):
            if deadline is None:
                break
            now = max(now, deadline)
            command: cmd.TableCommand = cmd.Tick(now=now, seed=rng.randbytes(32))
        else:
            command = random_play.random_command(state, rng, now)
        for event in decide(state, command):
            before = current_turn("t", state)
            state = evolve(state, event)
            after = current_turn("t", state)
            hands_on = isinstance(event, TurnDeadlineSet) or (
                isinstance(event, TurnHandover) and event.turn is not None
            )
            if hands_on:
                handed += 1
                assert after is not None and after != before, (event, before, after)
            elif after is not None:
                assert after == before, (event, before, after)
        now += step
    assert handed > 0
