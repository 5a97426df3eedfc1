"""Shared fixtures. Tests marked `redis` use the real server at REDIS_TEST_URL.

A missing Redis is a test *failure*, never a silent skip: the suite's point is to prove the
store and service against real Redis. Set SVARA_ALLOW_NO_REDIS=1 to skip those tests instead
(for a laptop without Redis; CI never sets it).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

REDIS_TEST_URL = os.environ.get("REDIS_TEST_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture
def unique() -> str:
    """A fresh id for keys/tables so tests never collide (the test Redis is shared)."""
    return uuid.uuid4().hex[:12]


@pytest.fixture
async def redis_url() -> AsyncIterator[str]:
    client = aioredis.Redis.from_url(REDIS_TEST_URL)
    try:
        await client.ping()
    except Exception as exc:  # pragma: no cover - depends on the machine
        if os.environ.get("SVARA_ALLOW_NO_REDIS") == "1":
            pytest.skip(f"no Redis at {REDIS_TEST_URL}: {exc}")
        pytest.fail(
            f"Redis is required at {REDIS_TEST_URL} ({exc}). Start it with: "
            'redis-server --daemonize yes --port 6379 --save "" --appendonly no'
        )
    finally:
        await client.aclose()
    yield REDIS_TEST_URL
