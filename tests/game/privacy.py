"""Checks that a projection shows nothing its viewer may not see, judged by content.

The checks do not trust the projection code's field handling: they scan every string in the
output for anything that looks like a card or a seed and ask whether the viewer may know it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import msgspec

from events import table as ev
from service.game.state import TableState
from service.game.view import project_event, public_data_json, view

_CARD = re.compile(r"^[789TJQKA][cdhs]$")


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings(k)
            yield from strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from strings(v)


def check_projected_event(event: ev.TableEvent, viewer: int | None, secrets: set[str]) -> None:
    """`secrets`: seeds not yet revealed (hex), including those drawn in advance for a deal
    still to come (`seed_drawn`). Cards may appear only in a showdown, or in the viewer's own
    `looked` event; a seed only in the settlement of the hand it dealt (never the next
    hand's, drawn by that same settlement)."""
    projected = project_event(event, viewer)
    shared = public_data_json(event)
    if shared is not None:  # the encoding every viewer shares must be this viewer's too
        assert msgspec.json.decode(shared) == projected["data"], (viewer, projected)
    found = list(strings(projected["data"]))
    cards = [s for s in found if _CARD.match(s)]
    if cards:
        own_look = isinstance(event, ev.Looked) and viewer == event.user_id
        assert own_look or isinstance(event, ev.ShowdownHappened), (viewer, projected)
    revealed = {s.seed for s in event.seeds} if isinstance(event, ev.HandSettled) else set()
    leaked = secrets.difference(revealed).intersection(found)
    assert not leaked, (viewer, projected)


def check_view(state: TableState, viewer: int | None, secrets: set[str]) -> dict[str, Any]:
    """The view shows a player's cards only to themselves after their look, or after a
    showdown that included them; and no unrevealed seed."""
    v = view(state, viewer, 1)
    hand = state.hand
    assert not secrets.intersection(strings(v)), v
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
    for s in strings(v["hand"] or {}):
        assert not _CARD.match(s), v["hand"]
    return v
