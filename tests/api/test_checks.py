"""The e2e tests' own checkers must be able to fail, or their passing proves nothing."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from tests.support.http_player import cards_in, check_event_privacy, check_feed, check_view_privacy

SEED = "ab" * 32
COMMITMENT = "e8d5b1e4f1ed3bcb0ee1b2a5b6dd2b1cfa0e1fe2da6c1b6cd3de3a1e6fc1d8e0"  # not sha256(SEED)
AUDITS = {
    1: {
        "deals": [
            {
                "deal": 1,
                "seed": SEED,
                "commitment": COMMITMENT,
                "cards": {"0": ["Ah", "Kd", "7c"], "1": ["9s", "Ts", "Js"]},
            }
        ]
    }
}
SETTINGS = {"ante": 1, "joker_pair": "sum", "natural_777": 34}


def ev(version: int, type_: str, data: dict[str, object]) -> dict[str, object]:
    return {"version": version, "type": type_, "at": 0.0, "data": data}


CLEAN = [
    ev(1, "table_created", {"table_id": "t", "settings": SETTINGS}),
    ev(2, "hand_started", {"number": 1, "commitment": COMMITMENT}),
    ev(3, "looked", {"seat": 0, "user_id": 5, "cards": ["Ah", "Kd", "7c"]}),
]


def test_event_privacy_catches_a_leak_before_showdown_only() -> None:
    check_event_privacy(CLEAN, 0, AUDITS)
    leak = [*CLEAN, ev(4, "looked", {"seat": 1, "cards": ["9s", "Ts", "Js"]})]
    with pytest.raises(AssertionError):
        check_event_privacy(leak, 0, AUDITS)
    shown = [
        *CLEAN,
        ev(4, "showdown", {"hands": {"1": {"cards": ["9s", "Ts", "Js"], "score": 29}}}),
    ]
    check_event_privacy(shown, 0, AUDITS)


@pytest.mark.parametrize(
    "bad",
    [
        # a hidden hand's score, with or without a card field beside it
        ev(4, "called", {"seat": 1, "score": 30}),
        ev(4, "called", {"seat": 1, "cards": None, "hand_rank": 6}),
        # a showdown score that is not the shown cards' (9s Ts Js is 29)
        ev(4, "showdown", {"hands": {"1": {"cards": ["9s", "Ts", "Js"], "score": 30}}}),
        # a card still in the deck, a card of one's own before looking
        ev(4, "passed", {"seat": 0, "next": "Qh"}),
        ev(4, "passed", {"seat": 0, "mine": ["Ah"]}),
        # the seed before the hand is settled, alone or inside a string, or as a field
        ev(4, "passed", {"seat": 0, "note": f"seed={SEED.upper()}"}),
        ev(4, "hand_started", {"number": 1, "commitment": COMMITMENT, "seed": "00"}),
    ],
)
def test_event_privacy_catches_whatever_comes_from_hidden_cards(bad: dict[str, Any]) -> None:
    with pytest.raises(AssertionError):
        check_event_privacy([*CLEAN, bad], 0, AUDITS)


def test_event_privacy_allows_the_seed_once_the_hand_is_settled() -> None:
    settled = ev(4, "hand_settled", {"number": 1, "seeds": [{"deal": 1, "seed": SEED}]})
    after = ev(5, "passed", {"seat": 0, "note": SEED})
    check_event_privacy([*CLEAN, settled, after], 0, AUDITS)


def _view(phase: str, seats: list[dict[str, Any]], you: dict[str, Any]) -> dict[str, Any]:
    hand = {"phase": phase, "commitment": COMMITMENT}
    return {"settings": SETTINGS, "hand": hand, "seats": seats, "you": you}


def _seat(seat: int, cards: list[str] | None, score: int | None, looked: bool = False) -> Any:
    return {"seat": seat, "looked": looked, "cards": cards, "score": score}


def test_view_privacy_and_feed_checks_fail_when_they_should() -> None:
    other = _seat(1, ["9s", "Ts", "Js"], 29)
    view = _view("betting", [other], {"seat": 0, "cards": None, "score": None})
    with pytest.raises(AssertionError):
        check_view_privacy(view)
    check_view_privacy(_view("settled", [other], {"seat": 0, "cards": None, "score": None}))
    with pytest.raises(AssertionError):
        check_feed([ev(1, "a", {}), ev(3, "b", {})])
    with pytest.raises(AssertionError):
        check_feed([ev(1, "a", {}), ev(1, "a", {})])
    assert cards_in({"x": [["Ah", "no"], {"y": "7c"}], "z": 5}) == {"Ah", "7c"}


def test_view_privacy_treats_what_comes_from_hidden_cards_as_hidden() -> None:
    mine = _seat(0, ["Ah", "Kd", "7c"], 22, looked=True)
    you = {"seat": 0, "cards": ["Ah", "Kd", "7c"], "score": 22}
    check_view_privacy(_view("betting", [mine, _seat(1, None, None)], you))
    bad_views = [
        # another player's score while their cards are hidden
        _view("betting", [mine, _seat(1, None, 30)], you),
        # one's own score before looking
        _view("betting", [_seat(0, None, 22), _seat(1, None, None)], {**you, "cards": None}),
        # a score that is not the cards' (Ah Kd 7c is 22)
        _view("betting", [_seat(0, ["Ah", "Kd", "7c"], 23, looked=True)], you),
        # a card outside the seats (the deck, the next card)
        {**_view("betting", [mine], you), "next": "Qh"},
        # the seed beside its commitment, or any seed field, before settlement
        {**_view("betting", [mine], you), "hand": {"phase": "betting", "seeds": ["00"]}},
    ]
    for bad in bad_views:
        with pytest.raises(AssertionError):
            check_view_privacy(bad)


def test_view_privacy_knows_a_seed_by_its_commitment() -> None:
    seed = "cd" * 32
    hand = {"phase": "betting", "commitment": hashlib.sha256(bytes.fromhex(seed)).hexdigest()}
    view = {"settings": SETTINGS, "hand": {**hand, "note": seed}, "seats": [], "you": {}}
    with pytest.raises(AssertionError):
        check_view_privacy(view)
    check_view_privacy({**view, "hand": {**view["hand"], "phase": "settled"}})
