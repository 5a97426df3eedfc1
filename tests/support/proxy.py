"""A TCP proxy in front of a server, for tests of a network that misbehaves.

It runs its own asyncio loop in a daemon thread, so sync and async tests alike (and other
processes: `svara serve` pointed at `url`) go through it while the test steers it:

- `black_hole()`: packets dropped, the worst way. Every connection, open or accepted from
  now on, is accepted and kept open but never forwarded nor answered, and stays so after
  `restore()` (a half-open socket: its peer is gone for good, nothing tells the client).
- `restore()`: connections accepted from now on are forwarded again.
- `latency`: seconds added to every chunk, each way (order kept), e.g. 0.1 for a 200 ms
  round trip.

It listens on an ephemeral port (bound to 0), outside every suite's port range.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class _Link:
    """One client connection and, unless it was accepted into the black hole, its upstream."""

    def __init__(self) -> None:
        self.stalled = False
        self.writers: list[asyncio.StreamWriter] = []

    def close(self) -> None:
        for writer in self.writers:
            writer.close()


class Proxy:
    def __init__(self, upstream_port: int, upstream_host: str = "127.0.0.1") -> None:
        self.upstream = (upstream_host, upstream_port)
        self.latency = 0.0
        self.port = 0
        self._holed = False
        self._links: set[_Link] = set()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> Proxy:
        self._thread.start()
        self._server = self._run(self._listen())
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._run(self._shut())
            self._server = None
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()

    def black_hole(self) -> None:
        def hole() -> None:
            self._holed = True
            for link in self._links:
                link.stalled = True

        self._loop.call_soon_threadsafe(hole)

    def restore(self) -> None:
        def heal() -> None:
            self._holed = False

        self._loop.call_soon_threadsafe(heal)

    @property
    def connections(self) -> int:
        """Client connections open through the proxy (stalled ones included)."""
        return len(self._links)

    # -- inside the proxy's loop -------------------------------------------------------------

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout=10)

    async def _listen(self) -> asyncio.Server:
        return await asyncio.start_server(self._accept, "127.0.0.1", 0)

    async def _shut(self) -> None:
        assert self._server is not None
        self._server.close()
        for link in list(self._links):
            link.close()
        await self._server.wait_closed()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link = _Link()
        link.writers.append(writer)
        self._links.add(link)
        try:
            if self._holed:
                link.stalled = True
                await _discard(reader)
                return
            try:
                up_reader, up_writer = await asyncio.open_connection(*self.upstream)
            except OSError:
                return
            link.writers.append(up_writer)
            await asyncio.gather(
                self._pump(reader, up_writer, link), self._pump(up_reader, writer, link)
            )
        finally:
            self._links.discard(link)
            link.close()

    async def _pump(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, link: _Link
    ) -> None:
        """Forward `source` to `sink`, `latency` late; drop everything once `link` stalls.
        Ends (closing the link) when either side closes."""
        queue: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        async def deliver() -> None:
            while (item := await queue.get()) is not None:
                due, data = item
                if due > loop.time():
                    await asyncio.sleep(due - loop.time())
                if not link.stalled:
                    sink.write(data)
                    await sink.drain()

        sender = asyncio.create_task(deliver())
        try:
            while data := await source.read(65536):
                if not link.stalled:
                    queue.put_nowait((loop.time() + self.latency, data))
        except OSError:
            pass
        finally:
            queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await sender
            link.close()


async def _discard(reader: asyncio.StreamReader) -> None:
    """Read and drop until the client closes: the black hole's side of a connection."""
    with contextlib.suppress(OSError):
        while await reader.read(65536):
            pass
