"""A decision in progress: events emitted so far and the state they lead to.

Deciders emit events one at a time and read `tx.state` to decide what follows (whose turn,
showdown, settlement), so the follow-ups always agree with what `evolve` will make of them.
Events are applied lazily, when the state is next read: `decide` never pays for applying
the trailing events it only returns.
"""

from __future__ import annotations

from collections.abc import Callable

from msgspec.structs import replace

from events import table as ev
from events.table import TableEvent
from service.game.evolve import APPLY, handed_over
from service.game.state import Hand, TableState


class Tx:
    __slots__ = ("_applied", "_state", "emit", "events", "now", "seed", "settings", "table_id")

    def __init__(self, state: TableState, now: float, seed: bytes) -> None:
        self._state = state
        self.settings = state.settings  # fixed for a table's life
        self.table_id = state.table_id
        self._applied = 0
        self.now = now
        self.seed = seed
        self.events: list[TableEvent] = []
        # Emitting is appending: the list's own bound method, no Python frame per event.
        self.emit: Callable[[TableEvent], None] = self.events.append

    @property
    def state(self) -> TableState:
        events = self.events
        if self._applied != len(events):
            self._catch_up()
        return self._state

    def _catch_up(self) -> None:
        state = self._state
        events = self.events
        for event in events[self._applied :]:
            state = APPLY[type(event)](state, event)
        self._state = state
        self._applied = len(events)

    def hand_turn(self, seat: int, deadline: float, phase: ev.Phase) -> None:
        """Give `seat` the move: on the event just emitted when it can carry the turn (one
        event instead of two), else as a `TurnDeadlineSet` of its own."""
        events = self.events
        last = events[-1] if events else None
        if isinstance(last, ev.TurnHandover) and last.turn is None:
            last = replace(last, turn=seat, deadline=deadline, phase=phase)
            events[-1] = last
            if self._applied == len(events):  # already in `_state`: add just the turn
                self._state = handed_over(self._state, last)
            return
        self.emit(ev.TurnDeadlineSet(seat=seat, deadline=deadline, phase=phase))

    @property
    def hand(self) -> Hand:
        if self._applied != len(self.events):
            self._catch_up()
        hand = self._state.hand
        assert hand is not None
        return hand
