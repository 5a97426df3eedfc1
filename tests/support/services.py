"""TableService factories: every service gets its own store (its own connection pool, like a
separate process) and the namespace it is given, so tests never see each other's tables on the
shared Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from events.store import open_store
from service.tables.service import TableService
from tests.support.clock import FakeClock

Factory = Callable[..., Awaitable[TableService]]

FAST = {"think_seconds": 0.0, "poll_seconds": 0.01}


async def service_factory(url: str | None, namespace: str,
                          clock: FakeClock) -> AsyncIterator[Factory]:
    """Yields `make(**options)`: a TableService on `url` (None: the embedded store), the
    practice bots instant; every one made is stopped and its store closed afterwards."""
    made: list[TableService] = []

    async def make(**options: Any) -> TableService:
        settings = {**FAST, **options}
        service = TableService(open_store(url), clock=clock, namespace=namespace, **settings)
        made.append(service)
        return service

    yield make
    for service in made:
        await service.stop()
        await service.store.close()
