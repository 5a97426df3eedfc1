"""A decision in progress: events emitted so far and the state they lead to.

Deciders emit events one at a time and read `tx.state` to decide what follows (whose turn,
showdown, settlement), so the follow-ups always agree with what `evolve` will make of them.
"""

from __future__ import annotations

from events.table import TableEvent
from service.game.evolve import _APPLY
from service.game.state import Hand, TableState


class Tx:
    __slots__ = ("events", "now", "seed", "state")

    def __init__(self, state: TableState, now: float, seed: bytes) -> None:
        self.state = state
        self.now = now
        self.seed = seed
        self.events: list[TableEvent] = []

    def emit(self, event: TableEvent) -> None:
        self.events.append(event)
        self.state = _APPLY[type(event)](self.state, event)

    @property
    def hand(self) -> Hand:
        hand = self.state.hand
        assert hand is not None
        return hand
