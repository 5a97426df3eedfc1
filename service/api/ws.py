"""WebSocket `GET /api/tables/{id}/ws` (API.md): auth frame, resume by version, live events in
the caller's projection, actions over the socket.

Each connection has one bounded queue between the table's event feed and the socket. A client
that leaves it full for `ws_send_timeout_seconds` (or overflows the store's own per-subscriber
queue) is closed with 4408 and resumes by version on reconnect, so one slow phone never holds
memory or delays anyone else; a long catch-up merely waits for the socket. Protocol-level
pings (aiohttp `heartbeat`) drop dead connections; `{"type": "ping"}` frames get
`{"type": "pong"}` for clients that want app-level pings.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import msgspec
from aiohttp import WSMsgType, web

from events.store.base import SubscriberTooSlow
from service.api import schemas
from service.api.auth import AuthError
from service.api.context import CONFIG, SOCKETS, TABLES, charge, user_from_init_data
from service.api.errors import classify
from service.tables.facade import User

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


async def table_socket(request: web.Request) -> web.WebSocketResponse:
    config = request.app[CONFIG]
    ws = web.WebSocketResponse(
        heartbeat=config.ws_heartbeat_seconds, max_msg_size=config.max_body_bytes
    )
    await ws.prepare(request)
    request.app[SOCKETS].add(ws)
    session = _Session(request.app, ws, request.match_info["table_id"])
    try:
        await session.run()
    except ConnectionResetError:
        pass  # the client went away mid-send: nothing to tell it
    finally:
        await session.stop_feed()
        if not ws.closed:
            await ws.close()
    return ws


async def close_all(app: web.Application) -> None:
    """on_shutdown: tell every client we are going away, so it reconnects elsewhere."""
    sockets = [*app[SOCKETS]]
    for ws in sockets:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(code=1001, message=b"server shutting down"), 1.0)


class _Session:
    def __init__(self, app: web.Application, ws: web.WebSocketResponse, table_id: str) -> None:
        self.app = app
        self.ws = ws
        self.table_id = table_id
        self.tables = app[TABLES]
        self.config = app[CONFIG]
        self.user: User | None = None
        self.feed: list[asyncio.Task[None]] = []

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
            await self.ws.close(code=CLOSE_UNAUTHORIZED, message=reason.encode()[:120])
            return False
        try:
            charge(self.app, self.user)  # a connection costs a token, like a request
            view = await self.tables.view(self.user, self.table_id)
        except Exception as exc:
            known = classify(exc)
            if known is None:
                log.exception("view failed for a new socket")
            status = known[0] if known else 500
            code = {404: CLOSE_NOT_FOUND, 429: CLOSE_RATE_LIMITED}.get(status, CLOSE_ERROR)
            message = known[2] if known else "internal error"
            await self.ws.close(code=code, message=message.encode()[:120])
            return False
        await _send(self.ws, {"type": "ready", "version": view["version"]})
        return True

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

    # -- the event feed: subscription → bounded queue → socket ------------------------------

    def _start_feed(self, after: int, views: bool = False) -> None:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(self.config.ws_queue_size)
        self.feed = [
            asyncio.create_task(self._pump(after, views, queue)),
            asyncio.create_task(self._write(after, queue)),
        ]

    async def stop_feed(self) -> None:
        for task in self.feed:
            task.cancel()
        for task in self.feed:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.feed = []

    async def _pump(self, after: int, views: bool, queue: asyncio.Queue[dict[str, Any]]) -> None:
        try:
            feed = (
                self.tables.subscribe(self.user, self.table_id, after, views=True)
                if views
                else self.tables.subscribe(self.user, self.table_id, after)
            )
            async for event in feed:
                try:
                    queue.put_nowait(event)
                except asyncio.QueueFull:
                    # Catch-up waits for the writer; a writer stuck this long is a slow client.
                    await asyncio.wait_for(queue.put(event), self.config.ws_send_timeout_seconds)
        except (TimeoutError, SubscriberTooSlow):
            await self._close_soon(CLOSE_TOO_SLOW, "too slow; reconnect and resume")
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            known = classify(exc)
            if known is None:
                log.exception("event feed failed")
            code = CLOSE_NOT_FOUND if known and known[0] == 404 else CLOSE_ERROR
            await self._close_soon(code, known[2] if known else "event feed failed")

    async def _write(self, after: int, queue: asyncio.Queue[dict[str, Any]]) -> None:
        last = after
        while True:
            event = await queue.get()
            version = int(event["version"])
            if version <= last:
                continue  # never a repeat, whatever the feed does
            last = version
            frame: dict[str, Any] = {"type": "event", "version": version, "event": event}
            view = event.get("view")
            if view is not None:  # the caller's view at this version travels beside the event
                frame["event"] = {k: v for k, v in event.items() if k != "view"}
                if callable(view):
                    # Lazy: computed only for the newest event at hand. One action appends
                    # several events at once; the client needs the view after the last.
                    view = view() if queue.empty() else None
                if view is not None:
                    frame["view"] = view
            await _send(self.ws, frame)

    async def _close_soon(self, code: int, reason: str) -> None:
        """Close without waiting on a socket that may be the very thing that is stuck."""
        for task in self.feed:
            if task is not asyncio.current_task():
                task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(code=code, message=reason.encode()), 1.0)
