"""Fixtures of the service tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from service.tables.stats.counters import Counters


@pytest.fixture
async def counters(redis_url: str, unique: str) -> AsyncIterator[Counters]:
    """The stats counters of a namespace of their own, on the test Redis."""
    client = aioredis.Redis.from_url(redis_url)
    yield Counters(client, f"t{unique}:")
    await client.aclose()
