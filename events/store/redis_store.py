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
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable, Sequence
from importlib.resources import files
from typing import Any, TypeVar

import redis.exceptions as rexc
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from events.store.base import (
    AppendResult,
    ChainBroken,
    IndexOp,
    Snapshot,
    StoredEvent,
    StoreFull,
    StoreUnavailable,
)
from events.store.chain import V1, ZERO_HASH, at_text, chain, find_break
from events.store.connection import (
    CLUSTER_RACE,
    TIMEOUT_ERRORS,
    UNAVAILABLE_ERRORS,
    Health,
    Probe,
    Reset,
    reset_under_us,
)
from events.store.entries import datas_of, raw, to_event, to_events, version_of
from events.store.follow import Follow
from events.store.gcpause import gc_paused
from events.store.hub import Connect, Hub
from events.store.keys import (
    SINGLE_SHARD_TAG,
    check_index,
    check_stream,
    cluster_shards,
    index_keys,
    keys_for,
    marks_key,
    stream_of,
    stream_slot,
)
from events.store.pipe import Pipe, pack_args

_TEMPLATE = files("events.store").joinpath("functions.lua").read_text()
TAG = hashlib.sha1(_TEMPLATE.encode()).hexdigest()[:12]
LIBRARY_CODE = _TEMPLATE.replace("@TAG@", TAG)
FN_APPEND = f"svara_append_{TAG}"
FN_SNAPSHOT = f"svara_snapshot_{TAG}"
FN_INDEX = f"svara_index_{TAG}"

PAGE = 5000  # entries per XRANGE: big enough for speed, small enough not to stall Redis
FIRST_PAGE = 500  # read_pages: a small first page, so folding starts (and overlaps) sooner
_HEAD_CACHE_LIMIT = 50_000
CLUSTER_SETTLE = 0.1  # seconds between tries on a Cluster whose connection dropped
_UNKNOWN_HASH = "?"  # never equals a stored hash: makes the function answer `rehash`

T = TypeVar("T")


def _score(value: float | None) -> str:
    """A sorted-set score as Redis reads it ('' removes, see functions.lua)."""
    if value is None:
        return ""
    number = float(value)
    if number != number:
        raise ValueError("an index score cannot be NaN")
    return repr(number)


def _glob_escape(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


def _discard(pending: asyncio.Future[Any]) -> None:
    """Drop a prefetch nobody will read (the consumer stopped early or failed)."""
    if pending.done():
        if not pending.cancelled():
            pending.exception()  # retrieved: no "exception was never retrieved" warning
    else:
        pending.cancel()


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
        # Index shards: slot -> shard tag on a Cluster; one shard (slot None) elsewhere.
        self._cluster = cluster or isinstance(client, RedisCluster)
        self._shards: dict[int | None, str] = {None: SINGLE_SHARD_TAG}
        if cluster:
            self._shards = {slot: tag for slot, tag in cluster_shards().items()}
        # A client whose pool cannot wait for a free connection (the Cluster's: it fails at
        # once with "Too many connections") gets a gate: at most `max_commands` commands in
        # flight, the rest wait up to `command_wait` seconds (a busy store is not a down one).
        self._gate = asyncio.Semaphore(max_commands) if max_commands else None
        self._command_wait = command_wait
        # Function calls (appends, snapshots) over one pipelined connection when given one
        # (a single server); otherwise through the client's pool (cluster, embedded).
        self._pipe = (
            Pipe(connect_pipe, timeout=pipe_timeout, on_stall=lambda: self.health.timed_out())
            if connect_pipe else None
        )
        self._prefixes: dict[tuple[str, ...], bytes] = {}  # "FCALL name n keys..." packed
        client.set_response_callback("XRANGE", raw)
        client.set_response_callback("XREVRANGE", raw)
        self._hub = Hub(connect_reader, reader_group, block_ms=block_ms, queue_size=queue_size)
        # Full and stalled Redis (`events.store.connection`); with a `probe`, a stall drops
        # the stuck connections of the pool, the pipe and the live readers.
        pipe_reset = (self._pipe.drop_stalled,) if self._pipe is not None else ()
        self.health = Health(probe, (*pool_resets, *pipe_reset, self._hub.drop_stalled))
        self._heads: dict[str, tuple[int, str]] = {}
        self._loaded = False
        self._on_close = on_close

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
            fkeys, tail = self._index_args(stream, fkeys, index)

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
                reply = await self._fcall(FN_APPEND, fkeys, args)
            except StoreUnavailable as exc:
                # On a Cluster a failover closes the old primary's connections: the client
                # reads the slot map again and one more try reaches the new primary. Safe with
                # an action_id (a first attempt that landed answers `duplicate`); not after a
                # timeout (a second wait would only double it). One server: the caller retries.
                if (not self._cluster or action_id is None or isinstance(exc, StoreFull)
                        or isinstance(exc.__cause__, TimeoutError | rexc.TimeoutError)):
                    raise
                await asyncio.sleep(CLUSTER_SETTLE)
                reply = await self._fcall(FN_APPEND, fkeys, args)
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
        value = await self._read_op(self._client.hget, keys.actions, action_id)
        return int(value) if value is not None else None

    # -- indexes beside the streams ----------------------------------------------------------

    def indexable(self, stream: str) -> bool:
        return not self._cluster or stream_slot(stream) in self._shards

    def _shard_of(self, stream: str) -> str:
        if not self._cluster:
            return SINGLE_SHARD_TAG
        tag = self._shards.get(stream_slot(stream))
        if tag is None:
            raise ValueError(
                f"{stream!r} cannot carry index entries on this Cluster: its slot holds no "
                "index shard (name it so that `indexable` is true)"
            )
        return tag

    def _index_args(
        self, stream: str, keys: list[str], changes: Sequence[IndexOp]
    ) -> tuple[list[str], list[Any]]:
        """The function's KEYS and trailing ARGV for `changes` to `stream`'s index entries."""
        tag = SINGLE_SHARD_TAG if not self._cluster else self._shard_of(stream)
        keys = list(keys)
        args: list[Any] = []
        for change in changes:
            keys += index_keys(tag, change.index)
            score = change.score
            args += (change.member, "" if score is None else repr(float(score)), change.value)
        return keys, args

    async def set_index(
        self, stream: str, *, expected_version: int, changes: Sequence[IndexOp]
    ) -> bool:
        if not changes:
            return await self.version(stream) == expected_version
        keys, args = self._index_args(stream, [keys_for(stream).events], changes)
        reply = await self._fcall(FN_INDEX, keys, [expected_version, *args])
        return int(reply) == 1

    async def index_due(
        self, index: str, upto: float, limit: int = 1000
    ) -> list[tuple[str, float]]:
        check_index(index)
        bound = _score(upto)

        def query(pipe: Any, tag: str) -> None:
            pipe.zrangebyscore(index_keys(tag, index)[0], "-inf", bound, 0, limit, True)

        replies = await self._per_shard(query)
        found = [(m.decode(), float(s)) for reply in replies for m, s in reply]
        found.sort(key=lambda item: (item[1], item[0]))
        return found[:limit]

    async def index_page(
        self, index: str, after: str = "", limit: int = 50
    ) -> tuple[list[tuple[str, bytes | None]], str | None]:
        check_index(index)
        if limit < 1:
            raise ValueError("limit must be at least 1")
        start = b"(" + after.encode() if after else b"-"

        def query(pipe: Any, tag: str) -> None:
            pipe.zrangebylex(index_keys(tag, index)[0], start, b"+", 0, limit + 1)

        tags = list(self._shards.values())
        replies = await self._per_shard(query)
        found = sorted((m, tag) for tag, reply in zip(tags, replies, strict=True) for m in reply)
        page, more = found[:limit], len(found) > limit
        by_shard: dict[str, list[bytes]] = {}
        for member, tag in page:
            by_shard.setdefault(tag, []).append(member)
        values: dict[bytes, bytes | None] = {}
        if by_shard:
            async with self._connection_slot():
                pipe = self._client.pipeline(transaction=False)
                for tag, members in by_shard.items():
                    pipe.hmget(index_keys(tag, index)[1], members)
                with self.health.errors():
                    got = await pipe.execute()
            for members, vals in zip(by_shard.values(), got, strict=True):
                values.update(zip(members, vals, strict=True))
        out = [(m.decode(), values.get(m)) for m, _ in page]
        return out, (out[-1][0] if more and out else None)

    async def _per_shard(self, query: Callable[[Any, str], None]) -> list[Any]:
        """One command per index shard, in one pipeline (on a Cluster: one round trip per
        node); replies in the order of the shards."""
        async with self._connection_slot():
            pipe = self._client.pipeline(transaction=False)
            for tag in self._shards.values():
                query(pipe, tag)
            try:
                with self.health.errors():
                    return list(await pipe.execute())
            except StoreUnavailable:
                pass
            pipe = self._client.pipeline(transaction=False)  # reads: retried once
            for tag in self._shards.values():
                query(pipe, tag)
            with self.health.errors():
                return list(await pipe.execute())

    async def mark(self, index: str, member: str, score: float) -> None:
        key = marks_key(index)
        async with self._connection_slot():
            with self.health.errors():
                await self._client.zadd(key, {member: _score(score)})

    async def unmark(self, index: str, member: str) -> None:
        key = marks_key(index)
        async with self._connection_slot():
            with self.health.errors():
                await self._client.zrem(key, member)

    async def marked(
        self, index: str, upto: float = float("inf"), limit: int = 10000
    ) -> list[tuple[str, float]]:
        replies: Any = await self._read_op(
            self._client.zrangebyscore, marks_key(index), "-inf", _score(upto), 0, limit, True
        )
        return [(m.decode(), float(s)) for m, s in replies]

    async def stream_names(self, prefix: str) -> AsyncIterator[str]:
        pattern = "svara:{" + _glob_escape(prefix) + "*}:events"
        async with self._connection_slot():
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
            entries = await self._read_op(
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

    async def read_pages(
        self, stream: str, after: int = 0
    ) -> AsyncIterator[tuple[int, list[bytes]]]:
        """Replay's fast path: the event bytes after `after`, one page at a time, as
        (version of the page's last event, [data, ...]); what `read` returns, minus metadata.

        Why it exists: a full replay's time goes to Redis producing the reply, to parsing it
        and to folding. This skips building a StoredEvent per entry, and asks for the next page
        before handing this one over, so Redis (another core) produces it while the caller
        folds. Versions are contiguous (guarantee 1), so the caller needs only the last one.
        """
        key = keys_for(stream).events
        if after < 0:
            raise ValueError("after must be >= 0")
        count = FIRST_PAGE
        pending: asyncio.Future[Any] | None = self._xrange_soon(key, after, count)
        try:
            while pending is not None:
                with gc_paused():  # the reply is parsed while we wait for it
                    entries = await pending
                pending = None
                if not entries:
                    return
                last = version_of(entries[-1][0])
                if len(entries) == count:
                    count = PAGE
                    pending = self._xrange_soon(key, last, count)
                    with gc_paused():
                        await asyncio.sleep(0)  # let the request reach the wire first
                datas = datas_of(entries)
                del entries  # the nested lists go now, not after the caller's fold
                yield last, datas
        finally:
            if pending is not None:
                _discard(pending)

    def _xrange_soon(self, key: str, after: int, count: int) -> asyncio.Future[Any]:
        xrange = self._client.execute_command
        return asyncio.ensure_future(
            self._read_op(xrange, "XRANGE", key, f"{after + 1}-0", "+", "COUNT", count)
        )

    async def version(self, stream: str) -> int:
        keys = keys_for(stream)
        entries = await self._read_op(
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

    # -- snapshots ---------------------------------------------------------------------------

    async def save_snapshot(self, stream: str, version: int, data: bytes) -> None:
        keys = keys_for(stream)
        if version < 0:
            raise ValueError("snapshot version must be >= 0")
        try:
            await self._fcall(FN_SNAPSHOT, [keys.events, keys.snapshot], [version, bytes(data)])
        except rexc.ResponseError as exc:
            raise ValueError(str(exc)) from exc

    async def load_snapshot(self, stream: str) -> Snapshot | None:
        """The cached snapshot, or None if there is none or its record is malformed."""
        keys = keys_for(stream)
        fields = await self._read_op(self._client.hmget, keys.snapshot, ["v", "d"])
        version, data = fields
        if version is None or data is None:
            return None
        try:
            return Snapshot(version=int(version), data=data if isinstance(data, bytes) else b"")
        except ValueError:
            return None

    # -- audit -------------------------------------------------------------------------------

    async def verify(self, stream: str) -> int:
        check_stream(stream)
        last, head, floor = 0, ZERO_HASH, V1
        while True:
            batch = await self.read(stream, last, PAGE)
            broken = find_break(batch, after=last, prev_hash=head, floor=floor)
            if broken is not None:
                raise ChainBroken(stream, broken[0], broken[1])
            if batch:
                last, head, floor = batch[-1].version, batch[-1].hash, batch[-1].chain
            if len(batch) < PAGE:
                await self._check_not_truncated(stream, last)
                return last

    async def _check_not_truncated(self, stream: str, last: int) -> None:
        """Removing the newest events leaves a valid, shorter chain. Two records outside the
        chain still remember them: the stream's own counters (XDEL cannot lower
        `last-generated-id` or `entries-added`) and the action_id index (every command the
        service appends carries an action_id whose recorded version must exist)."""
        keys = keys_for(stream)
        if last:
            info = await self._read_op(self._client.xinfo_stream, keys.events)
            generated = version_of(info["last-generated-id"])
            added = int(info.get("entries-added", last))
            if generated > last or added > last:
                raise ChainBroken(
                    stream, last + 1, f"events after version {last} were removed from the stream"
                )
        recorded = await self._read_op(self._client.hvals, keys.actions)
        highest = max((int(v) for v in recorded), default=0)
        if highest > last:
            raise ChainBroken(
                stream, last + 1, f"an action recorded at version {highest} is missing"
            )

    async def head_hash(self, stream: str) -> tuple[int, str]:
        """(version, chain hash) of the stream's head; (0, ZERO_HASH) when empty."""
        await self.version(stream)
        return self._heads.get(stream, (0, ZERO_HASH))

    # -- lifecycle ---------------------------------------------------------------------------

    async def ping(self) -> bool:
        try:
            async with self._connection_slot():
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

    # -- internals ---------------------------------------------------------------------------

    def _remember(self, stream: str, version: int, hash_: str) -> None:
        if len(self._heads) >= _HEAD_CACHE_LIMIT and stream not in self._heads:
            self._heads.clear()
        self._heads[stream] = (version, hash_)

    async def load_functions(self) -> None:
        """Load the function library (REPLACE: the same code under the same name is harmless;
        on a cluster redis-py sends it to every primary)."""
        async with self._connection_slot():
            with self.health.errors():
                await self._client.function_load(LIBRARY_CODE, replace=True)
        self._loaded = True

    async def _fcall(self, name: str, keys: list[str], args: list[Any]) -> Any:
        if not self._loaded:
            await self.load_functions()
        for attempt in (1, 2):
            try:
                if self._pipe is not None:
                    prefix = self._prefixes.get((name, *keys))
                    if prefix is None:
                        prefix = pack_args(["FCALL", name, len(keys), *keys])
                        if len(self._prefixes) > _HEAD_CACHE_LIMIT:
                            self._prefixes.clear()
                        self._prefixes[(name, *keys)] = prefix
                    count = 3 + len(keys) + len(args)
                    packed = b"*%d\r\n%b%b" % (count, prefix, pack_args(args))
                    reply = await self._pipe.call(packed)
                else:
                    async with self._connection_slot():
                        if isinstance(self._client, RedisCluster):
                            reply = await self._cluster_fcall(self._client, name, keys, args)
                        else:
                            reply = await self._client.fcall(name, len(keys), *keys, *args)
                self.health.wrote()  # Redis ran it: it is not refusing writes
                return reply
            except UNAVAILABLE_ERRORS as exc:  # health.errors(), inline: the hot path (and
                # first: some of these are ResponseErrors too)
                raise self.health.error(exc) from exc
            except rexc.OutOfMemoryError as exc:  # refused before it ran: nothing written
                raise self.health.refused_full(exc) from exc
            except rexc.ResponseError as exc:
                # FUNCTION FLUSH, a restart without persistence, a new cluster node: reload once.
                if attempt == 1 and "function not found" in str(exc).lower():
                    await self.load_functions()
                    continue
                raise
        raise AssertionError("unreachable")

    @staticmethod
    async def _cluster_fcall(
        client: RedisCluster, name: str, keys: list[str], args: list[Any]
    ) -> Any:
        """FCALL sent straight to the primary that owns the keys' slot.

        Left to itself redis-py asks a node `COMMAND GETKEYS` before every FCALL (its keys
        are "movable"): one more round trip per append, to whichever node the parser holds,
        which after a failover is the demoted primary that closes the connection (an append
        then failed with 503). `initialize()` is a no-op unless a connection error asked for
        a new slot map; a MOVED reply is still followed by redis-py."""
        await client.initialize()
        node = client.get_node_from_key(keys[0])
        try:
            return await client.execute_command("FCALL", name, len(keys), *keys, *args,
                                                target_nodes=node)
        except CLUSTER_RACE as exc:
            raise reset_under_us(exc) from exc

    async def _read_op(self, op: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Reads are idempotent: retry once on a dropped connection, then StoreUnavailable.
        On a Cluster twice, `CLUSTER_SETTLE` apart: while a failover settles the first new
        slot map may still name the old primary."""
        if self._gate is not None:
            async with self._connection_slot():
                return await self._read_retrying(op, *args)
        return await self._read_retrying(op, *args)

    async def _read_retrying(self, op: Callable[..., Awaitable[T]], *args: Any) -> T:
        for _ in range(2 if self._cluster else 1):
            try:
                return await op(*args)
            except UNAVAILABLE_ERRORS as exc:
                # One server: not after a timeout (a second wait would only double it; the
                # stall probe frees the stuck connections).
                if not self._cluster and isinstance(exc, TIMEOUT_ERRORS):
                    raise self.health.error(exc) from exc
            except CLUSTER_RACE:
                if not self._cluster:
                    raise
            if self._cluster:
                await asyncio.sleep(CLUSTER_SETTLE)
        with self.health.errors():
            try:
                return await op(*args)
            except CLUSTER_RACE as exc:
                if not self._cluster:
                    raise
                raise reset_under_us(exc) from exc

    @contextlib.asynccontextmanager
    async def _connection_slot(self) -> AsyncIterator[None]:
        """A place among the commands in flight (only where the pool cannot wait by itself):
        waiting is bounded, and running out of time says the store is busy, not down."""
        gate = self._gate
        if gate is None:
            yield
            return
        try:
            async with asyncio.timeout(self._command_wait):
                await gate.acquire()
        except TimeoutError:
            raise StoreUnavailable(
                f"event store busy: no connection free within {self._command_wait} s"
            ) from None
        try:
            yield
        finally:
            gate.release()

    # For tests and tools (e.g. tampering, benchmarks): the underlying client.
    @property
    def client(self) -> Redis | RedisCluster:
        return self._client
