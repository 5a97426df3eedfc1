"""Shared fixtures. Tests marked `redis` use the real server at REDIS_TEST_URL (under xdist,
each worker its own database of it: tests/support/redis.py).

A missing Redis is a test *failure*, never a silent skip: the suite's point is to prove the
store and service against real Redis. Set SVARA_ALLOW_NO_REDIS=1 to skip those tests instead
(for a laptop without Redis; CI never sets it).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis
from xdist.remote import Producer

from tests.support import xdist
from tests.support.clock import FakeClock
from tests.support.redis import (
    HANDED_OUT,
    REDIS_TEST_URL,
    RUN_MARK,
    delete_containing,
    delete_matching,
    fresh_id,
)
from tests.support.services import Factory, service_factory


@pytest.fixture(scope="session", autouse=True)
def _delete_what_the_run_made() -> Iterator[None]:
    """At the end of this process's run, the keys that carry its RUN_MARK (streams, indexes,
    servers' namespaces made without a test's `unique` id) go from the shared Redis, and so do
    the keys with a test's `unique` id that a service wrote after that test's cleanup (a
    projection catching up while its service closed)."""
    yield

    async def sweep() -> None:
        await delete_matching(REDIS_TEST_URL, f"*{RUN_MARK}*")
        await delete_containing(REDIS_TEST_URL, HANDED_OUT)

    # (a session's teardown runs after the tests' event loops have stopped: a loop of its own)
    asyncio.run(sweep())


@pytest.fixture
def unique() -> str:
    """A fresh id for keys/tables so tests never collide (the test Redis is shared)."""
    return fresh_id()


@pytest.fixture
async def redis_url(unique: str) -> AsyncIterator[str]:
    """The real Redis of the tests; afterwards every key with the test's `unique` id in it
    (its namespaces, streams, key-value names) is deleted: the server is shared."""
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
    await delete_matching(REDIS_TEST_URL, f"*{unique}*")


@pytest.fixture
def clock() -> FakeClock:
    """A clock the test moves by hand (tests/support/clock.py)."""
    return FakeClock()


@pytest.fixture
async def services(redis_url: str, unique: str, clock: FakeClock) -> AsyncIterator[Factory]:
    """TableServices on the real Redis, all in one test-unique namespace."""
    async for make in service_factory(redis_url, f"t{unique}:", clock):
        yield make


@pytest.fixture
async def embedded(unique: str, clock: FakeClock) -> AsyncIterator[Factory]:
    """TableServices on the embedded store (fakeredis): for fast unit tests."""
    async for make in service_factory(None, f"t{unique}:", clock):
        yield make


def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> xdist.Scheduling:
    return xdist.Scheduling(config, log)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[object]:
    with xdist.turn(item):
        return (yield)
