"""The reconnect storm's spectator sockets (bench_storm.py): a lean WebSocket client, one
protocol object per socket, and each socket's account of what it got over its whole life
(reconnects included)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

import msgspec

JSON = dict[str, Any]
_encode = msgspec.json.Encoder().encode


class _Frame(msgspec.Struct):
    type: str
    version: int = 0
    status: int = 0


_decode = msgspec.json.Decoder(_Frame).decode
_KEY = b"dGhlIHNhbXBsZSBub25jZQ=="


def client_frame(payload: bytes, opcode: int = 0x1) -> bytes:
    """A final, masked client frame (mask key 0: the payload goes as it is)."""
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    else:
        head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
    return head + b"\0\0\0\0" + payload


# -- one spectator socket, over its whole life (reconnects included) --------------------------

@dataclass
class Watcher:
    table: str
    init: str
    last: int = 0  # the newest version received
    lost: int = 0
    repeated: int = 0
    ready_version: int = -1
    caught_up_at: float | None = None
    started_at: float = 0.0
    attempts: int = 0
    refusals: dict[str, int] = field(default_factory=dict)
    back: asyncio.Event = field(default_factory=asyncio.Event)
    transport: asyncio.Transport | None = None

    def refused(self, why: str) -> None:
        self.refusals[why] = self.refusals.get(why, 0) + 1

    def on_event(self, version: int, now: float) -> None:
        if version <= self.last:
            self.repeated += 1
            return
        if version != self.last + 1:
            self.lost += version - self.last - 1
        self.last = version
        self._check(now)

    def on_ready(self, version: int, now: float) -> None:
        self.ready_version = version
        self._check(now)

    def _check(self, now: float) -> None:
        if self.caught_up_at is None and 0 <= self.ready_version <= self.last:
            self.caught_up_at = now
            self.back.set()


class WsProtocol(asyncio.Protocol):
    """HTTP upgrade, then server frames parsed as they come (unmasked, RFC 6455)."""

    def __init__(self, watcher: Watcher, request: bytes) -> None:
        self.w = watcher
        self.request = request
        self.buf = bytearray()
        self.upgraded = False
        self.transport: asyncio.Transport | None = None
        self.done: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        assert self.transport is not None
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        self.buf += data
        if not self.upgraded:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(self.buf[:12])
            del self.buf[: end + 4]
            if not status.startswith(b"HTTP/1.1 101"):
                self._finish(f"http {status[9:12].decode()}")
                return
            self.upgraded = True
            assert self.transport is not None
            self.transport.write(
                client_frame(_encode({"type": "auth", "init_data": self.w.init}))
                + client_frame(_encode({"type": "resume", "after": self.w.last})))
        self._frames()

    def _frames(self) -> None:
        buf = self.buf
        now = time.perf_counter()
        while len(buf) >= 2:
            opcode = buf[0] & 0x0F
            n = buf[1] & 0x7F
            at = 2
            if n == 126:
                if len(buf) < 4:
                    return
                n, at = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    return
                n, at = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < at + n:
                return
            payload = bytes(buf[at : at + n])
            del buf[: at + n]
            if opcode == 0x1:
                frame = _decode(payload)
                if frame.type == "event":
                    self.w.on_event(frame.version, now)
                elif frame.type == "ready":
                    self.w.on_ready(frame.version, now)
                elif frame.type == "error":
                    self.w.refused(f"error {frame.status}")
            elif opcode == 0x9 and self.transport is not None:  # ping -> pong
                self.transport.write(client_frame(payload, 0xA))
            elif opcode == 0x8:
                code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                self._finish(f"closed {code}")
                if self.transport is not None:
                    self.transport.close()
                return

    def connection_lost(self, exc: Exception | None) -> None:
        self._finish("reset" if exc else "eof")

    def _finish(self, why: str) -> None:
        if not self.done.done():
            self.done.set_result(why)


class Storm:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.protocols: dict[int, WsProtocol] = {}
        self.reconnects: set[asyncio.Future[None]] = set()

    async def connect(self, w: Watcher, *, retry_until: float) -> None:
        """Connect and resume; on refusal try again every 0.2 s until back or `retry_until`."""
        loop = asyncio.get_running_loop()
        request = (f"GET /api/tables/{w.table}/ws HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                   "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
                   f"{_KEY.decode()}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()
        while True:
            w.attempts += 1
            w.back.clear()
            w.caught_up_at, w.ready_version = None, -1
            try:
                async with asyncio.timeout(10):
                    _, proto = await loop.create_connection(
                        lambda: WsProtocol(w, request), self.host, self.port)
            except (OSError, TimeoutError) as exc:
                w.refused(f"connect {type(exc).__name__}")
            else:
                self.protocols[id(w)] = proto
                w.transport = proto.transport
                back = asyncio.ensure_future(w.back.wait())
                await asyncio.wait([back, proto.done], timeout=30,
                                   return_when=asyncio.FIRST_COMPLETED)
                if w.back.is_set():
                    back.cancel()
                    proto.done.add_done_callback(lambda f, w=w: self._later(w, f))
                    return
                back.cancel()
                w.refused(proto.done.result() if proto.done.done() else "timeout")
                if proto.transport is not None:
                    proto.transport.abort()
            if time.perf_counter() > retry_until:
                return
            await asyncio.sleep(0.2)

    def _later(self, w: Watcher, done: asyncio.Future[str]) -> None:
        """A socket that was back and then closed or reset by the server (not by us): counted,
        and it reconnects and resumes, as the web app does."""
        if done.cancelled():
            return  # dropped by us (the storm)
        w.refused(f"later {done.result()}")
        task = asyncio.ensure_future(self.connect(w, retry_until=time.perf_counter() + 60))
        self.reconnects.add(task)
        task.add_done_callback(self.reconnects.discard)

    def drop_all(self) -> None:
        for proto in self.protocols.values():
            proto.done.cancel()  # our own drop: not counted as the server's doing
            if proto.transport is not None:
                proto.transport.abort()
        self.protocols = {}


def reasons(watchers: list[Watcher]) -> dict[str, int]:
    out: dict[str, int] = {}
    for w in watchers:
        for why, n in w.refusals.items():
            out[why] = out.get(why, 0) + n
    return out
