"""The HTTP client both servers of the API benchmark get: keep-alive HTTP/1.1 connections,
at most a given number of requests in flight."""

from __future__ import annotations

import asyncio


class HttpError(Exception):
    """The connection broke or the answer was not HTTP/1.1 with a Content-Length."""


class _HttpConn(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection: one request at a time, the answer parsed as it
    arrives (status line, Content-Length, body), no task per request."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buf = b""
        self.waiter: asyncio.Future[tuple[int, bytes]] | None = None
        self.reusable = True

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        self.buf += data
        end = self.buf.find(b"\r\n\r\n")
        if end < 0 or self.waiter is None:
            return
        head = self.buf[:end].decode("latin-1").split("\r\n")
        fields = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:])}
        if "content-length" not in fields:
            self._fail(HttpError(f"no Content-Length in {head[0]!r}"))
            return
        length = int(fields["content-length"])
        if len(self.buf) < end + 4 + length:
            return
        body, self.buf = self.buf[end + 4 : end + 4 + length], self.buf[end + 4 + length :]
        if fields.get("connection", "").lower() == "close":
            self.reusable = False
        waiter, self.waiter = self.waiter, None
        if not waiter.done():
            waiter.set_result((int(head[0].split(" ", 2)[1]), body))

    def connection_lost(self, exc: Exception | None) -> None:
        self.reusable = False
        self._fail(HttpError(f"connection lost: {exc}"))

    def _fail(self, error: Exception) -> None:
        self.reusable = False
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(error)
        if self.transport is not None:
            self.transport.close()


class HttpPool:
    """At most `limit` requests in flight over keep-alive connections to one server: what
    aiohttp's client did here, at a fraction of its CPU per request (the client shares the
    machine's two cores with the server it measures)."""

    def __init__(self, host: str, port: int, limit: int, timeout: float = 20.0) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self.slots = asyncio.Semaphore(limit)
        self.idle: list[_HttpConn] = []

    async def request(self, method: str, path: str, body: bytes | None = None,
                      headers: bytes = b"") -> tuple[int, bytes]:
        data = body or b""
        head = (b"%s %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n%b\r\n" % (method.encode(), path.encode(),
                                                    self.host.encode(), self.port, len(data),
                                                    headers))
        async with self.slots, asyncio.timeout(self.timeout):
            conn = self.idle.pop() if self.idle else None
            if conn is None:
                _, conn = await asyncio.get_running_loop().create_connection(
                    _HttpConn, self.host, self.port)
            assert conn.transport is not None
            conn.waiter = asyncio.get_running_loop().create_future()
            try:
                conn.transport.write(head + data)
                answer = await conn.waiter
            except BaseException:
                conn.reusable = False
                conn.transport.close()
                raise
            if conn.reusable:
                self.idle.append(conn)
            return answer

    def close(self) -> None:
        for conn in self.idle:
            if conn.transport is not None:
                conn.transport.close()
        self.idle = []
