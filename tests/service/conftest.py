"""Fixtures for the service tests: a controllable clock and TableService factories.

Every service gets its own store (its own connection pool, like a separate process) and a
namespace unique to the test, so tests never see each other's tables on the shared Redis.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from events.store import open_store
from service.tables.service import TableService

START = 1_800_000_000.0


class FakeClock:
    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


Factory = Callable[..., Awaitable[TableService]]

FAST = {"think_seconds": 0.0, "poll_seconds": 0.01}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


async def _factory(url: str | None, namespace: str, clock: FakeClock) -> AsyncIterator[Factory]:
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


@pytest.fixture
async def services(redis_url: str, unique: str, clock: FakeClock) -> AsyncIterator[Factory]:
    """TableServices on the real Redis, all in one test-unique namespace."""
    async for make in _factory(redis_url, f"t{unique}:", clock):
        yield make


@pytest.fixture
async def embedded(unique: str, clock: FakeClock) -> AsyncIterator[Factory]:
    """TableServices on the embedded store (fakeredis): for fast unit tests."""
    async for make in _factory(None, f"t{unique}:", clock):
        yield make
