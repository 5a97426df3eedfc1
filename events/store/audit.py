"""The store's own audit of a stream (`verify`): the hash chain holds from the first event to
the head, and no event was removed from the end.

The chain alone cannot see the second: removing the newest events leaves a valid, shorter
chain. Two records outside the chain still remember them: the stream's own counters (XDEL
cannot lower `last-generated-id` or `entries-added`) and the action_id index (every command
the service appends carries an action_id whose recorded version must exist).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from events.store.base import ChainBroken, StoredEvent
from events.store.chain import V1, ZERO_HASH, find_break
from events.store.commands import Commands
from events.store.entries import version_of
from events.store.keys import check_stream, keys_for

Read = Callable[[str, int, int], Awaitable[list[StoredEvent]]]


async def verify(redis: Commands, read: Read, stream: str, page: int) -> int:
    """The head version of `stream` once its whole chain checked out, `page` events a read;
    ChainBroken at the first version that does not."""
    check_stream(stream)
    last, head, floor = 0, ZERO_HASH, V1
    while True:
        batch = await read(stream, last, page)
        broken = find_break(batch, after=last, prev_hash=head, floor=floor)
        if broken is not None:
            raise ChainBroken(stream, broken[0], broken[1])
        if batch:
            last, head, floor = batch[-1].version, batch[-1].hash, batch[-1].chain
        if len(batch) < page:
            await check_not_truncated(redis, stream, last)
            return last


async def check_not_truncated(redis: Commands, stream: str, last: int) -> None:
    """ChainBroken if the stream's counters or its action_ids know of an event after `last`."""
    keys = keys_for(stream)
    client = redis.client
    if last:
        info = await redis.read(client.xinfo_stream, keys.events)
        generated = version_of(info["last-generated-id"])
        added = int(info.get("entries-added", last))
        if generated > last or added > last:
            raise ChainBroken(
                stream, last + 1, f"events after version {last} were removed from the stream"
            )
    recorded = await redis.read(client.hvals, keys.actions)
    highest = max((int(v) for v in recorded), default=0)
    if highest > last:
        raise ChainBroken(stream, last + 1, f"an action recorded at version {highest} is missing")
