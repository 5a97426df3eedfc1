"""Event streams in the tests: fresh stream names, reading a subscription's first events, and
rewriting a stream behind the store's back (the tampering tests)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

from events.store.base import StoredEvent
from events.store.redis_store import RedisEventStore
from tests.support.redis import RUN_MARK


def new_stream() -> str:
    return f"table:{RUN_MARK}{uuid.uuid4().hex[:12]}"


async def take(it: AsyncIterator[StoredEvent], n: int, wait: float = 5.0) -> list[StoredEvent]:
    out: list[StoredEvent] = []

    async def run() -> None:
        async for event in it:
            out.append(event)
            if len(out) == n:
                return

    await asyncio.wait_for(run(), wait)
    return out


async def rewrite(
    store: RedisEventStore,
    stream: str,
    change: Callable[[list[StoredEvent]], list[StoredEvent]],
) -> None:
    """Tamper with a stream behind the store's back: rewrite its entries as `change` says."""
    events = change(await store.read(stream))
    key = f"svara:{{{stream}}}:events"
    client: Any = store.client
    await client.delete(key)
    for e in events:
        fields: dict[str, Any] = {"d": e.data, "at": repr(e.at), "h": e.hash}
        if e.chain != 1:
            fields["c"] = str(e.chain)
        if e.action_id:
            fields["a"] = e.action_id
        await client.xadd(key, fields, id=f"{e.version}-0")
