"""The store's side of a Redis that misbehaves: what each failure means, and getting the
connections back after a stall.

Three failures, three answers:

- Unreachable (refused, reset, timed out): `StoreUnavailable`, the API's 503
  `store_unavailable`. A command's outcome is unknown; retrying an append by its action_id is
  safe.
- Full (maxmemory reached under `noeviction`, the deploy's policy): Redis refuses every write
  before running it -- an append's function call is refused whole, so nothing is half-written
  -- and still answers reads. `StoreFull`, the API's 503 `store_full`. Logged once when the
  first write is refused and once when one is accepted again, not on every refusal.
- Stalled (Redis neither answers nor refuses: packets dropped, a half-open socket): every
  command on such a socket waits out its timeout, and so would every later command given the
  same socket, after Redis is back. So the first timeout starts an episode: idle pooled
  connections are dropped (they may be stalled too, and reopening one costs a round trip),
  and a probe on a fresh socket asks every `PROBE_INTERVAL` whether Redis answers. When it
  does, every connection with a command sent before that probe and still unanswered is
  dropped (Redis answers in order: a socket that missed its reply while a later one got
  answered is dead), so the commands stuck on them fail at once instead of waiting out their
  timeouts, and reads retry on fresh sockets.

`TOTALS` counts both episodes for the process (`service.metrics` exports them).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import redis.exceptions as rexc
from redis.asyncio.connection import Connection, ConnectionPool

from events.store.base import StoreFull, StoreUnavailable

log = logging.getLogger(__name__)

# What redis-py raises when Redis cannot be reached (the key-value store uses it too).
UNAVAILABLE_ERRORS = (
    rexc.ConnectionError,
    rexc.TimeoutError,
    rexc.ClusterDownError,
    rexc.TryAgainError,
    rexc.MasterDownError,
    OSError,
)
TIMEOUT_ERRORS = (rexc.TimeoutError, TimeoutError)

PROBE_INTERVAL = 0.1  # seconds between probes while a stall lasts
PROBE_TIMEOUT = 0.5  # a fresh socket's connect + PING: Redis answers it in well under this


@dataclass
class Totals:
    """This process's counts, over every store it opened."""

    full_refusals: int = 0  # writes Redis refused at its memory limit
    full_stores: int = 0  # stores whose last write was refused for memory
    stalls: int = 0  # episodes started by a command that got no answer in time
    dropped: int = 0  # connections dropped as stalled


TOTALS = Totals()

Probe = Callable[[], Awaitable[None]]
# Drop connections that sent a command before the given time (monotonic) and are still
# waiting for its reply; with `idle`, idle ones too. Returns how many it dropped.
Reset = Callable[[float, bool], Awaitable[int]]


class Health:
    """One store's view of its Redis: full and stall episodes, and the error mapping.

    `probe` opens a fresh connection and PINGs; `reset` drops stalled connections (see the
    module docstring). Without them (the embedded store, a Cluster, whose client drops a
    failed node's connections itself) a timeout is only mapped, not acted on."""

    def __init__(self, probe: Probe | None = None, resets: tuple[Reset, ...] = ()) -> None:
        self._probe = probe
        self._resets = resets
        self.full = False
        self._full_since = 0.0
        self._refused = 0
        self._prober: asyncio.Task[None] | None = None
        self._closed = False

    # -- mapping -----------------------------------------------------------------------------

    def error(self, exc: BaseException) -> StoreUnavailable:
        """The store's exception for a redis-py one (StoreFull for a refusal at maxmemory)."""
        if isinstance(exc, rexc.OutOfMemoryError):
            return self.refused_full(exc)
        if isinstance(exc, TIMEOUT_ERRORS):
            self.timed_out()
        return StoreUnavailable(f"event store unreachable: {exc}")

    @contextlib.contextmanager
    def errors(self) -> Iterator[None]:
        """Map every "cannot write or reach Redis" failure to the store's exceptions."""
        try:
            yield
        except rexc.OutOfMemoryError as exc:
            raise self.refused_full(exc) from exc
        except UNAVAILABLE_ERRORS as exc:
            raise self.error(exc) from exc
        except CLUSTER_RACE as exc:
            if not closing_under_us(exc):
                raise
            raise self.error(reset_under_us(exc)) from exc

    # -- full --------------------------------------------------------------------------------

    def refused_full(self, exc: BaseException) -> StoreFull:
        TOTALS.full_refusals += 1
        self._refused += 1
        if not self.full:
            self.full = True
            self._full_since = time.monotonic()
            TOTALS.full_stores += 1
            log.error(
                "Redis is at its memory limit (maxmemory, noeviction): writes are refused "
                "(503 store_full) until memory is freed or the limit raised: %s", exc
            )
        return StoreFull(f"event store full: {exc}")

    def wrote(self) -> None:
        """A write was accepted: ends a full episode (the hot path: one attribute test)."""
        if self.full:
            self.full = False
            TOTALS.full_stores -= 1
            log.warning(
                "Redis accepts writes again, after %.1f s at its memory limit and %d refused",
                time.monotonic() - self._full_since, self._refused,
            )
            self._refused = 0

    # -- stalls ------------------------------------------------------------------------------

    def timed_out(self) -> None:
        """A command got no reply within its timeout: start a stall episode, unless one runs."""
        if self._probe is None or self._closed:
            return
        if self._prober is not None and not self._prober.done():
            return
        TOTALS.stalls += 1
        log.warning("Redis did not answer in time: dropping idle connections, probing")
        self._prober = asyncio.get_running_loop().create_task(self._until_back())

    @property
    def stalled(self) -> bool:
        return self._prober is not None and not self._prober.done()

    async def _until_back(self) -> None:
        started = time.monotonic()
        await self._drop(math.inf, idle_only=True)
        assert self._probe is not None
        while not self._closed:
            sent = time.monotonic()
            try:
                async with asyncio.timeout(PROBE_TIMEOUT):
                    await self._probe()
            except Exception:
                await asyncio.sleep(PROBE_INTERVAL)
                continue
            dropped = await self._drop(sent, idle_only=False)
            log.warning(
                "Redis answers again after %.1f s: dropped %d stalled connections",
                time.monotonic() - started, dropped,
            )
            return

    async def _drop(self, before: float, *, idle_only: bool) -> int:
        dropped = 0
        for reset in self._resets:
            try:
                dropped += await reset(math.inf if idle_only else before, not idle_only)
            except Exception:
                log.warning("dropping stalled connections failed", exc_info=True)
        TOTALS.dropped += dropped
        return dropped

    async def close(self) -> None:
        self._closed = True
        if self.full:
            self.full = False
            TOTALS.full_stores -= 1
        prober, self._prober = self._prober, None
        if prober is not None:
            prober.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await prober


# -- a pool whose stalled connections can be told apart --------------------------------------


class TrackedConnection(Connection):
    """A pooled connection that remembers when it last sent a command (for `drop_stalled`)."""

    sent_at = -math.inf

    async def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        self.sent_at = time.monotonic()
        await super().send_packed_command(command, check_health)


def pool_reset(pool: ConnectionPool) -> Reset:
    """`Reset` for a pool of TrackedConnections."""

    async def reset(before: float, busy: bool) -> int:
        # redis-py has no public view of a pool's connections; these two sets are it.
        idle: list[Any] = list(getattr(pool, "_available_connections", ()))
        in_use: list[Any] = list(getattr(pool, "_in_use_connections", ())) if busy else []
        idle = [c for c in idle if c.is_connected]
        stuck = [c for c in in_use if c.is_connected and c.sent_at < before]
        for conn in idle:
            await conn.disconnect(nowait=True)
        for conn in stuck:
            _abort(conn)
        return len(idle) + len(stuck)

    return reset


def _abort(conn: Any) -> None:
    """Close the socket now, under the task waiting on it: its read ends (EOF) with a
    ConnectionError and redis-py disconnects the connection, which the pool then reopens."""
    writer = getattr(conn, "_writer", None)
    if writer is not None:
        writer.transport.abort()


def reset_under_us(exc: Exception) -> rexc.ConnectionError:
    """redis-py 8.1's cluster client, when a connection error makes it reset a node's pool
    (a failover closes the old primary's connections), can hand another command a connection
    it is closing at that moment: the command fails with AttributeError (`'NoneType' object
    has no attribute 'writelines'`) or RuntimeError (uvloop: `the handler is closed`) instead
    of a ConnectionError. On a Cluster both are taken for what they are, a dropped
    connection, and retried like one (tests/deploy/test_cluster_e2e.py met them about one
    run in five)."""
    return rexc.ConnectionError(f"connection reset under the command: {exc!r}")


CLUSTER_RACE = (AttributeError, RuntimeError)


def closing_under_us(exc: BaseException) -> bool:
    """Is `exc` the race `reset_under_us` describes (a command written to a connection that
    redis-py is closing), wherever it surfaces: a pipeline of index reads on a Cluster met it
    during a failover and answered 500 before this was looked for."""
    text = str(exc)
    return ("writelines" in text and isinstance(exc, AttributeError)) or (
        isinstance(exc, RuntimeError) and "handler is closed" in text)
