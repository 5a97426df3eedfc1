"""The event store on Redis Streams (one server, Redis Cluster, or fakeredis when embedded).

One class serves every backend: the check-and-append runs in the Redis Function library in
`functions.lua`, so the embedded store (fakeredis + lupa) executes the very same Lua as
production. Each stream is `svara:{<stream>}:events` with entry ids `<version>-0`, so a
version is an entry id and "after N" is a direct XRANGE/XREAD position.

Chain hashes are computed here (Lua has no sha256) from the head hash of the version the
caller decided on; the function checks atomically that the version *and* that head hash still
match. The head hash of the last seen entry is cached per stream, so an append normally costs
one round trip; a cache miss costs one more (the function answers `rehash` with the head).

Failure model: redis-py's own retries are off. An unreachable or timed-out Redis raises
StoreUnavailable. A function call is atomic, so an append is never half-written; if the
connection dies after the command was sent its outcome is unknown, and retrying with the same
action_id is always safe (it returns `duplicate` if the first attempt landed).

This class is the façade every caller imports; each idea lives in its own module beside it:
how a command reaches Redis (`commands`), what a failure means (`connection`), the indexes
and marks (`indexes`), snapshots (`snapshots`), the chain and truncation audit (`audit`),
live reading (`hub`, `follow`). Appends and reads, with the head-hash cache, stay here.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable, Sequence
from typing import Any

import redis.exceptions as rexc
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from events.store import audit, snapshots
from events.store.base import (
    AppendResult,
    ChainBroken,
    IndexOp,
    Snapshot,
    StoredEvent,
    StoreFull,
    StoreUnavailable,
)
from events.store.chain import ZERO_HASH, at_text, chain
from events.store.commands import CLUSTER_SETTLE, FN_APPEND, LIBRARY_CODE, TAG, Commands
from events.store.connection import Health, Probe, Reset
from events.store.entries import raw, to_event, to_events
from events.store.follow import Follow, Read
from events.store.hub import Connect, Hub
from events.store.indexes import Indexes
from events.store.keys import keys_for, stream_of
from events.store.pipe import Pipe

# Re-exported: tests and tools import the library's code and tag from here.
__all__ = ["LIBRARY_CODE", "PAGE", "TAG", "RedisEventStore"]

PAGE = 5000  # entries per XRANGE: big enough for speed, small enough not to stall Redis
_HEAD_CACHE_LIMIT = 50_000
_UNKNOWN_HASH = "?"  # never equals a stored hash: makes the function answer `rehash`


def _glob_escape(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


class RedisEventStore:
    """EventStore on a redis-py asyncio client (plain, cluster or fakeredis)."""

    def __init__(
        self,
        client: Redis | RedisCluster,
        *,
        connect_reader: Connect,
        reader_group: Callable[[str], Hashable] = lambda _key: 0,
        block_ms: int = 5000,
        queue_size: int = 1024,
        on_close: Callable[[], Awaitable[None]] | None = None,
        connect_pipe: Callable[[], Awaitable[Redis]] | None = None,
        pipe_timeout: float = 5.0,
        cluster: bool = False,
        max_commands: int | None = None,
        command_wait: float = 5.0,
        probe: Probe | None = None,
        pool_resets: tuple[Reset, ...] = (),
    ) -> None:
        self._client = client
        self._cluster = cluster or isinstance(client, RedisCluster)
        self._pipe = (
            Pipe(connect_pipe, timeout=pipe_timeout, on_stall=lambda: self.health.timed_out())
            if connect_pipe else None
        )
        client.set_response_callback("XRANGE", raw)
        client.set_response_callback("XREVRANGE", raw)
        self._hub = Hub(connect_reader, reader_group, block_ms=block_ms, queue_size=queue_size,
                        reroute=self._follow_moved_slot if self._cluster else None)
        # Full and stalled Redis (`events.store.connection`); with a `probe`, a stall drops
        # the stuck connections of the pool, the pipe and the live readers.
        pipe_reset = (self._pipe.drop_stalled,) if self._pipe is not None else ()
        self.health = Health(probe, (*pool_resets, *pipe_reset, self._hub.drop_stalled))
        self._redis = Commands(
            client,
            self.health,
            pipe=self._pipe,
            cluster=self._cluster,
            max_commands=max_commands,
            command_wait=command_wait,
        )
        self._indexes = Indexes(self._redis, sharded=cluster)
        self._heads: dict[str, tuple[int, str]] = {}
        self._on_close = on_close

    async def _follow_moved_slot(self, key: str) -> None:
        """A live reader was answered MOVED: one keyed read through the cluster client follows
        the redirection, which updates the slot map the reader's next connection comes from."""
        with contextlib.suppress(StoreUnavailable, rexc.RedisError):  # then the reader backs off
            await self._redis.read(self._client.exists, key)

    # -- appending ---------------------------------------------------------------------------

    async def append(
        self,
        stream: str,
        events: Sequence[bytes],
        *,
        expected_version: int,
        action_id: str | None = None,
        at: float | None = None,
        index: Sequence[IndexOp] = (),
    ) -> AppendResult:
        keys = keys_for(stream)
        if isinstance(expected_version, bool) or not isinstance(expected_version, int):
            raise TypeError("expected_version must be an int")
        if expected_version < 0:
            raise ValueError("expected_version must be >= 0")
        if isinstance(events, (bytes, bytearray, memoryview)):
            raise TypeError("events must be a sequence of bytes objects, not one bytes object")
        datas = [bytes(e) for e in events]
        if not datas:
            raise ValueError("append needs at least one event")
        if action_id is not None and (not isinstance(action_id, str) or not action_id):
            raise ValueError("action_id must be a non-empty string")
        stamp = at_text(time.time() if at is None else at)
        fkeys = [keys.events, keys.actions]
        tail: list[Any] = []
        if index:
            fkeys, tail = self._indexes.args(stream, fkeys, index)

        cached = self._heads.get(stream)
        if expected_version == 0:
            prev = ZERO_HASH
        elif cached is not None and cached[0] == expected_version:
            prev = cached[1]
        else:
            prev = _UNKNOWN_HASH
        for _ in range(3):
            hashes = chain(prev, datas, stamp) if prev != _UNKNOWN_HASH else [""] * len(datas)
            args: list[Any] = [expected_version, prev, action_id or "", stamp, len(datas)]
            for data, h in zip(datas, hashes, strict=True):
                args += (data, h)
            if tail:
                args += tail
            try:
                reply = await self._redis.fcall(FN_APPEND, fkeys, args)
            except StoreUnavailable as exc:
                # On a Cluster a failover closes the old primary's connections: the client
                # reads the slot map again and one more try reaches the new primary. Safe with
                # an action_id (a first attempt that landed answers `duplicate`); not after a
                # timeout (a second wait would only double it). One server: the caller retries.
                if (not self._cluster or action_id is None or isinstance(exc, StoreFull)
                        or isinstance(exc.__cause__, TimeoutError | rexc.TimeoutError)):
                    raise
                await asyncio.sleep(CLUSTER_SETTLE)
                reply = await self._redis.fcall(FN_APPEND, fkeys, args)
            status = reply[0].decode()
            version = int(reply[1])
            if status == "appended":
                self._remember(stream, version, hashes[-1])
                return AppendResult("appended", version, tuple(hashes))
            if status == "duplicate":
                return AppendResult("duplicate", version)
            head_hash = reply[2].decode(errors="replace")
            self._remember(stream, version, head_hash)
            if status == "conflict":
                return AppendResult("conflict", version)
            # rehash: the version is right but we chained from an unknown/stale head hash.
            try:
                bytes.fromhex(head_hash)
            except ValueError:
                raise ChainBroken(stream, version, "stored head hash is not hex") from None
            prev = head_hash
        raise ChainBroken(stream, expected_version, "head hash kept changing under the append")

    async def find_action(self, stream: str, action_id: str) -> int | None:
        keys = keys_for(stream)
        value = await self._redis.read(self._client.hget, keys.actions, action_id)
        return int(value) if value is not None else None

    # -- indexes beside the streams (`events.store.indexes`) ------------------------------

    def indexable(self, stream: str) -> bool:
        return self._indexes.indexable(stream)

    async def set_index(
        self, stream: str, *, expected_version: int, changes: Sequence[IndexOp]
    ) -> bool:
        if not changes:
            return await self.version(stream) == expected_version
        return await self._indexes.set(stream, expected_version, changes)

    async def index_due(
        self, index: str, upto: float, limit: int = 1000
    ) -> list[tuple[str, float]]:
        return await self._indexes.due(index, upto, limit)

    async def drop_stream(
        self, stream: str, *, expected_version: int, indexes: Sequence[str] = ()
    ) -> bool:
        dropped = await self._indexes.drop(stream, expected_version, indexes)
        if dropped:
            self._heads.pop(stream, None)
        return dropped

    def stream_keys(self, stream: str, indexes: Sequence[str] = ()) -> list[str]:
        """The Redis keys `drop_stream(stream, indexes=...)` deletes (to measure them)."""
        return self._indexes.keys_of(stream, indexes)

    async def index_page(
        self, index: str, after: str = "", limit: int = 50
    ) -> tuple[list[tuple[str, bytes | None]], str | None]:
        return await self._indexes.page(index, after, limit)

    async def mark(self, index: str, member: str, score: float) -> None:
        await self._indexes.mark(index, member, score)

    async def unmark(self, index: str, member: str) -> None:
        await self._indexes.unmark(index, member)

    async def marked(
        self, index: str, upto: float = float("inf"), limit: int = 10000
    ) -> list[tuple[str, float]]:
        return await self._indexes.marked(index, upto, limit)

    async def stream_names(self, prefix: str) -> AsyncIterator[str]:
        pattern = "svara:{" + _glob_escape(prefix) + "*}:events"
        async with self._redis.slot():
            with self.health.errors():
                async for key in self._client.scan_iter(match=pattern, count=1000):
                    yield stream_of(key.decode() if isinstance(key, bytes) else key)

    # -- reading -----------------------------------------------------------------------------

    async def read(
        self, stream: str, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        keys = keys_for(stream)
        if after < 0:
            raise ValueError("after must be >= 0")
        if limit is not None and limit <= 0:
            return []
        out: list[StoredEvent] = []
        start = after
        while True:
            count = PAGE if limit is None else min(PAGE, limit - len(out))
            entries = await self._redis.read(
                self._client.execute_command,
                "XRANGE",
                keys.events,
                f"{start + 1}-0",
                "+",
                "COUNT",
                count,
            )
            batch = to_events(entries)
            out += batch
            if len(batch) < count or (limit is not None and len(out) >= limit):
                break
            start = batch[-1].version
        if out:
            self._remember(stream, out[-1].version, out[-1].hash)
        return out

    async def version(self, stream: str) -> int:
        keys = keys_for(stream)
        entries = await self._redis.read(
            self._client.execute_command, "XREVRANGE", keys.events, "+", "-", "COUNT", 1
        )
        if not entries:
            return 0
        last = to_event(entries[0])
        self._remember(stream, last.version, last.hash)
        return last.version

    async def subscribe(self, stream: str, after: int) -> AsyncIterator[StoredEvent]:
        """Every event after `after`, then live ones (`subscribe_batches`, one at a time)."""
        follow = self.subscribe_batches(stream, after)
        try:
            async for batch in follow:
                for event in batch:
                    yield event
        finally:
            follow.close()

    def subscribe_batches(self, stream: str, after: int) -> Follow:
        """Catch up with XRANGE pages, then hand over to the process's XREAD reader; each item
        is a non-empty list of consecutive events (a page, or all the reader delivered since
        the consumer last asked), so a consumer pays one hop per read, not per event. See
        `events.store.follow` for the hand-over and for `skip_to`."""
        return Follow(self.read, self._hub, stream, keys_for(stream).events, after, PAGE)

    def follow_key(self, key: str, read: Read, after: int) -> Follow:
        """`subscribe_batches` for a stream beside the log whose entry ids are `<n>-0` too
        (a table's chat): `read(key, after, count)` catches up, the same XREAD reader follows."""
        return Follow(read, self._hub, key, key, after, PAGE)

    # -- snapshots (`events.store.snapshots`) and audit (`events.store.audit`) ------------

    async def save_snapshot(self, stream: str, version: int, data: bytes) -> None:
        await snapshots.save_snapshot(self._redis, stream, version, data)

    async def load_snapshot(self, stream: str) -> Snapshot | None:
        """The cached snapshot, or None if there is none or its record is malformed."""
        return await snapshots.load_snapshot(self._redis, stream)

    async def verify(self, stream: str) -> int:
        return await audit.verify(self._redis, self.read, stream, PAGE)

    async def head_hash(self, stream: str) -> tuple[int, str]:
        """(version, chain hash) of the stream's head; (0, ZERO_HASH) when empty."""
        await self.version(stream)
        return self._heads.get(stream, (0, ZERO_HASH))


    # -- lifecycle ---------------------------------------------------------------------------

    async def load_functions(self) -> None:
        """Load the function library (see `Commands.load_functions`)."""
        await self._redis.load_functions()

    async def ping(self) -> bool:
        try:
            async with self._redis.slot():
                with self.health.errors():
                    return bool(await self._client.ping())
        except StoreUnavailable:
            return False

    async def close(self) -> None:
        await self.health.close()
        await self._hub.close()
        if self._pipe is not None:
            await self._pipe.close()
        with contextlib.suppress(Exception):
            await self._client.aclose()
        if self._on_close is not None:
            await self._on_close()

    def _remember(self, stream: str, version: int, hash_: str) -> None:
        if len(self._heads) >= _HEAD_CACHE_LIMIT and stream not in self._heads:
            self._heads.clear()
        self._heads[stream] = (version, hash_)

    def command_slot(self) -> contextlib.AbstractAsyncContextManager[None]:
        """A place among the commands in flight on this store's client, for whoever else
        sends commands on it (the key-value store): the Cluster's node pools fail at once
        when they run out of connections instead of waiting for one."""
        return self._redis.slot()

    # For tests and tools (e.g. tampering, benchmarks): the underlying client.
    @property
    def client(self) -> Redis | RedisCluster:
        return self._client
