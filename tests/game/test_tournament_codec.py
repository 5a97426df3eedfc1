"""Tournament events decode as stored: a `tournament_created` written before the group's chat
id existed still decodes (None), and one with it round-trips; settings and hands written
before the time schedule decode by hands with `minutes_per_level` 0 and `settled_at` 0.0."""

from __future__ import annotations

from events.tournament import (
    HandRecorded,
    TournamentCreated,
    TournamentSettings,
    decode_tournament_event,
    encode_tournament_event,
)
from service.game.tournament.state import fold

OLD = (
    b'{"type":"tournament_created","tournament_id":"abc","settings":{"seats":2,"buy_in":10,'
    b'"stack":50,"antes":[5],"hands_per_level":3},"created_by":7,"created_at":1.5}'
)


def test_a_stream_written_before_the_group_field_still_decodes() -> None:
    event = decode_tournament_event(OLD)
    assert isinstance(event, TournamentCreated) and event.group_chat_id is None
    state = fold([event])
    assert state is not None and state.group_chat_id is None


def test_the_group_round_trips_into_the_state() -> None:
    settings = TournamentSettings(seats=2, buy_in=10, stack=50, antes=(5,), hands_per_level=3)
    made = TournamentCreated(tournament_id="abc", settings=settings, created_by=7,
                             created_at=1.5, group_chat_id=-100123)
    again = decode_tournament_event(encode_tournament_event(made))
    assert again == made
    state = fold([again])
    assert state is not None and state.group_chat_id == -100123


def test_streams_written_before_the_time_schedule_still_decode() -> None:
    created = decode_tournament_event(OLD)
    assert isinstance(created, TournamentCreated)
    assert (created.settings.hands_per_level, created.settings.minutes_per_level) == (3, 0)
    old_hand = decode_tournament_event(
        b'{"type":"hand_recorded","table_version":12,"hand":1,"stacks":{"7":50}}'
    )
    assert isinstance(old_hand, HandRecorded) and old_hand.settled_at == 0.0
    timed = HandRecorded(table_version=3, hand=1, stacks={7: 50}, settled_at=1.8e9 + 0.25)
    assert decode_tournament_event(encode_tournament_event(timed)) == timed
