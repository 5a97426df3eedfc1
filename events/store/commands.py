"""How one of the store's commands reaches Redis: the function library, the command gate, the
pipelined connection or the pool, Cluster routing, and which commands are retried.

Retries: a read is idempotent, so it is tried once more on a dropped connection (on a
Cluster twice, `CLUSTER_SETTLE` apart); a function call (an append, a snapshot) is not retried
here, since its outcome is unknown once sent (the store retries an append only by its
action_id). What each failure maps to is `events.store.connection`'s business (`Health`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib.resources import files
from typing import Any, TypeVar

import redis.exceptions as rexc
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from events.store.base import StoreUnavailable
from events.store.connection import (
    CLUSTER_RACE,
    TIMEOUT_ERRORS,
    UNAVAILABLE_ERRORS,
    Health,
    reset_under_us,
)
from events.store.pipe import Pipe, pack_args

_TEMPLATE = files("events.store").joinpath("functions.lua").read_text()
TAG = hashlib.sha1(_TEMPLATE.encode()).hexdigest()[:12]
LIBRARY_CODE = _TEMPLATE.replace("@TAG@", TAG)
FN_APPEND = f"svara_append_{TAG}"
FN_SNAPSHOT = f"svara_snapshot_{TAG}"
FN_INDEX = f"svara_index_{TAG}"
FN_DROP = f"svara_drop_{TAG}"

CLUSTER_SETTLE = 0.1  # seconds between tries on a Cluster whose connection dropped
_PREFIX_CACHE_LIMIT = 50_000

T = TypeVar("T")


class Commands:
    """The store's way to Redis: `fcall` for the function library, `read` for the rest."""

    def __init__(
        self,
        client: Redis | RedisCluster,
        health: Health,
        *,
        pipe: Pipe | None,
        cluster: bool,
        max_commands: int | None,
        command_wait: float,
    ) -> None:
        self.client = client
        self.health = health
        self.cluster = cluster
        # Function calls (appends, snapshots) over one pipelined connection when given one
        # (a single server); otherwise through the client's pool (cluster, embedded).
        self._pipe = pipe
        # A client whose pool cannot wait for a free connection (the Cluster's: it fails at
        # once with "Too many connections") gets a gate: at most `max_commands` commands in
        # flight, the rest wait up to `command_wait` seconds (a busy store is not a down one).
        self._gate = asyncio.Semaphore(max_commands) if max_commands else None
        self._command_wait = command_wait
        self._prefixes: dict[tuple[str, ...], bytes] = {}  # "FCALL name n keys..." packed
        self._loaded = False

    async def load_functions(self) -> None:
        """Load the function library (REPLACE: the same code under the same name is harmless;
        on a cluster redis-py sends it to every primary)."""
        async with self.slot():
            with self.health.errors():
                await self.client.function_load(LIBRARY_CODE, replace=True)
        self._loaded = True

    async def fcall(self, name: str, keys: list[str], args: list[Any]) -> Any:
        if not self._loaded:
            await self.load_functions()
        for attempt in (1, 2):
            try:
                if self._pipe is not None:
                    prefix = self._prefixes.get((name, *keys))
                    if prefix is None:
                        prefix = pack_args(["FCALL", name, len(keys), *keys])
                        if len(self._prefixes) > _PREFIX_CACHE_LIMIT:
                            self._prefixes.clear()
                        self._prefixes[(name, *keys)] = prefix
                    count = 3 + len(keys) + len(args)
                    packed = b"*%d\r\n%b%b" % (count, prefix, pack_args(args))
                    reply = await self._pipe.call(packed)
                else:
                    async with self.slot():
                        if isinstance(self.client, RedisCluster):
                            reply = await _cluster_fcall(self.client, name, keys, args)
                        else:
                            reply = await self.client.fcall(name, len(keys), *keys, *args)
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

    async def read(self, op: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Reads are idempotent: retry once on a dropped connection, then StoreUnavailable.
        On a Cluster twice, `CLUSTER_SETTLE` apart: while a failover settles the first new
        slot map may still name the old primary."""
        if self._gate is not None:
            async with self.slot():
                return await self._read_retrying(op, *args)
        return await self._read_retrying(op, *args)

    async def _read_retrying(self, op: Callable[..., Awaitable[T]], *args: Any) -> T:
        for _ in range(2 if self.cluster else 1):
            try:
                return await op(*args)
            except UNAVAILABLE_ERRORS as exc:
                # One server: not after a timeout (a second wait would only double it; the
                # stall probe frees the stuck connections).
                if not self.cluster and isinstance(exc, TIMEOUT_ERRORS):
                    raise self.health.error(exc) from exc
            except CLUSTER_RACE:
                if not self.cluster:
                    raise
            if self.cluster:
                await asyncio.sleep(CLUSTER_SETTLE)
        with self.health.errors():
            try:
                return await op(*args)
            except CLUSTER_RACE as exc:
                if not self.cluster:
                    raise
                raise reset_under_us(exc) from exc

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
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
