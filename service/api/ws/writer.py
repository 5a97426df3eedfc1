"""The socket's event writer: the table's feed hands it each batch with a plain call, and it
turns the batch into frames -- the event's shared encoding, plus the caller's view for the
newest event of the batch -- written to the transport in one piece.

A socket whose transport backs up buffers at most `limit` batches; a full buffer, or one that
does not move for `timeout` seconds, gives up on the socket (`too_slow`: the session closes it
with 4408 and the client resumes by version on reconnect), so one slow phone never holds
memory or delays anyone else; a long catch-up merely waits for the socket (`drained`).
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Awaitable, Callable, Sequence

from aiohttp import web

from events.store.base import SubscriberTooSlow
from service.tables.facade import FeedItem


def _header(length: int) -> bytes:
    """A final, unmasked text frame's header (server to client, RFC 6455 5.2)."""
    if length < 126:
        return _LEN1(0x81, length)
    if length < 65536:
        return _LEN2(0x81, 126, length)
    return _LEN3(0x81, 127, length)


_LEN1 = struct.Struct("!BB").pack
_LEN2 = struct.Struct("!BBH").pack
_LEN3 = struct.Struct("!BBQ").pack
_POLL = 0.005  # how often a writer with a backlog looks at the transport again


class Writer:
    """One socket's `FeedSink`, called synchronously by the table's feed.

    Each delivery becomes one transport write holding all its frames, each frame built from
    the event's shared encoding (and, for the newest event, the viewer's view). The frames are
    written in one piece between aiohttp's own writes, so a ping, pong or close never lands
    inside one. While the transport holds more than `_HIGH` bytes, frames wait in a backlog of
    at most `limit` deliveries; a backlog that is full, or that cannot move for `timeout`
    seconds, stops the writer and calls `too_slow` (once, in a task of its own).
    """

    _HIGH = 256 * 1024

    def __init__(
        self,
        ws: web.WebSocketResponse,
        transport: asyncio.Transport | None,
        *,
        viewer: int | None,
        after: int,
        views: bool,
        limit: int,
        timeout: float,
        too_slow: Callable[[], Awaitable[None]],
    ) -> None:
        self.ws = ws
        self.transport = transport
        self.viewer = viewer
        self.views = views
        self.last = after
        self.backlog: list[bytes] = []
        self.limit = limit
        self.timeout = timeout
        self.too_slow = too_slow
        self.flusher: asyncio.Task[None] | None = None
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True
        self.backlog = []
        if self.flusher is not None:
            self.flusher.cancel()

    def deliver(self, items: Sequence[FeedItem]) -> None:
        if self.stopped:
            return
        viewer = self.viewer
        last = self.last
        newest = len(items) - 1
        parts: list[bytes] = []
        for index, item in enumerate(items):
            version = item.version
            if version <= last:
                continue  # never a repeat, whatever the feed does
            last = version
            event = item.event_json(viewer)
            view = item.view_json(viewer) if self.views and index == newest else None
            if view is None:
                payload = b'{"type":"event","version":%d,"event":%b}' % (version, event)
            else:
                payload = b'{"type":"event","version":%d,"event":%b,"view":%b}' % (
                    version, event, view)
            parts.append(_header(len(payload)))
            parts.append(payload)
        self.last = last
        if parts:
            self._write(b"".join(parts))

    def _write(self, data: bytes) -> None:
        transport = self.transport
        if self.ws.closed or transport is None or transport.is_closing():
            self.stopped = True
            return
        if self.backlog or transport.get_write_buffer_size() > self._HIGH:
            self.backlog.append(data)
            if len(self.backlog) > self.limit:
                self._too_slow()
            elif self.flusher is None:
                self.flusher = asyncio.create_task(self._flush())
            return
        transport.write(data)

    async def _flush(self) -> None:
        try:
            while self.backlog and not self.stopped:
                await self._room()
                if self.stopped or self.ws.closed or self.transport is None:
                    return
                data, self.backlog = b"".join(self.backlog), []
                self.transport.write(data)
        finally:
            self.flusher = None

    async def _room(self) -> None:
        """Wait until the transport holds at most `_HIGH` bytes, giving up (4408) when it
        has not shrunk for `timeout` seconds."""
        transport = self.transport
        assert transport is not None
        size = transport.get_write_buffer_size()
        moved = asyncio.get_running_loop().time()
        while size > self._HIGH:
            await asyncio.sleep(_POLL)
            if self.stopped or transport.is_closing():
                return
            now = asyncio.get_running_loop().time()
            current = transport.get_write_buffer_size()
            if current < size:
                moved = now
            elif now - moved > self.timeout:
                self._too_slow()
                return
            size = current

    async def drained(self) -> None:
        """A catch-up waits for the socket (however long, as long as it moves)."""
        flusher = self.flusher
        if flusher is not None:
            await asyncio.wait([flusher])  # the backlog is written (or the socket closing)
        if not self.stopped and self.transport is not None:
            await self._room()
        if self.stopped and not self.ws.closed:
            raise SubscriberTooSlow("the socket stopped taking events")

    def _too_slow(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        self.backlog = []
        task = asyncio.create_task(self._give_up())
        _closing.add(task)
        task.add_done_callback(_closing.discard)

    async def _give_up(self) -> None:
        await self.too_slow()


_closing: set[asyncio.Task[None]] = set()  # the too-slow closes under way (kept referenced)
