"""Checks that a projection shows nothing its viewer may not see, judged by content.

The checks do not trust the projection code's field handling. They work out, from the state
or the event, which cards the viewer may know, and then scan the whole output:
- every card-shaped string must be one of those cards;
- anything derived from cards (a `score`, a hand rank or strength: any key naming one) may
  appear only beside the cards it comes from, in the same object, and must be their score
  under the table's options (tests/support/oracle.py): a score of a hidden hand is a leak;
- no deck order (a list of 32 positions or cards);
- no seed before it is revealed, not even inside a longer string or in upper case.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import msgspec

from events import table as ev
from events.settings import TableSettings
from service.game.state import TableState
from service.game.view import project_event, public_data_json, view
from tests.support.oracle import settings_score

# Keys whose values are computed from cards: a hidden hand's is as secret as its cards.
DERIVED_KEY = re.compile(r"score|rank|strength|hand_value|best_hand", re.IGNORECASE)


def objects(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object inside `value`, `value` included."""
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from objects(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from objects(v)


class Scan:
    """A JSON value and its encoding, searched as text: the checks run on every view of every
    step of the property tests, so they read the bytes (fast) and walk the value only where
    the text shows something to look at closely."""

    _CARDS = re.compile(rb'"([789TJQKA][cdhs])"')
    _DERIVED = re.compile(rb"(?:" + DERIVED_KEY.pattern.encode() + rb')[^"]*":(?!null)')
    _NUMBERS = re.compile(rb"\[(?:\d+,){31,}\d+\]")  # an array of 32 or more numbers

    def __init__(self, value: Any) -> None:
        self.value = value
        self.raw = msgspec.json.encode(value)
        self.text = self.raw.lower()

    def cards(self) -> set[str]:
        return {m.decode() for m in self._CARDS.findall(self.raw)}

    def check_derived(self, settings: TableSettings | dict[str, Any]) -> None:
        """A value derived from cards only beside those cards, and equal to their score."""
        if not self._DERIVED.search(self.text):
            return
        for obj in objects(self.value):
            for key, derived in obj.items():
                if derived is None or not DERIVED_KEY.search(str(key)):
                    continue
                cards = obj.get("cards")
                assert isinstance(cards, list | tuple) and len(cards) == 3, (key, obj)
                assert derived == settings_score(cards, settings), (key, obj)

    def check_no_deck_order(self) -> None:
        """No list of 32 distinct cards (the card checks see those) or numbers."""
        for found in self._NUMBERS.findall(self.text):
            assert len(set(found.strip(b"[]").split(b","))) < 32, found

    _HEX_RUN = re.compile(rb"[0-9a-f]{64,}")

    def check_no_secret(self, secrets: set[str]) -> None:
        """`secrets`: seeds (lowercase hex) not revealed yet; none may appear, even inside a
        longer string or in upper case (every 64-hex-digit stretch of the text is looked up)."""
        if not secrets:
            return
        for run in self._HEX_RUN.findall(self.text):
            for i in range(len(run) - 63):
                assert run[i : i + 64].decode() not in secrets, run


def cards_named(value: Any) -> set[str]:
    return Scan(value).cards()


def check_projected_event(
    event: ev.TableEvent, viewer: int | None, secrets: set[str], settings: TableSettings
) -> None:
    """`secrets`: seeds not yet revealed (hex), including those drawn in advance for a deal
    still to come (`seed_drawn`). Cards may appear only in a showdown (the shown hands), or
    in the viewer's own `looked` event; a seed only in the settlement of the hand it dealt;
    a score only beside the shown cards it is the score of."""
    projected = project_event(event, viewer)
    shared = public_data_json(event)
    if shared is not None:  # the encoding every viewer shares must be this viewer's too
        assert msgspec.json.decode(shared) == projected["data"], (viewer, projected)
    check_event_data(event, viewer, secrets, settings, projected["data"])


def check_event_data(
    event: ev.TableEvent,
    viewer: int | None,
    secrets: set[str],
    settings: TableSettings,
    data: dict[str, Any],
) -> None:
    """`data`: what `viewer` was sent of `event` (see `check_projected_event`)."""
    projected = {"type": type(event).__name__, "data": data}
    scan = Scan(data)
    allowed: set[str] = set()
    if isinstance(event, ev.Looked) and viewer == event.user_id:
        allowed = set(event.cards)
    elif isinstance(event, ev.ShowdownHappened):
        allowed = {c for h in event.hands.values() for c in h.cards}
    named = scan.cards()
    assert named <= allowed, (viewer, projected, named - allowed)
    scan.check_derived(settings)
    scan.check_no_deck_order()
    # A seed only in the settlement of the hand it dealt (never the next hand's, drawn by that
    # same settlement and kept in a secret `seed_drawn`).
    revealed = {s.seed for s in event.seeds} if isinstance(event, ev.HandSettled) else set()
    scan.check_no_secret(secrets - revealed)


def visible_cards(state: TableState, viewer: int | None) -> set[str]:
    """The cards `viewer` may know now: shown hands, and their own once they looked."""
    hand = state.hand
    if hand is None:
        return set()
    out = {c for shown in hand.shown.values() for c in shown.cards}
    for p in hand.players:
        if viewer is not None and p.user_id == viewer and p.looked and p.cards is not None:
            out |= set(p.cards)
    return out


def check_view(state: TableState, viewer: int | None, secrets: set[str]) -> dict[str, Any]:
    """The view shows a player's cards only to themselves after their look, or after a
    showdown that included them; no card, score or seed anywhere else; no unrevealed seed."""
    v = view(state, viewer, 1)
    check_view_json(state, viewer, secrets, v)
    return v


def check_view_json(
    state: TableState, viewer: int | None, secrets: set[str], v: dict[str, Any]
) -> None:
    """`v`: the view `viewer` was sent of `state` (see `check_view`)."""
    hand = state.hand
    scan = Scan(v)
    scan.check_no_secret(secrets)
    for entry in v["seats"]:
        if entry["cards"] is None:
            continue
        assert hand is not None
        p = hand.player(entry["seat"])
        assert p is not None and p.user_id == entry["user_id"]
        shown = hand.shown.get(p.seat)
        if shown is not None:
            assert tuple(entry["cards"]) == shown.cards
        else:
            assert viewer == p.user_id and p.looked, (viewer, entry)
            assert tuple(entry["cards"]) == p.cards
    assert scan.cards() <= visible_cards(state, viewer), (viewer, v)
    assert not cards_named(v["hand"] or {}), v["hand"]
    scan.check_derived(state.settings)
    scan.check_no_deck_order()
