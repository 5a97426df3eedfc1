"""WebSocket `GET /api/tables/{id}/ws` (docs/API.md "WebSocket"): auth frame, resume by
version, live events in the caller's projection, actions over the socket.

Events are pushed: the process's feed of the table (`TableService.watch`, one per table however
many sockets) hands each batch to every socket's writer (`_Out`) with a plain call, and the
writer turns it into frames -- the event's shared encoding, plus the caller's view for the
newest event of the batch -- written to the transport in one piece. A socket whose transport
backs up buffers at most `ws_queue_size` batches; a full buffer, or one that does not move for
`ws_send_timeout_seconds`, closes it with 4408 and the client resumes by version on reconnect,
so one slow phone never holds memory or delays anyone else; a long catch-up merely waits for
the socket. Protocol-level pings (aiohttp `heartbeat`) drop dead connections;
`{"type": "ping"}` frames get `{"type": "pong"}` for clients that want app-level pings.

An authenticated socket counts as its user having the table open (`TableService.presence`,
seen by every replica) from `ready` until it closes: the bot calls nobody to a table they are
looking at.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import struct
from collections.abc import Sequence
from typing import Any

import msgspec
from aiohttp import WSMsgType, web

from events.store.base import SubscriberTooSlow
from service import metrics
from service.api import schemas
from service.api.auth import AuthError
from service.api.context import CONFIG, SOCKETS, TABLES, charge, user_from_init_data
from service.api.errors import classify
from service.tables.facade import FeedItem, User

log = logging.getLogger("svara.api.ws")

CLOSE_UNAUTHORIZED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_SLOW = 4408
CLOSE_RATE_LIMITED = 4429
CLOSE_ERROR = 1011
_encode = msgspec.json.Encoder().encode


async def _send(ws: web.WebSocketResponse, frame: dict[str, Any]) -> None:
    """One JSON text frame, encoded once by msgspec (browsers expect text, not binary)."""
    await ws.send_frame(_encode(frame), WSMsgType.TEXT)


class Gates:
    """Admission control for a reconnect storm (a mobile network dropping thousands of
    players at once). At most `setups` sockets are set up at once (auth to `ready`: a read of
    the table's version unless this process follows it, and a presence write), and at most
    `farewells` closed sockets are torn down at once (their feed left, their presence
    cleared), in the background. The rest wait in line, so the store's connection pool and
    the event loop keep room for the players' actions: 2,000 sockets dropping at once
    otherwise tear down in one turn of the event loop, in front of every action."""

    def __init__(self, setups: int, farewells: int = 8) -> None:
        self.setups = asyncio.Semaphore(setups)
        self.farewells = asyncio.Semaphore(farewells)
        self.pending: set[asyncio.Task[None]] = set()

    def farewell(self, session: _Session) -> None:
        task = asyncio.create_task(self._farewell(session))
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    async def _farewell(self, session: _Session) -> None:
        async with self.farewells:
            await session.stop_feed()
            await session.absent()


GATES: web.AppKey[Gates] = web.AppKey("ws_gates", Gates)


async def table_socket(request: web.Request) -> web.WebSocketResponse:
    config = request.app[CONFIG]
    ws = web.WebSocketResponse(
        heartbeat=config.ws_heartbeat_seconds, max_msg_size=config.max_body_bytes
    )
    await ws.prepare(request)
    request.app[SOCKETS].add(ws)
    session = _Session(request.app, ws, request.match_info["table_id"], request.transport)
    metrics.open_websockets.inc()
    try:
        await session.run()
    except ConnectionResetError:
        pass  # the client went away mid-send: nothing to tell it
    finally:
        metrics.open_websockets.dec()
        if session.out is not None:
            session.out.stop()  # nothing more is written; the rest is tidying up
        if session.feed or session.presence_token is not None:
            request.app[GATES].farewell(session)  # in line, in the background
        if not ws.closed:
            await ws.close()
    return ws


async def close_all(app: web.Application) -> None:
    """on_shutdown: tell every client we are going away, so it reconnects elsewhere."""
    sockets = [*app[SOCKETS]]
    for ws in sockets:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(code=1001, message=b"server shutting down"), 1.0)
    pending = app[GATES].pending
    if pending:  # presence left behind expires by itself; this only tidies up in time
        await asyncio.wait([*pending], timeout=2.0)


class _Session:
    def __init__(self, app: web.Application, ws: web.WebSocketResponse, table_id: str,
                 transport: asyncio.Transport | None) -> None:
        self.app = app
        self.ws = ws
        self.transport = transport
        self.table_id = table_id
        self.tables = app[TABLES]
        self.config = app[CONFIG]
        self.user: User | None = None
        self.feed: list[asyncio.Task[None]] = []
        self.out: _Out | None = None
        self.presence: Any = getattr(self.tables, "presence", None)  # test doubles have none
        self.presence_token: str | None = None

    async def run(self) -> None:
        if not await self._authenticate():
            return
        async for msg in self.ws:
            if msg.type != WSMsgType.TEXT:
                if msg.type == WSMsgType.BINARY:
                    await self._send_error(None, 400, "bad_frame", "send JSON text frames")
                    continue
                break
            try:
                frame = schemas.frame_decoder.decode(msg.data)
            except msgspec.MsgspecError as exc:
                status, code, message, _ = classify(exc) or (400, "bad_frame", str(exc), {})
                await self._send_error(None, status, code, message)
                continue
            await self._handle(frame)

    async def _authenticate(self) -> bool:
        try:
            msg = await self.ws.receive(timeout=self.config.ws_auth_timeout_seconds)
        except TimeoutError:
            await self.ws.close(code=CLOSE_UNAUTHORIZED, message=b"no auth frame")
            return False
        if msg.type != WSMsgType.TEXT:
            await self.ws.close(code=CLOSE_UNAUTHORIZED, message=b"first frame must be auth")
            return False
        try:
            frame = schemas.frame_decoder.decode(msg.data)
            if not isinstance(frame, schemas.AuthFrame):
                raise AuthError("missing_init_data", "first frame must be auth")
            self.user = user_from_init_data(self.app, frame.init_data)
        except (AuthError, msgspec.MsgspecError) as exc:
            reason = exc.message if isinstance(exc, AuthError) else "first frame must be auth"
            _closed_with(CLOSE_UNAUTHORIZED, self.table_id, reason)
            await self.ws.close(code=CLOSE_UNAUTHORIZED, message=reason.encode()[:120])
            return False
        async with self.app[GATES].setups:
            return await self._admit()

    async def _admit(self) -> bool:
        """The authenticated socket's setup, up to `ready` (one of `Gates.setups` at once)."""
        assert self.user is not None
        if self.ws.closed:  # gone while it waited in line
            return False
        try:
            charge(self.app, self.user)  # a connection costs a token, like a request
            version = await self.tables.version(self.table_id)
        except Exception as exc:
            known = classify(exc)
            if known is None:
                log.exception("reading the version failed for a new socket")
            status = known[0] if known else 500
            code = {404: CLOSE_NOT_FOUND, 429: CLOSE_RATE_LIMITED}.get(status, CLOSE_ERROR)
            message = known[2] if known else "internal error"
            _closed_with(code, self.table_id, message, exc)
            await self.ws.close(code=code, message=message.encode()[:120])
            return False
        await self._present()  # before `ready`: a client that has it counts as present
        await _send(self.ws, {"type": "ready", "version": version})
        return True

    async def _present(self) -> None:
        """Count this socket as its user having the table open (an outage only costs the
        bot's judgement of who to call, never the socket)."""
        if self.presence is None or self.user is None:
            return
        try:
            self.presence_token = await self.presence.opened(self.table_id, self.user.id)
        except Exception:
            log.warning("could not record presence at %s", self.table_id, exc_info=True)

    async def absent(self) -> None:
        token, self.presence_token = self.presence_token, None
        if token is None:
            return
        try:
            await self.presence.closed(token)
        except Exception:  # it expires by itself
            log.warning("could not clear presence at %s", self.table_id, exc_info=True)

    async def _handle(self, frame: schemas.ClientFrame) -> None:
        if isinstance(frame, schemas.ResumeFrame):
            assert self.user is not None
            try:
                charge(self.app, self.user)  # each resume re-reads the table's history
            except Exception as exc:
                _, code, message, extra = classify(exc) or (429, "rate_limited", str(exc), {})
                await self._send_error(None, 429, code, message, **extra)
                return
            await self.stop_feed()
            self._start_feed(frame.after, frame.views)
        elif isinstance(frame, schemas.ActionFrame):
            await self._act(frame)
        elif isinstance(frame, schemas.PingFrame):
            await _send(self.ws, {"type": "pong"})
        else:
            await self._send_error(None, 400, "already_authenticated", "auth is sent once")

    async def _act(self, frame: schemas.ActionFrame) -> None:
        assert self.user is not None
        action_id = frame.action.action_id if isinstance(
            frame.action, schemas.ActionBody) else frame.action_id
        try:
            body = frame.body()
            charge(self.app, self.user)
            version = await self.tables.act(
                self.user, self.table_id, action_id=body.action_id, type=body.type,
                amount=body.amount, expected_version=body.expected_version,
            )
        except Exception as exc:
            known = classify(exc)
            if known is None:
                log.exception("action over the socket failed")
                known = (500, "internal_error", "something went wrong on our side", {})
            status, code, message, extra = known
            await self._send_error(action_id, status, code, message, **extra)
            return
        await _send(self.ws, {"type": "ack", "action_id": body.action_id, "version": version})

    async def _send_error(
        self, action_id: str | None, status: int, code: str, message: str, **extra: Any
    ) -> None:
        frame: dict[str, Any] = {"type": "error", "status": status,
                                 "error": {"code": code, "message": message, **extra}}
        if action_id is not None:
            frame["action_id"] = action_id
        if not self.ws.closed:
            await _send(self.ws, frame)

    # -- the event feed: the table's feed → this socket's writer ----------------------------

    def _start_feed(self, after: int, views: bool = False) -> None:
        out = _Out(self, after, views)
        self.out = out
        self.feed = [asyncio.create_task(self._follow(after, views, out))]

    async def stop_feed(self) -> None:
        if self.out is not None:
            self.out.stop()
            self.out = None
        for task in self.feed:
            task.cancel()
        for task in self.feed:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.feed = []

    async def _follow(self, after: int, views: bool, out: _Out) -> None:
        try:
            watch = getattr(self.tables, "watch", None)
            if watch is not None:
                await watch(self.user, self.table_id, after, out, views=views,
                            hold_limit=max(1024, self.config.ws_queue_size))
            else:  # a Tables without push (test doubles): the same writer over subscribe()
                await _watch_via_subscribe(self.tables, self.user, self.table_id, after, out,
                                           views)
        except (TimeoutError, SubscriberTooSlow):
            await self._close_soon(CLOSE_TOO_SLOW, "too slow; reconnect and resume")
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            known = classify(exc)
            if known is None:
                log.exception("event feed failed")
            code = CLOSE_NOT_FOUND if known and known[0] == 404 else CLOSE_ERROR
            await self._close_soon(code, known[2] if known else "event feed failed", exc)

    async def _close_soon(
        self, code: int, reason: str, error: BaseException | None = None
    ) -> None:
        """Close without waiting on a socket that may be the very thing that is stuck."""
        _closed_with(code, self.table_id, reason, error)
        for task in self.feed:
            if task is not asyncio.current_task():
                task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(code=code, message=reason.encode()), 1.0)


def _closed_with(
    code: int, table_id: str, reason: str, error: BaseException | None = None
) -> None:
    """Count a close with an error code; 1011 (the server's fault) also gets a log line that
    says why (the error under the client-facing reason, when there is one)."""
    metrics.websocket_closes.labels(str(code)).inc()
    if code == CLOSE_ERROR:
        cause = error.__cause__ if error is not None and error.__cause__ else error
        log.warning("closing a socket with 1011: %s%s", reason,
                    f" ({type(cause).__name__}: {cause})" if cause is not None else "",
                    extra={"table": table_id})


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


class _Out:
    """The socket's event writer, called synchronously by the table's feed.

    Each delivery becomes one transport write holding all its frames, each frame built from
    the event's shared encoding (and, for the newest event, the viewer's view). The frames are
    written in one piece between aiohttp's own writes, so a ping, pong or close never lands
    inside one. While the transport holds more than `_HIGH` bytes, frames wait in a backlog of
    at most `ws_queue_size` deliveries; a backlog that is full, or that cannot move for
    `ws_send_timeout_seconds`, closes the socket with 4408 (resume by version on reconnect).
    """

    _HIGH = 256 * 1024

    def __init__(self, session: _Session, after: int, views: bool) -> None:
        self.session = session
        self.ws = session.ws
        self.transport = session.transport
        self.viewer = session.user.id if session.user is not None else None
        self.views = views
        self.last = after
        self.backlog: list[bytes] = []
        self.limit = session.config.ws_queue_size
        self.timeout = session.config.ws_send_timeout_seconds
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
        task = asyncio.create_task(
            self.session._close_soon(CLOSE_TOO_SLOW, "too slow; reconnect and resume"))
        _closing.add(task)
        task.add_done_callback(_closing.discard)


_closing: set[asyncio.Task[None]] = set()


class _DictItem:
    """A `subscribe()` item (a projected event dict, maybe with "view") as a `FeedItem`."""

    __slots__ = ("_item", "version")

    def __init__(self, item: dict[str, Any]) -> None:
        self._item = item
        self.version = int(item["version"])

    def event_json(self, viewer: int | None) -> bytes:
        return _encode({k: v for k, v in self._item.items() if k != "view"})

    def view_json(self, viewer: int | None) -> bytes | None:
        view = self._item.get("view")
        if callable(view):
            view = view()
        return None if view is None else _encode(view)


async def _watch_via_subscribe(
    tables: Any, user: User | None, table_id: str, after: int, out: _Out, views: bool
) -> None:
    feed = (tables.subscribe(user, table_id, after, views=True) if views
            else tables.subscribe(user, table_id, after))
    async for item in feed:
        out.deliver([_DictItem(item)])
        await out.drained()
