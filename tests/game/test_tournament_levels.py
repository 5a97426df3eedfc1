"""The ante schedule in the pure decider: by minutes a level rises at the first hand settled
at or after `started_at + k * M * 60` (the hand's own settle time, from the next hand on),
several boundaries in one long hand raise through each at once, the last level stays; by
hands as before; and the settings take exactly one schedule."""

from __future__ import annotations

import pytest

from events.tournament import LevelRaised, TournamentSettings
from service.game.errors import GameError
from service.game.tournament import decide, fold
from service.game.tournament import decider as td
from service.game.tournament.levels import next_level_at
from service.game.tournament.state import TournamentState

START = 1_000.0
TIMED = TournamentSettings(
    seats=3, buy_in=10, stack=100, antes=(5, 10, 15, 20), minutes_per_level=10
)


def running(s: TournamentSettings) -> TournamentState:
    state = fold(decide(None, td.CreateTournament(
        tournament_id="t", settings=s, created_by=1, now=0.0)))
    for user in (1, 2, 3):
        state = fold(decide(state, td.Register(
            user_id=user, name=f"u{user}", transfer_id=f"r{user}", amount=10, now=0.0,
        )), state)
    state = fold(decide(state, td.Start(table_id="table", now=START)), state)
    assert state is not None and state.started_at == START and state.level == 1
    return state


def hand(state: TournamentState, settled_at: float, stacks: dict[int, int] | None = None
         ) -> tuple[TournamentState, list[LevelRaised]]:
    """One more hand, settled at `settled_at`; the state after it and its raises."""
    record = td.RecordHand(
        table_version=state.table_version + 7, hand=state.hands + 1,
        stacks=stacks or dict(state.stacks), start_stacks=dict(state.stacks),
        settled_at=settled_at, now=settled_at,
    )
    events = decide(state, record)
    after = fold(events, state)
    assert after is not None
    return after, [e for e in events if isinstance(e, LevelRaised)]


def test_a_hand_settled_before_the_boundary_raises_nothing() -> None:
    state, raised = hand(running(TIMED), START + 599.999)
    assert raised == [] and state.level == 1 and state.ante == 5
    assert next_level_at(TIMED, level=1, started_at=START) == START + 600


def test_the_hand_settled_exactly_at_the_boundary_raises_one_level() -> None:
    state, raised = hand(running(TIMED), START + 600)
    assert raised == [LevelRaised(level=2, ante=10, after_hands=1)]
    assert state.level == 2 and state.ante == 10
    # the next hand within level 2 raises nothing more; the next boundary is 10 minutes on
    state, raised = hand(state, START + 1199)
    assert raised == [] and next_level_at(TIMED, level=2, started_at=START) == START + 1200
    state, raised = hand(state, START + 1200.5)
    assert raised == [LevelRaised(level=3, ante=15, after_hands=3)]


def test_several_boundaries_in_one_long_hand_raise_through_each() -> None:
    state, raised = hand(running(TIMED), START + 3 * 600 + 5)
    assert raised == [LevelRaised(level=2, ante=10, after_hands=1),
                      LevelRaised(level=3, ante=15, after_hands=1),
                      LevelRaised(level=4, ante=20, after_hands=1)]
    assert state.level == 4
    state, raised = hand(state, START + 99 * 600)  # past the last level: it stays
    assert raised == [] and state.level == 4
    assert next_level_at(TIMED, level=4, started_at=START) is None


def test_a_hand_without_a_settle_time_raises_nothing_by_time() -> None:
    state, raised = hand(running(TIMED), 0.0)  # recorded before settle times existed
    assert raised == [] and state.level == 1


def test_the_last_hand_raises_nothing() -> None:
    state = running(TIMED)
    events = decide(state, td.RecordHand(
        table_version=9, hand=1, stacks={1: 300, 2: 0, 3: 0}, start_stacks=dict(state.stacks),
        settled_at=START + 5000, now=START + 5000,
    ))
    assert not [e for e in events if isinstance(e, LevelRaised)]
    assert fold(events, state).status == "finished"  # type: ignore[union-attr]


def test_by_hands_the_level_rises_every_n_hands_whatever_the_time() -> None:
    by_hands = TournamentSettings(seats=3, buy_in=10, stack=100, antes=(5, 10), hands_per_level=2)
    state, raised = hand(running(by_hands), START + 10_000)
    assert raised == []
    state, raised = hand(state, START + 10_001)
    assert raised == [LevelRaised(level=2, ante=10, after_hands=2)]
    assert next_level_at(by_hands, level=1, started_at=START) is None


@pytest.mark.parametrize(("hands", "minutes", "words"), [
    (5, 10, "exactly one"),
    (0, 0, "exactly one"),
    (0, 241, "minutes_per_level must be a whole number from 1 to 240"),
    (0, -1, "minutes_per_level must be a whole number from 1 to 240"),
    (10_001, 0, "hands_per_level must be a whole number from 1 to 10000"),
])
def test_the_settings_take_exactly_one_schedule(hands: int, minutes: int, words: str) -> None:
    s = TournamentSettings(seats=3, buy_in=10, stack=100, antes=(5,), hands_per_level=hands,
                           minutes_per_level=minutes)
    with pytest.raises(GameError) as bad:
        decide(None, td.CreateTournament(tournament_id="t", settings=s, created_by=1, now=0.0))
    assert bad.value.code == "invalid_settings" and words in bad.value.message


def test_either_schedule_within_its_bounds_is_accepted() -> None:
    for hands, minutes in ((1, 0), (10_000, 0), (0, 1), (0, 240)):
        s = TournamentSettings(seats=3, buy_in=10, stack=100, antes=(5,),
                               hands_per_level=hands, minutes_per_level=minutes)
        assert td.validated(s) is s
