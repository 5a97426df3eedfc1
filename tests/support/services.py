"""TableService factories: every service gets its own store (its own connection pool, like a
separate process) and the namespace it is given, so tests never see each other's tables on the
shared Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from events.store import open_store
from service.api.app import make_app
from service.api.config import Config
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.redis import fresh_id

Factory = Callable[..., Awaitable[TableService]]

FAST = {"think_seconds": 0.0, "poll_seconds": 0.01}

Client = TestClient[web.Request, web.Application]


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


@asynccontextmanager
async def app_on_service(url: str, config: Config, *, start: bool
                         ) -> AsyncIterator[tuple[Client, TableService, FakeClock]]:
    """The HTTP app in process on a TableService of its own namespace on `url`, with a test
    clock; `start`: the service's workers run (without them, whatever they would do runs only
    where the test runs it)."""
    clock = FakeClock()
    service = TableService(open_store(url), clock=clock, namespace=f"t{fresh_id()}:",
                           think_seconds=0.0, poll_seconds=0.05)
    if start:
        await service.start()
    try:
        async with TestClient(TestServer(make_app(config, tables=service))) as client:
            yield client, service, clock
    finally:
        await service.stop()
        await service.store.close()
