"""A decision in progress: events emitted so far and the state they lead to.

Deciders emit events one at a time and read `tx.state` to decide what follows (whose turn,
showdown, settlement), so the follow-ups always agree with what `evolve` will make of them.
Events are applied lazily, when the state is next read: `decide` never pays for applying
the trailing events it only returns.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from msgspec.structs import replace

from events import table as ev
from events.table import TableEvent
from service.game.evolve import APPLY
from service.game.rebuild import handed_over
from service.game.state import Hand, TableState

_NEXT_DEAL = b"svara next deal seed:"


def next_deal_seed(seed: bytes) -> bytes:
    """The seed of a command's deal after the one dealt with `seed` (see `Tx.deal_seed`)."""
    return hashlib.sha256(_NEXT_DEAL + seed).digest()


class Tx:
    __slots__ = (
        "_applied",
        "_last_seed",
        "_state",
        "emit",
        "events",
        "now",
        "pending_seed",
        "seed",
        "settings",
        "table_id",
    )

    def __init__(self, state: TableState, now: float, seed: bytes) -> None:
        self._state = state
        self.settings = state.settings  # fixed for one command (a new ante: next hand's)
        self.table_id = state.table_id
        self._applied = 0
        self.now = now
        self.seed = seed
        self._last_seed: bytes | None = None
        # a seed drawn for a later deal whose `seed_drawn` event is still to be emitted
        self.pending_seed: bytes | None = None
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

    def deal_seed(self) -> bytes:
        """The next server seed this command draws: the command's own for the first, and for
        every further one (a svara declared, dealt, shown down and tied again, then the next
        hand's seed drawn at the settlement, all in one command) one derived from the one
        before. A seed is revealed when its hand settles, so no two deals may share one: the
        later deck would be known. The derivation is domain-separated from the commitment
        (which is sha256(seed)): a plain sha256 would publish the next seed as this deal's
        commitment. (v2 draws a deal's seed one step ahead of the deal: see `flow`.)"""
        last = self._last_seed
        seed = self.seed if last is None else next_deal_seed(last)
        self._last_seed = seed
        return seed

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
