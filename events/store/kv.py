"""A small key-value store beside the event log, for state that is *not* a fact of the game:
who has a socket open where (presence), which notification was sent once (dedup), a message
id to edit later. Everything here may expire; nothing here is ever replayed.

Kept apart from `EventStore` on purpose: the log's guarantees (versions, chain, exactly-once
appends) do not apply, and nothing that decides a table's state may read from here.

`RedisKeyValue` runs on the event store's own client (one Redis, a Cluster, or fakeredis when
embedded). Every operation touches a single key, so it works unchanged on a Cluster. Keys are
`svara:kv:<name>`; callers put their namespace into the name.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from events.store.connection import Health

PREFIX = "svara:kv:"
T = TypeVar("T")


# Add the member, drop members already expired, and let the whole key expire with its last
# member -- in one script: a read-then-expire from the client could race another add and cut
# that member's time short.
_ADD_MEMBER = """
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])
local top = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if top[2] == nil then return 0 end
if top[2] == 'inf' then
  redis.call('PERSIST', KEYS[1])
else
  redis.call('PEXPIREAT', KEYS[1], math.ceil(tonumber(top[2]) * 1000))
end
return 1
"""


class KeyValue(Protocol):
    async def claim(self, key: str, ttl: float, value: bytes = b"1") -> bool:
        """Set `key` to `value` for `ttl` seconds unless it exists: True for the one caller
        (across every process) that set it. What "do this once" is built on."""
        ...

    async def put(self, key: str, value: bytes, ttl: float | None = None) -> None:
        """Set `key` (replacing any value), expiring after `ttl` seconds (None: never)."""
        ...

    async def get(self, key: str) -> bytes | None: ...

    async def take(self, key: str) -> bytes | None:
        """Get and delete `key` atomically: of racing takers, one gets the value."""
        ...

    async def delete(self, key: str) -> None: ...

    async def add_member(
        self, key: str, member: str, until: float, *, now: float | None = None
    ) -> None:
        """Put `member` in the set `key` until the time `until` (epoch seconds; `math.inf`:
        until removed). Adding it again moves its expiry. Members expired at `now` (default:
        this machine's clock) are dropped on the way."""
        ...

    async def remove_member(self, key: str, member: str) -> None: ...

    async def change_members(
        self,
        adds: Sequence[tuple[str, str, float]],
        removes: Sequence[tuple[str, str]],
        *,
        now: float | None = None,
    ) -> None:
        """Many `add_member(key, member, until)`s, then many `remove_member(key, member)`s, in
        as few round trips as the store allows (one pipeline on a single Redis): a reconnect
        storm's presence is a few pipelines, not thousands of commands. Not atomic."""
        ...

    async def members(self, key: str, now: float) -> list[str]:
        """The members of `key` not expired at `now`, soonest expiry first."""
        ...


class RedisKeyValue:
    """`KeyValue` on a redis-py asyncio client (plain, cluster or fakeredis). An unreachable
    Redis raises `StoreUnavailable`, a full one `StoreFull`, as the event store does (with
    its `health`, the same episodes: a stall seen here probes and frees the shared pool)."""

    def __init__(
        self,
        client: Redis | RedisCluster,
        health: Health | None = None,
        slot: Callable[[], contextlib.AbstractAsyncContextManager[None]] | None = None,
    ) -> None:
        self._client: Any = client  # owned by the event store, which closes it
        self._health = health if health is not None else Health()
        # The event store's gate on the commands in flight over the shared client (see
        # `RedisEventStore.command_slot`): a storm's presence batch on a Cluster is hundreds
        # of calls at once, more than a node's pool has connections.
        self._slot = slot if slot is not None else contextlib.nullcontext
        # redis-py's RedisCluster fails commands sent concurrently before it has read the
        # slot map (AttributeError inside the client); its own initialize() is locked.
        self._ready = not isinstance(client, RedisCluster)
        # EVALSHA, loading the script on a NOSCRIPT (a restarted or failed-over Redis): the
        # script's text is not sent with every presence refresh of a reconnect storm.
        self._add_member = client.register_script(_ADD_MEMBER)

    async def _op(self, op: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        async with self._slot():
            with self._health.errors():
                if not self._ready:
                    await self._client.initialize()
                    self._ready = True
                return await op(*args, **kwargs)

    async def claim(self, key: str, ttl: float, value: bytes = b"1") -> bool:
        done = await self._op(self._client.set, PREFIX + key, value, nx=True, px=_millis(ttl))
        return bool(done)

    async def put(self, key: str, value: bytes, ttl: float | None = None) -> None:
        px = None if ttl is None else _millis(ttl)
        await self._op(self._client.set, PREFIX + key, value, px=px)

    async def get(self, key: str) -> bytes | None:
        value: bytes | None = await self._op(self._client.get, PREFIX + key)
        return value

    async def take(self, key: str) -> bytes | None:
        value: bytes | None = await self._op(self._client.getdel, PREFIX + key)
        return value

    async def delete(self, key: str) -> None:
        await self._op(self._client.delete, PREFIX + key)

    async def add_member(
        self, key: str, member: str, until: float, *, now: float | None = None
    ) -> None:
        score = "+inf" if math.isinf(until) else repr(float(until))
        at = repr(float(time.time() if now is None else now))
        await self._op(self._add_member, keys=[PREFIX + key], args=[score, member, at])

    async def remove_member(self, key: str, member: str) -> None:
        await self._op(self._client.zrem, PREFIX + key, member)

    async def change_members(
        self,
        adds: Sequence[tuple[str, str, float]],
        removes: Sequence[tuple[str, str]],
        *,
        now: float | None = None,
    ) -> None:
        if not adds and not removes:
            return
        if isinstance(self._client, RedisCluster):  # keys on many nodes: one call each
            await asyncio.gather(*(self.add_member(k, m, u, now=now) for k, m, u in adds))
            await asyncio.gather(*(self.remove_member(k, m) for k, m in removes))
            return
        at = repr(float(time.time() if now is None else now))
        pipe = self._client.pipeline(transaction=False)
        for key, member, until in adds:
            score = "+inf" if math.isinf(until) else repr(float(until))
            await self._add_member(keys=[PREFIX + key], args=[score, member, at], client=pipe)
        for key, member in removes:
            pipe.zrem(PREFIX + key, member)
        await self._op(pipe.execute)

    async def members(self, key: str, now: float) -> list[str]:
        found = await self._op(self._client.zrangebyscore, PREFIX + key, f"({now!r}", "+inf")
        return [m.decode() if isinstance(m, bytes) else str(m) for m in found]


def _millis(seconds: float) -> int:
    if not seconds > 0:
        raise ValueError(f"a time to live must be positive, not {seconds!r}")
    return max(1, math.ceil(seconds * 1000))


def key_value_of(store: object) -> KeyValue:
    """The key-value store on `store`'s own Redis client (the event store's)."""
    client = getattr(store, "client", None)
    if client is None:
        raise TypeError(f"{type(store).__name__} has no Redis client to share")
    return RedisKeyValue(client, getattr(store, "health", None),
                         getattr(store, "command_slot", None))
