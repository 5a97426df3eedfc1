"""The property tests' privacy checks (tests/support/privacy.py) must be able to fail: each is
shown a real view or event with one thing derived from hidden cards put in, and refuses it."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from events import table as ev
from service.game.view import project_event, view
from tests.support.privacy import check_event_data, check_view_json, visible_cards
from tests.support.tablekit import Table, table_with

A, B, C = 11, 12, 13


def _looked_table() -> Table:
    t = table_with([A, B, C])
    t.act(B, "look")  # B knows their own cards (and score); A, C and spectators do not
    return t


def test_a_real_view_passes() -> None:
    t = _looked_table()
    for viewer in (None, A, B, C):
        check_view_json(t.s, viewer, set(), view(t.s, viewer, 1))
    assert visible_cards(t.s, B) == set(t.s.hand.player(1).cards)  # type: ignore[union-attr,arg-type]


def _tampered(t: Table, viewer: int | None, change: Any) -> dict[str, Any]:
    v = copy.deepcopy(view(t.s, viewer, 1))
    change(v)
    return v


def _b_score(t: Table) -> int:
    return int(view(t.s, B, 1)["you"]["score"])


@pytest.mark.parametrize("viewer", [None, A, C])
def test_a_hidden_hands_score_is_a_leak(viewer: int | None) -> None:
    t = _looked_table()
    score = _b_score(t)

    def show_score(v: dict[str, Any]) -> None:
        v["seats"][1]["score"] = score  # B's seat: cards null for everyone but B

    with pytest.raises(AssertionError):
        check_view_json(t.s, viewer, set(), _tampered(t, viewer, show_score))


def test_a_rank_or_strength_anywhere_is_a_leak_too() -> None:
    t = _looked_table()
    for key in ("hand_rank", "strength", "best_score"):

        def add(v: dict[str, Any], key: str = key) -> None:
            v["hand"][key] = 3

        with pytest.raises(AssertionError):
            check_view_json(t.s, A, set(), _tampered(t, A, add))


def test_a_wrong_score_beside_visible_cards_is_refused() -> None:
    t = _looked_table()

    def wrong(v: dict[str, Any]) -> None:
        v["you"]["score"] += 1

    with pytest.raises(AssertionError):
        check_view_json(t.s, B, set(), _tampered(t, B, wrong))


def test_a_deck_order_or_a_card_outside_the_seats_is_a_leak() -> None:
    t = _looked_table()
    hidden = t.s.hand.player(2).cards[0]  # type: ignore[union-attr,index]
    changes = [
        lambda v: v.update(deck=list(range(32))),
        lambda v: v["hand"].update(next_card=hidden),
        lambda v: v["seats"][2].update(hint=[hidden]),
    ]
    for change in changes:
        with pytest.raises(AssertionError):
            check_view_json(t.s, B, set(), _tampered(t, B, change))


def test_a_seed_before_settlement_is_a_leak_even_inside_a_string() -> None:
    t = _looked_table()
    seed = t.last(ev.HandStarted).seed
    with pytest.raises(AssertionError):
        check_view_json(t.s, A, {seed}, _tampered(t, A, lambda v: v.update(x=f"s:{seed.upper()}")))
    check_view_json(t.s, A, {seed}, view(t.s, A, 1))


def test_projected_events_score_only_beside_shown_cards() -> None:
    t = _looked_table()
    looked = t.last(ev.Looked)
    settings = t.s.settings
    own = project_event(looked, B)["data"]
    check_event_data(looked, B, set(), settings, own)
    score = _b_score(t)
    for viewer in (None, A, C):
        other = project_event(looked, viewer)["data"]
        check_event_data(looked, viewer, set(), settings, other)
        with pytest.raises(AssertionError):
            check_event_data(looked, viewer, set(), settings, {**other, "score": score})
    with pytest.raises(AssertionError):  # own cards, but the score is not theirs
        check_event_data(looked, B, set(), settings, {**own, "score": score + 1})
