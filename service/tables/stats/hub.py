"""The stats projection as the service holds it: its counters, its worker and its reads."""

from __future__ import annotations

from collections.abc import Callable

from events.store.base import EventStore
from service.game.state import TableState
from service.tables.stats.counters import Counters
from service.tables.stats.projector import Projector
from service.tables.stats.reads import StatsReads
from service.tables.streams import Streams


class Stats:
    def __init__(self, store: EventStore, streams: Streams, *, clock: Callable[[], float],
                 poll_seconds: float = 5.0) -> None:  # fmt: skip
        client = getattr(store, "client", None)
        if client is None:
            raise TypeError(f"{type(store).__name__} has no Redis client for the stats")
        self.counters = Counters(client, streams.namespace, getattr(store, "health", None))
        self.projector = Projector(store, streams, self.counters, poll_seconds=poll_seconds)
        self.reads = StatsReads(self.counters, clock)

    def changed(self, table_id: str, version: int, state: TableState) -> None:
        """A repo hook: a hand just settled, so its stats are due (`Projector.nudge`)."""
        if state.hand is not None and state.hand.phase == "settled":
            self.projector.nudge()
