"""The e2e tests' own checkers must be able to fail, or their passing proves nothing."""

from __future__ import annotations

import pytest

from tests.api.player import cards_in, check_event_privacy, check_feed, check_view_privacy

AUDITS = {1: {"deals": [{"deal": 1, "cards": {"0": ["Ah", "Kd", "7c"], "1": ["9s", "Ts", "Js"]}}]}}


def ev(version: int, type_: str, data: dict[str, object]) -> dict[str, object]:
    return {"version": version, "type": type_, "at": 0.0, "data": data}


def test_event_privacy_catches_a_leak_before_showdown_only() -> None:
    clean = [ev(1, "hand_started", {"number": 1}), ev(2, "looked", {"cards": ["Ah", "Kd", "7c"]})]
    check_event_privacy(clean, 0, AUDITS)
    leak = [*clean, ev(3, "looked", {"seat": 1, "cards": ["9s", "Ts", "Js"]})]
    with pytest.raises(AssertionError):
        check_event_privacy(leak, 0, AUDITS)
    shown = [*clean, ev(3, "showdown", {"hands": {"1": {"cards": ["9s", "Ts", "Js"]}}})]
    check_event_privacy(shown, 0, AUDITS)


def test_view_privacy_and_feed_checks_fail_when_they_should() -> None:
    seat = {"seat": 1, "looked": False, "cards": ["9s", "Ts", "Js"]}
    view = {"hand": {"phase": "betting"}, "seats": [seat], "you": {"seat": 0}}
    with pytest.raises(AssertionError):
        check_view_privacy(view)
    check_view_privacy({**view, "hand": {"phase": "settled"}})
    with pytest.raises(AssertionError):
        check_feed([ev(1, "a", {}), ev(3, "b", {})])
    with pytest.raises(AssertionError):
        check_feed([ev(1, "a", {}), ev(1, "a", {})])
    assert cards_in({"x": [["Ah", "no"], {"y": "7c"}], "z": 5}) == {"Ah", "7c"}
