"""One pipelined connection for a process's function calls (appends and snapshots).

redis-py's pooled `execute_command` costs more CPU than the append itself on the service's hot
path: argument packing, a pool checkout with a health check, and a task per command for the
write timeout. Here a command is packed once by the caller, every command issued in the same
event-loop turn goes out in one write, and one reader task takes the replies in order.

The failure model is the store's: if the connection breaks or a reply does not come within
`timeout`, every command in flight fails with StoreUnavailable (its outcome is unknown, and a
retry with the same action_id is safe); the next command opens a new connection. A timeout
calls `on_stall` (the store's stall probe, `events.store.connection`), which may then drop a
connection or an opening that is stuck (`drop_stalled`).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import redis.exceptions as rexc
from redis.asyncio import Redis

from events.store.base import StoreUnavailable


def pack(args: Sequence[bytes | str | int]) -> bytes:
    """A RESP array of bulk strings: how a command goes over the wire."""
    return b"*%d\r\n%b" % (len(args), pack_args(args))


def pack_args(args: Sequence[bytes | str | int]) -> bytes:
    """The bulk strings of `args`, without the array header (to join onto a packed prefix)."""
    parts = []
    for arg in args:
        if isinstance(arg, str):
            data = arg.encode()
        elif isinstance(arg, bytes):
            data = arg
        else:
            data = b"%d" % arg
        parts.append(b"$%d\r\n%b\r\n" % (len(data), data))
    return b"".join(parts)


class Pipe:
    def __init__(
        self,
        connect: Callable[[], Awaitable[Redis]],
        *,
        timeout: float,
        on_stall: Callable[[], None] | None = None,
    ) -> None:
        self._connect = connect
        self._timeout = timeout
        self._on_stall = on_stall
        self._client: Redis | None = None
        self._conn: Any = None
        self._out: list[bytes] = []  # packed, not written yet
        self._waiting: deque[asyncio.Future[Any]] = deque()  # written ones first, then _out's
        self._inflight = 0  # written commands whose replies are still due
        self._scheduled = False
        self._reader: asyncio.Task[None] | None = None
        self._opening: asyncio.Task[None] | None = None
        self._opening_since = 0.0
        self._progress_at = 0.0  # the last reply, or the write that started the wait for one
        self._closed = False
        self._replies = 0  # replies read so far (the watchdog's measure of progress)
        self._seen = 0
        self._watchdog: asyncio.TimerHandle | None = None

    async def call(self, packed: bytes) -> Any:
        """Send one packed command; its reply (an error reply raises as redis-py would)."""
        if self._closed:
            raise StoreUnavailable("store closed")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._out.append(packed)
        self._waiting.append(future)
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self._flush)
        return await future

    def _flush(self) -> None:
        self._scheduled = False
        if not self._out:
            return
        conn = self._conn
        writer = getattr(conn, "_writer", None)
        if conn is None or writer is None or writer.is_closing():
            if self._opening is None:
                self._start_opening()
            return
        data = b"".join(self._out)
        count = len(self._out)
        self._out = []
        try:
            writer.write(data)
        except Exception as exc:
            self._inflight += count
            self._broken(exc)
            return
        if not self._inflight:
            self._progress_at = time.monotonic()
        self._inflight += count
        if self._reader is None:
            self._reader = asyncio.create_task(self._read(conn))
        if self._watchdog is None:
            self._seen = self._replies
            self._watchdog = asyncio.get_running_loop().call_later(self._timeout, self._watch)

    def _watch(self) -> None:
        """Every `timeout` while replies are due: no reply since the last look means the
        connection is stuck (one timer for all commands, not one per command)."""
        self._watchdog = None
        if not self._inflight:
            return
        if self._replies == self._seen:
            self._broken(TimeoutError(f"no reply within {self._timeout} s"))
            if self._on_stall is not None:
                self._on_stall()
            return
        self._seen = self._replies
        self._watchdog = asyncio.get_running_loop().call_later(self._timeout, self._watch)

    def _start_opening(self) -> None:
        self._opening_since = time.monotonic()
        self._opening = asyncio.create_task(self._open())

    async def _open(self) -> None:
        client: Redis | None = None
        try:
            client = await self._connect()
            await client.execute_command("PING")  # type: ignore[no-untyped-call]
            conn = client.connection
            if conn is None or getattr(conn, "_writer", None) is None:
                raise StoreUnavailable("the pipelined connection has no writer")
        except asyncio.CancelledError:  # dropped as stalled (`drop_stalled`)
            if client is not None:
                _close_soon(client)
            raise
        except Exception as exc:
            self._opening = None
            self._broken(exc)
            if client is not None:
                _close_soon(client)
            if self._on_stall is not None and isinstance(exc, rexc.TimeoutError | TimeoutError):
                self._on_stall()
            return
        self._client, self._conn = client, conn
        self._opening = None
        self._flush()

    async def _read(self, conn: Any) -> None:
        try:
            while self._inflight and conn is self._conn:
                try:
                    reply: Any = await conn.read_response(
                        timeout=math.inf, disconnect_on_error=False
                    )
                except rexc.ResponseError as exc:
                    reply = exc
                self._replies += 1
                self._inflight -= 1
                self._progress_at = time.monotonic()
                future = self._waiting.popleft()
                if not future.done():
                    if isinstance(reply, rexc.ResponseError):
                        future.set_exception(reply)
                    else:
                        future.set_result(reply)
        except Exception as exc:
            if conn is self._conn:
                self._broken(exc)
        finally:
            if self._reader is asyncio.current_task():
                self._reader = None

    def _broken(self, exc: BaseException) -> None:
        """Fail everything in flight or queued; the next call reconnects."""
        error = StoreUnavailable(f"event store unreachable: {exc}")
        waiting, self._waiting = self._waiting, deque()
        self._out, self._inflight = [], 0
        for future in waiting:
            if not future.done():
                future.set_exception(error)
        client, self._client, self._conn = self._client, None, None
        reader, self._reader = self._reader, None  # the next connection gets its own reader
        if reader is not None and reader is not asyncio.current_task():
            reader.cancel()
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        if client is not None:
            _close_soon(client)

    async def drop_stalled(self, before: float, busy: bool) -> int:
        """Drop the connection if it is idle, or (with `busy`) waiting since before `before`
        for a reply; restart an opening begun before `before` (what it holds was never
        written, so it goes down the new connection). How many it dropped (0 or 1)."""
        dropped = 0
        if self._conn is not None and not self._inflight and not self._out:
            client, self._client, self._conn = self._client, None, None
            if self._reader is not None:
                self._reader.cancel()
                self._reader = None
            if client is not None:
                _close_soon(client)
            dropped = 1
        elif busy and self._inflight and self._progress_at < before:
            self._broken(TimeoutError("no reply while a fresh connection got one"))
            dropped = 1
        opening = self._opening
        if busy and opening is not None and self._opening_since < before:
            opening.cancel()
            self._opening = None
            if self._out:
                self._start_opening()
            dropped += 1
        return dropped

    async def close(self) -> None:
        self._closed = True
        for task in (self._reader, self._opening):
            if task is not None:
                task.cancel()
        if self._waiting:
            self._broken(StoreUnavailable("store closed"))
        client, self._client, self._conn = self._client, None, None
        if client is not None:
            await _quietly_close(client)


def _close_soon(client: Redis) -> None:
    task = asyncio.ensure_future(_quietly_close(client))
    task.add_done_callback(lambda t: None)


async def _quietly_close(client: Redis) -> None:
    with contextlib.suppress(Exception):
        await client.aclose()
