"""The last few folded states of each table, by version: what lets a WebSocket frame carry the
viewer's view *at that frame's version* without reading the store.

States are immutable, so keeping several costs only what differs between them. Every state
here is the true fold of the log up to its version (from a load, an own append, or one event
folded onto the state just before it), so a hit is always correct; a miss only means "not at
hand" and the caller falls back to reading the store.
"""

from __future__ import annotations

from collections import OrderedDict

from service.game.state import TableState


class Trail:
    def __init__(self, *, depth: int = 8, tables: int = 4096) -> None:
        self.depth = depth
        self.tables = tables
        self._states: OrderedDict[str, dict[int, TableState]] = OrderedDict()

    def get(self, table_id: str, version: int) -> TableState | None:
        states = self._states.get(table_id)
        return None if states is None else states.get(version)

    def put(self, table_id: str, version: int, state: TableState) -> None:
        states = self._states.get(table_id)
        if states is None:
            states = self._states[table_id] = {}
            while len(self._states) > self.tables:
                self._states.popitem(last=False)
        else:
            self._states.move_to_end(table_id)
        states[version] = state
        if len(states) > 2 * self.depth:
            # Keep at least the newest `depth` versions, pruning in bulk (versions may arrive
            # out of order: drop the smallest ones).
            for old in sorted(states)[: -self.depth]:
                del states[old]

    def drop(self, table_id: str) -> None:
        self._states.pop(table_id, None)
