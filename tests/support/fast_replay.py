"""Reference loaders for the store benchmark and the store tests: through the snapshot
(`load_state`) and the fast path (`read_pages`). The service loads tables its own way
(`service/tables/repo.py`); these are measured and tested beside it, not part of the store.

Snapshots are only a cache (docs/ARCHITECTURE.md "The event log: guarantees", 10): whatever
goes wrong with one -- missing, from an older code version, corrupt -- the answer is the same
state, just computed by a longer replay. That is why a failing `decode_snapshot` is swallowed
in `load_state`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

from events.store import redis_store
from events.store.base import EventStore, StoredEvent
from events.store.entries import datas_of, version_of
from events.store.keys import keys_for
from events.store.redis_store import RedisEventStore
from tests.support.gcpause import gc_paused

S = TypeVar("S")
log = logging.getLogger(__name__)

FIRST_PAGE = 500  # read_pages: a small first page, so folding starts (and overlaps) sooner


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


async def read_pages(
    store: RedisEventStore, stream: str, after: int = 0
) -> AsyncIterator[tuple[int, list[bytes]]]:
    """Replay's fast path: the event bytes after `after`, one page at a time, as
    (version of the page's last event, [data, ...]); what `store.read` returns, minus metadata.

    Why it is faster: a full replay's time goes to Redis producing the reply, to parsing it
    and to folding. This skips building a StoredEvent per entry, and asks for the next page
    before handing this one over, so Redis (another core) produces it while the caller folds.
    Versions are contiguous (guarantee 1), so the caller needs only the last one. Pages after
    the first are `redis_store.PAGE` entries, like `store.read`'s.
    """
    key = keys_for(stream).events
    if after < 0:
        raise ValueError("after must be >= 0")
    count = FIRST_PAGE
    pending: asyncio.Future[Any] | None = _xrange_soon(store, key, after, count)
    try:
        while pending is not None:
            with gc_paused():  # the reply is parsed while we wait for it
                entries = await pending
            pending = None
            if not entries:
                return
            last = version_of(entries[-1][0])
            if len(entries) == count:
                count = redis_store.PAGE
                pending = _xrange_soon(store, key, last, count)
                with gc_paused():
                    await asyncio.sleep(0)  # let the request reach the wire first
            datas = datas_of(entries)
            del entries  # the nested lists go now, not after the caller's fold
            yield last, datas
    finally:
        if pending is not None:
            _discard(pending)


def _xrange_soon(store: RedisEventStore, key: str, after: int, count: int) -> asyncio.Future[Any]:
    # The store's client answers XRANGE raw (`events.store.entries.raw`): what datas_of reads.
    xrange = store.client.execute_command
    return asyncio.ensure_future(xrange("XRANGE", key, f"{after + 1}-0", "+", "COUNT", count))


def _discard(pending: asyncio.Future[Any]) -> None:
    """Drop a prefetch nobody will read (the consumer stopped early or failed)."""
    if pending.done():
        if not pending.cancelled():
            pending.exception()  # retrieved: no "exception was never retrieved" warning
    else:
        pending.cancel()
