"""How late the event loop runs what is due: a task that asks to wake every `PERIOD` seconds
and records by how much it overslept (`svara_event_loop_lag_seconds`). A request, a socket's
frame and a timer all wait behind whatever holds the loop (a long callback, a cyclic GC pass
over many objects), so this is the delay every one of them saw on top of its own work."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from aiohttp import web

from service import metrics

PERIOD = 0.1


async def measure(period: float = PERIOD) -> None:
    loop = asyncio.get_running_loop()
    observe = metrics.loop_lag.observe
    while True:
        asked = loop.time()
        await asyncio.sleep(period)
        observe(max(0.0, loop.time() - asked - period))


async def probe(_app: web.Application) -> AsyncIterator[None]:
    """The app's cleanup context: the probe runs while the app serves."""
    task = asyncio.create_task(measure(), name="event-loop-lag")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
