"""One table socket's protocol: the auth frame, `ready` with the table's version, resume by
version, actions over the socket, pings.

Events are pushed: the process's feed of the table (`Tables.watch`, one per table however many
sockets) hands each batch to the socket's `Writer` (writer.py) with a plain call; a socket too
slow to take them is closed with 4408 and the client resumes by version on reconnect.
Set-ups and tear-downs wait their turn at the `Gates` (gates.py). Protocol-level pings
(aiohttp `heartbeat`) drop dead connections; `{"type": "ping"}` frames get `{"type": "pong"}`
for clients that want app-level pings.

An authenticated socket counts as its user having the table open (`Tables.presence`,
seen by every replica) from `ready` until it closes: the bot calls nobody to a table they are
looking at.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import msgspec
from aiohttp import WSMsgType, web

from events.store.base import SubscriberTooSlow
from service import metrics
from service.api import schemas
from service.api.auth import AuthError
from service.api.context import CONFIG, SOCKETS, TABLES, charge, user_from_init_data
from service.api.errors import classify
from service.api.ws import social
from service.api.ws.gates import GATES
from service.api.ws.writer import Writer
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
    session = Session(request.app, ws, request.match_info["table_id"], request.transport)
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
            request.app[GATES].farewell(session.farewell)  # in line, in the background
        if not ws.closed:
            await ws.close()
        _release_heartbeat_hook(request)
    return ws


def _release_heartbeat_hook(request: web.Request) -> None:
    """With a heartbeat, aiohttp gives the connection's protocol a bound method of the socket
    (to push the heartbeat back on any bytes received) and keeps it after the socket closed:
    protocol -> socket -> request -> protocol is then a reference cycle. A socket lives long
    enough to reach the collector's old generation, so every closed one (its request, transport,
    parser and buffers) waited for a full collection, and the memory between two of them grew
    the allocator's arenas for good (docs/PERFORMANCE.md, "Soak"). Without the hook, reference
    counting frees a closed socket at once. (aiohttp before the hook has no such attribute, and
    its protocol takes no new ones: hence the look first.)"""
    protocol = request.protocol
    if getattr(protocol, "_data_received_cb", None) is not None:
        protocol._data_received_cb = None


async def close_all(app: web.Application) -> None:
    """on_shutdown: tell every client we are going away, so it reconnects elsewhere."""
    sockets = [*app[SOCKETS]]
    for ws in sockets:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(code=1001, message=b"server shutting down"), 1.0)
    pending = app[GATES].pending
    if pending:  # presence left behind expires by itself; this only tidies up in time
        await asyncio.wait([*pending], timeout=2.0)


class Session:
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
        self.out: Writer | None = None
        self.presence_token: str | None = None
        self.invite: str | None = None  # a private table's, from the auth frame

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
            self.invite = frame.invite
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
            # an archived table (410) is as gone to a socket as an unknown one: 4404, its
            # reason says archived
            code = {404: CLOSE_NOT_FOUND, 410: CLOSE_NOT_FOUND,
                    429: CLOSE_RATE_LIMITED}.get(status, CLOSE_ERROR)
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
        if self.user is None:
            return
        try:
            self.presence_token = await self.tables.presence.opened(self.table_id, self.user.id)
        except Exception:
            log.warning("could not record presence at %s", self.table_id, exc_info=True)

    async def farewell(self) -> None:
        """A closed socket's tidying up (at the `Gates`): its feed left, its presence cleared."""
        await self.stop_feed()
        await self.absent()

    async def absent(self) -> None:
        token, self.presence_token = self.presence_token, None
        if token is None:
            return
        try:
            await self.tables.presence.closed(token)
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
            self.feed.append(asyncio.create_task(social.follow_chat(self, frame.chat_after)))
            self.feed.append(asyncio.create_task(social.follow_away(self)))
        elif isinstance(frame, schemas.ActionFrame):
            await self._act(frame)
        elif isinstance(frame, schemas.ChatFrame):
            await social.post_chat(self, frame)
        elif isinstance(frame, schemas.AwayFrame):
            await social.set_away(self, frame.away)
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
        out = Writer(
            self.ws, self.transport, viewer=self.user.id if self.user is not None else None,
            after=after, views=views, limit=self.config.ws_queue_size,
            timeout=self.config.ws_send_timeout_seconds, too_slow=self._too_slow,
        )
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

    async def _follow(self, after: int, views: bool, out: Writer) -> None:
        try:
            await self.tables.watch(self.user, self.table_id, after, out, views=views,
                                    hold_limit=max(1024, self.config.ws_queue_size),
                                    invite=self.invite)
        except (TimeoutError, SubscriberTooSlow):
            await self._close_soon(CLOSE_TOO_SLOW, "too slow; reconnect and resume")
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            known = classify(exc)
            if known is None:
                log.exception("event feed failed")
            code = CLOSE_NOT_FOUND if known and known[0] in (404, 410) else CLOSE_ERROR
            await self._close_soon(code, known[2] if known else "event feed failed", exc)

    async def _too_slow(self) -> None:
        await self._close_soon(CLOSE_TOO_SLOW, "too slow; reconnect and resume")

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
