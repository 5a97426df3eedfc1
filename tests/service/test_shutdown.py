"""`TableService.stop()` returns even when a worker's cancellation is swallowed.

The bug: on Python 3.11 `asyncio.wait_for` (fakeredis awaits every reply through it) returns
the reply instead of raising when a cancel lands just as the reply is ready. The reconciler
only obeyed cancellation, so it finished its pass, went back to sleep, and stop() awaited it
forever. The fix is a stop flag the reconciler sleeps on.
"""

from __future__ import annotations

import asyncio
import contextlib
import random

from service.tables.facade import User
from service.tables.service import TableService
from tests.support.services import Factory


async def _stops_within(service: TableService, seconds: float) -> None:
    # asyncio.wait, not asyncio.timeout: a timeout works by cancelling stop(), and the bug
    # is precisely cancellations going missing.
    stopping = asyncio.create_task(service.stop())
    done, _ = await asyncio.wait({stopping}, timeout=seconds)
    assert done, "stop() did not return"
    await stopping


async def test_stop_returns_when_the_reconciler_swallows_its_cancellation(
    embedded: Factory,
) -> None:
    service = await embedded(reconcile_seconds=3600.0)
    entered = asyncio.Event()
    # The reconciler worker's own pass (`lifecycle.Workers.reconcile`), not the façade's.
    real = service.workers.reconcile

    async def swallowing(*, until: asyncio.Event | None = None) -> int:
        entered.set()
        # What the 3.11 wait_for does when the reply is already there:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0.05)
        return await real(until=until)

    service.workers.reconcile = swallowing  # type: ignore[method-assign]
    await service.start()
    await entered.wait()
    await _stops_within(service, 2.0)


async def test_stop_right_after_start_on_the_embedded_store(embedded: Factory) -> None:
    """The race as it happened: stop while the reconciler's first pass reads fakeredis."""
    for _ in range(15):
        service = await embedded(reconcile_seconds=3600.0)
        for user_id in range(1, 4):
            await service.me(User(id=user_id, name="p"))
        await service.start()
        await asyncio.sleep(random.random() * 0.003)
        await _stops_within(service, 2.0)
