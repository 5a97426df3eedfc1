"""A decision in progress: events emitted so far and the state they lead to.

Deciders emit events one at a time and read `tx.state` to decide what follows (whose turn,
showdown, settlement), so the follow-ups always agree with what `evolve` will make of them.
Events are applied lazily, when the state is next read: `decide` never pays for applying
the trailing events it only returns.
"""

from __future__ import annotations

from events.table import TableEvent
from service.game.evolve import APPLY
from service.game.state import Hand, TableState


class Tx:
    __slots__ = ("_applied", "_state", "events", "now", "seed", "settings", "table_id")

    def __init__(self, state: TableState, now: float, seed: bytes) -> None:
        self._state = state
        self.settings = state.settings  # fixed for a table's life
        self.table_id = state.table_id
        self._applied = 0
        self.now = now
        self.seed = seed
        self.events: list[TableEvent] = []

    def emit(self, event: TableEvent) -> None:
        self.events.append(event)

    @property
    def state(self) -> TableState:
        events = self.events
        if self._applied != len(events):
            state = self._state
            for event in events[self._applied :]:
                state = APPLY[type(event)](state, event)
            self._state = state
            self._applied = len(events)
        return self._state

    @property
    def hand(self) -> Hand:
        hand = self.state.hand
        assert hand is not None
        return hand
