"""Load a stream's folded state: snapshot (if it decodes) plus the tail after it.

Snapshots are only a cache (docs/ARCHITECTURE.md "The event log: guarantees", 10): whatever
goes wrong with one -- missing, from an older code version, corrupt -- the answer is the same
state, just computed by a longer replay. That is why a failing `decode_snapshot` is swallowed
here and nowhere else.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from events.store.base import EventStore, StoredEvent

S = TypeVar("S")
log = logging.getLogger(__name__)


async def load_state(
    store: EventStore,
    stream: str,
    *,
    initial: Callable[[], S],
    apply: Callable[[S, StoredEvent], S],
    decode_snapshot: Callable[[bytes], S],
) -> tuple[S, int]:
    """(state, version): the fold of every event of `stream`, starting from its snapshot."""
    state, version = initial(), 0
    snapshot = await store.load_snapshot(stream)
    if snapshot is not None:
        try:
            state, version = decode_snapshot(snapshot.data), snapshot.version
        except Exception:  # any decode failure: a cache miss, never an error
            log.warning("%s: snapshot at %d does not decode; replaying", stream, snapshot.version)
            state, version = initial(), 0
    for event in await store.read(stream, version):
        state = apply(state, event)
        version = event.version
    return state, version
