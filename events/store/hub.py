"""Live fan-out: one blocking XREAD reader per process, many bounded subscriber queues.

Streams with local subscribers are grouped by where a single XREAD can reach them: on one Redis
that is one group (one reader task, one dedicated connection); on Redis Cluster a multi-key
XREAD must stay inside one hash slot, so there is one group per slot in use. Each reader blocks
on `XREAD BLOCK` with a socket timeout above the block time; when a stream joins a group the
reader is woken with `CLIENT UNBLOCK` from a second (control) connection so it re-issues the
read with the new stream list.

The hub only delivers; gap-freeness is the subscriber's job (`RedisEventStore.subscribe`): it
drops versions it has already seen and fetches any gap itself, so the hand-over from catch-up
to live can neither lose nor duplicate an event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

import redis.exceptions as rexc
from redis.asyncio import Redis

from events.store.base import StoredEvent, StoreUnavailable, SubscriberTooSlow
from events.store.entries import raw, to_events, version_of
from events.store.packed import PackedXread

log = logging.getLogger(__name__)

# Given a key, a new client with ONE dedicated connection to the server holding that key.
Connect = Callable[[str], Awaitable["Redis"]]
# Given a key whose server answered MOVED, bring the map `Connect` chooses from up to date.
Reroute = Callable[[str], Awaitable[None]]


class Subscription:
    """One subscriber's bounded buffer of delivered events. `error` is set when it must stop.

    The reader hands over everything one XREAD brought for the stream at once, and the
    consumer takes everything buffered at once (`next_batch`): one wake-up per read, not per
    event. Versions at or below `floor` (what the consumer already holds) are dropped on
    arrival, without waking it."""

    __slots__ = ("_waiter", "error", "floor", "pending", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self.floor = 0
        self.pending: list[StoredEvent] = []
        self.error: Exception | None = None
        self._waiter: asyncio.Future[None] | None = None

    def offer_many(self, events: list[StoredEvent]) -> bool:
        if self.error is not None:
            return False
        floor = self.floor
        if events[0].version <= floor:
            if events[-1].version <= floor:
                return True
            events = [e for e in events if e.version > floor]
        if len(self.pending) + len(events) > self.size:
            self.fail(SubscriberTooSlow("subscriber queue overflowed; resume from your version"))
            return False
        self.pending += events
        self._wake()
        return True

    def fail(self, error: Exception) -> None:
        if self.error is None:
            self.error = error
        self._wake()  # a consumer blocked in next_batch() raises it

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def next_batch(self) -> list[StoredEvent]:
        """Everything delivered since the last call (at least one event), in order."""
        while True:
            if self.error is not None:
                raise self.error
            if self.pending:
                batch, self.pending = self.pending, []
                return batch
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None


class _Group:
    def __init__(self) -> None:
        self.positions: dict[str, int] = {}  # events key -> last version read by the hub
        self.subs: dict[str, set[Subscription]] = {}
        self.task: asyncio.Task[None] | None = None
        self.reader: Redis | None = None
        self.control: Redis | None = None
        self.reader_id: int | None = None
        self.opened_at = 0.0  # when the reader began to open its connection (monotonic)
        self.in_flight = False
        self.changed = False
        self.waking = False


class Hub:
    def __init__(
        self,
        connect: Connect,
        group_of: Callable[[str], Hashable],
        *,
        block_ms: int = 5000,
        queue_size: int = 1024,
        count: int = 1000,
        reroute: Reroute | None = None,
    ) -> None:
        self._connect = connect
        self._reroute = reroute
        self._group_of = group_of
        self._block_ms = block_ms
        self._queue_size = queue_size
        self._count = count
        self._groups: dict[Hashable, _Group] = {}
        self._closed = False
        self._wakers: set[asyncio.Task[None]] = set()

    def register(self, key: str, from_version: int) -> tuple[Subscription, int]:
        """Add a subscriber to stream `key`; return it and the hub's position in that stream.

        Everything the hub reads after this call (versions above the returned position) reaches
        the subscriber; if the position is past `from_version` the subscriber fills the gap.
        """
        if self._closed:
            raise StoreUnavailable("store closed")
        group = self._groups.setdefault(self._group_of(key), _Group())
        sub = Subscription(self._queue_size)
        if key not in group.positions:
            group.positions[key] = from_version
            group.changed = True
        group.subs.setdefault(key, set()).add(sub)
        if group.task is None or group.task.done():
            group.task = asyncio.create_task(self._run(group, key))
        elif group.changed and not group.waking:
            group.waking = True
            task = asyncio.create_task(self._wake(group, key))
            self._wakers.add(task)
            task.add_done_callback(self._wakers.discard)
        return sub, group.positions[key]

    def unregister(self, key: str, sub: Subscription) -> None:
        group = self._groups.get(self._group_of(key))
        if group is None:
            return
        subs = group.subs.get(key)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del group.subs[key]
                del group.positions[key]  # the reader drops it at its next read

    def skipped(self, key: str) -> None:
        """A subscriber raised its floor: once every subscriber of `key` is past the reader's
        position, the next XREAD starts after the lowest floor (Redis need not send what
        nobody here wants)."""
        group = self._groups.get(self._group_of(key))
        if group is None or key not in group.positions:
            return
        subs = group.subs.get(key)
        if subs:
            lowest = min(sub.floor for sub in subs)
            if lowest > group.positions[key]:
                group.positions[key] = lowest

    async def close(self) -> None:
        self._closed = True
        for group in self._groups.values():
            if group.task is not None:
                group.task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await group.task
            for subs in group.subs.values():
                for sub in subs:
                    sub.fail(StoreUnavailable("store closed"))
            await self._drop_connections(group)
        self._groups.clear()

    async def drop_stalled(self, before: float, busy: bool) -> int:
        """Restart the readers whose connection was opened before `before` (with `busy`: the
        store's stall probe has just seen Redis answer a fresh socket). A blocked XREAD may
        be healthy or stuck for good on a dead socket, and cannot be told apart; a restart
        costs a reconnect and resumes from the positions held, so nothing is lost."""
        if not busy or self._closed:
            return 0
        dropped = 0
        for group in self._groups.values():
            task = group.task
            if task is None or task.done() or group.opened_at >= before or not group.positions:
                continue
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
            await self._drop_connections(group)
            group.in_flight = False
            group.task = asyncio.create_task(self._run(group, next(iter(group.positions))))
            dropped += 1
        return dropped

    async def _wake(self, group: _Group, key: str) -> None:
        """Interrupt the reader's blocking XREAD so it picks up a new stream."""
        try:
            while group.changed and group.in_flight and group.reader_id is not None:
                if group.control is None:
                    group.control = await self._connect(key)
                if await group.control.execute_command("CLIENT UNBLOCK", group.reader_id):  # type: ignore[no-untyped-call]
                    return
                await asyncio.sleep(0.002)  # the XREAD was not sent yet: try again
        except Exception:  # the reader's own block timeout still picks the stream up
            log.warning("could not wake the stream reader", exc_info=True)
        finally:
            group.waking = False

    async def _run(self, group: _Group, first_key: str) -> None:
        backoff = 0.05
        moved = 0  # MOVED answers in a row
        packer = PackedXread(self._count, self._block_ms)
        while group.positions and not self._closed:
            try:
                if group.reader is None:
                    sample = next(iter(group.positions), first_key)
                    group.opened_at = time.monotonic()
                    group.reader = await self._connect(sample)
                    group.reader.set_response_callback("XREAD", raw)
                    cid = await group.reader.execute_command("CLIENT ID")  # type: ignore[no-untyped-call]
                    group.reader_id = int(cid)
                packed = packer.pack(group.positions)
                group.changed = False
                group.in_flight = True
                try:
                    reply = await self._xread(group.reader, packed)
                finally:
                    group.in_flight = False
                backoff, moved = 0.05, 0
                self._dispatch(group, reply)
            except asyncio.CancelledError:
                raise
            except (rexc.RedisError, OSError) as exc:
                # Redis restarting, a failover or a moved slot: reconnect and resume from the
                # positions we hold; nothing is lost because the stream keeps every event.
                await self._drop_connections(group)
                if isinstance(exc, rexc.MovedError) and self._reroute is not None:
                    # A failover moved the slot and this process's map still names the old
                    # primary (nothing else it sends may touch this slot): follow the
                    # redirection; backing off alone would wait for a map that never changes.
                    log.info("stream reader: MOVED %s; following it", exc)
                    await self._reroute(next(iter(group.positions), first_key))
                    moved += 1
                    if moved <= 3:  # at once, unless the cluster keeps pointing elsewhere
                        continue
                log.warning("stream reader: %s; reconnecting in %.2fs", exc, backoff)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 2.0)
        await self._drop_connections(group)
        if group.positions and not self._closed:  # a subscriber arrived while we were stopping
            group.task = asyncio.create_task(self._run(group, first_key))

    @staticmethod
    async def _xread(reader: Redis, packed: bytes) -> Any:
        """Send the pre-packed XREAD on the reader's one connection and read the raw reply
        (what execute_command with the `raw` callback returns, minus packing the arguments)."""
        conn = reader.connection
        if conn is None:  # not connected yet (CLIENT ID normally connects it first)
            await reader.initialize()
            conn = reader.connection
        assert conn is not None, "the reader must be a single_connection_client"
        await conn.send_packed_command(packed, check_health=False)
        return await conn.read_response()

    def _dispatch(self, group: _Group, reply: Any) -> None:
        # RESP2 gives [[key, entries], ...]; a RESP3-style server (fakeredis) gives a map.
        pairs = reply.items() if isinstance(reply, dict) else (reply or ())
        for raw_key, entries in pairs:
            key = raw_key.decode() if isinstance(raw_key, bytes) else str(raw_key)
            if key not in group.positions or not entries:
                continue  # unsubscribed while the read was in flight
            subs = group.subs.get(key, ())
            newest = version_of(entries[-1][0])
            if newest <= group.positions[key] or all(newest <= s.floor for s in subs):
                # Everything here is held already (the subscribers' own appends): the
                # position only moves forward.
                group.positions[key] = max(group.positions[key], newest)
                continue
            events = to_events(entries)
            group.positions[key] = max(group.positions[key], events[-1].version)
            for sub in list(subs):
                if not sub.offer_many(events):
                    self.unregister(key, sub)

    @staticmethod
    async def _drop_connections(group: _Group) -> None:
        for client in (group.reader, group.control):
            if client is not None:
                with contextlib.suppress(Exception):
                    await client.aclose()
        group.reader = group.control = None
        group.reader_id = None
