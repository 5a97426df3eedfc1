"""A table's last settled hands, as the web app's hand history shows them.

Only public facts: who played (by seat and name), every showdown with its shown hands and
scores (public once shown), each svara (tied seats, fee, who joined), who was acted for by the
clock, and the result. Dealt and looked-at cards never appear here; the audit
(`/hands/{n}/audit`) is where the revealed decks are checked.

The stream is read backwards in growing windows (the newest hands are what is asked for), so a
table's age does not make the history slower: a window grows only until it holds `limit`
whole hands and the name of everyone who played them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from events.codec import decode_table_event
from events.store.base import EventStore, StoredEvent
from events.table import (
    HandSettled,
    HandStarted,
    PlayerLeft,
    PlayerSeated,
    ShowdownHappened,
    SvaraDealStarted,
    SvaraJoined,
    SvaraStarted,
    TimedOut,
)
from service.game.state import TableState
from service.tables.facade import JSON

MAX_LIMIT = 50
FIRST_WINDOW = 256  # events read at first; each further read takes four times as many

_UNKNOWN = object()  # a seat's occupant before the window began, not known from the window


def _shown(event: ShowdownHappened) -> JSON:
    hands = {
        str(seat): {"cards": list(shown.cards), "score": shown.score}
        for seat, shown in sorted(event.hands.items())
    }
    return {"deal": event.deal, "hands": hands, "capped": event.capped}


class _Hand:
    """One hand being read from its events."""

    def __init__(self, started: HandStarted, names: dict[int, Any]) -> None:
        self.number = started.number
        self.dealer = started.dealer
        self.names = {seat: names.get(seat, _UNKNOWN) for seat in started.participants}
        self.showdowns: list[JSON] = []
        self.svaras: list[JSON] = []
        self.timeouts: list[JSON] = []

    def add(self, event: object, names: dict[int, Any]) -> None:
        if isinstance(event, ShowdownHappened):
            self.showdowns.append(_shown(event))
        elif isinstance(event, SvaraStarted):
            self.svaras.append({"tied": list(event.tied), "fee": event.fee, "joined": []})
        elif isinstance(event, SvaraJoined) and self.svaras:
            self.svaras[-1]["joined"].append(event.seat)
        elif isinstance(event, SvaraDealStarted):
            for seat in event.participants:  # a svara may bring in seats not dealt before
                self.names.setdefault(seat, names.get(seat, _UNKNOWN))
        elif isinstance(event, TimedOut):
            self.timeouts.append({"seat": event.seat, "action": event.action})

    def summary(self, settled: HandSettled, at: float) -> JSON:
        return {
            "number": self.number,
            "settled_at": at,
            "dealer": self.dealer,
            "names": {
                str(seat): (None if name is _UNKNOWN else name)
                for seat, name in sorted(self.names.items())
            },
            "winners": list(settled.winners),
            "amounts": {str(seat): amount for seat, amount in sorted(settled.amounts.items())},
            "pot": settled.pot,
            "rake": settled.rake,
            "reason": settled.reason,
            "showdowns": self.showdowns,
            "svaras": self.svaras,
            "timeouts": self.timeouts,
        }


def _occupants_at_start(events: Sequence[object], state: TableState) -> dict[int, Any]:
    """Who sat where when the window began: a seat's first seating event in the window says
    it was empty (a sit-down) or held by someone seated earlier (a leave: unknown here); a
    seat the window never mentions is held by whoever holds it now."""
    first: dict[int, object] = {}
    for event in events:
        if isinstance(event, PlayerSeated | PlayerLeft):
            first.setdefault(event.seat, event)
    names: dict[int, Any] = {}
    for number, seat in enumerate(state.seats):
        event = first.get(number)
        if isinstance(event, PlayerLeft):
            names[number] = _UNKNOWN
        elif event is None and seat is not None:
            names[number] = seat.name
    return names


def _summaries(stored: Sequence[StoredEvent], state: TableState, from_start: bool) -> list[JSON]:
    """The whole hands in `stored`, newest first."""
    events = [decode_table_event(e.data) for e in stored]
    names = {} if from_start else _occupants_at_start(events, state)
    hands: list[JSON] = []
    current: _Hand | None = None
    for item, event in zip(stored, events, strict=True):
        if isinstance(event, PlayerSeated):
            names[event.seat] = event.name
        elif isinstance(event, PlayerLeft):
            names.pop(event.seat, None)
        elif isinstance(event, HandStarted):
            current = _Hand(event, names)
        elif isinstance(event, HandSettled):
            if current is not None and current.number == event.number:
                hands.append(current.summary(event, item.at))
            current = None
        elif current is not None:
            current.add(event, names)
    return hands[::-1]


async def recent_hands(
    store: EventStore, stream: str, state: TableState, version: int, limit: int
) -> list[JSON]:
    """The last `limit` settled hands at the table whose `state` is at `version`, newest
    first: a window of the newest events, widened until it holds `limit` whole hands and the
    name of everyone in them (or the table's whole record)."""
    window = FIRST_WINDOW
    while True:
        after = max(0, version - window)
        stored = [e for e in await store.read(stream, after=after) if e.version <= version]
        newest = _summaries(stored, state, from_start=after == 0)[:limit]
        named = all(name is not None for hand in newest for name in hand["names"].values())
        if after == 0 or (len(newest) == limit and named):
            return newest
        window *= 4
