"""Admission control for a reconnect storm (a mobile network dropping thousands of players at
once).

At most `setups` sockets are set up at once (auth to `ready`: a read of the table's version
unless this process follows it, and a presence write), and at most `farewells` closed sockets
are torn down at once (their feed left, their presence cleared), in the background. The rest
wait in line, so the store's connection pool and the event loop keep room for the players'
actions: 2,000 sockets dropping at once otherwise tear down in one turn of the event loop, in
front of every action.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from aiohttp import web


class Gates:
    def __init__(self, setups: int, farewells: int = 8) -> None:
        self.setups = asyncio.Semaphore(setups)
        self.farewells = asyncio.Semaphore(farewells)
        self.pending: set[asyncio.Task[None]] = set()

    def farewell(self, goodbye: Callable[[], Awaitable[None]]) -> None:
        """Run a closed socket's `goodbye` in line, in the background."""
        task = asyncio.create_task(self._farewell(goodbye))
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    async def _farewell(self, goodbye: Callable[[], Awaitable[None]]) -> None:
        async with self.farewells:
            await goodbye()


GATES: web.AppKey[Gates] = web.AppKey("ws_gates", Gates)
