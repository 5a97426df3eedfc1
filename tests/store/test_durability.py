"""Crashes and outages on a private redis-server (port 7000-7099, its own temp dir)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from events.store.base import StoreUnavailable
from events.store.factory import open_redis_store
from events.store.redis_store import LIBRARY_CODE, TAG, RedisEventStore
from tests.store.contract import new_stream, take
from tests.store.servers import RedisServer, free_port

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    srv = RedisServer(
        tmp_path / "redis", free_port(), "--appendonly", "yes", "--appendfsync", "always"
    ).start()
    yield srv
    srv.kill9()


@pytest.fixture
async def store(server: RedisServer) -> AsyncIterator[RedisEventStore]:
    st = open_redis_store(server.url, block_ms=500)
    yield st
    await st.close()


async def library_loaded(url: str) -> bool:
    client = aioredis.Redis.from_url(url)
    try:
        libs = await client.function_list(library=f"svara_events_{TAG}")
        return len(libs) == 1
    finally:
        await client.aclose()


async def test_acknowledged_events_survive_kill_9_with_fsync_always(server: RedisServer) -> None:
    writer = open_redis_store(server.url)
    s = new_stream()
    acked: dict[int, bytes] = {}
    version = 0
    enough = asyncio.Event()

    async def keep_appending() -> None:
        nonlocal version
        n = 0
        while True:
            n += 1
            batch = [f"e{n}.{k}".encode() for k in range(1 + n % 3)]
            try:
                result = await writer.append(s, batch, expected_version=version, action_id=f"a{n}")
            except StoreUnavailable:
                return
            assert result.status == "appended"
            for k, data in enumerate(batch):
                acked[version + 1 + k] = data
            version = result.version
            if len(acked) >= 300:
                enough.set()

    task = asyncio.create_task(keep_appending())
    await asyncio.wait_for(enough.wait(), 10)
    server.kill9()  # mid-append: the writer is still going
    await asyncio.wait_for(task, 10)
    await writer.close()
    assert len(acked) >= 300

    server.start()  # same port, same dir: AOF replay
    assert await library_loaded(server.url)  # functions are persisted too
    reader = open_redis_store(server.url)
    try:
        events = await reader.read(s)
        stored = {e.version: e.data for e in events}
        assert all(stored.get(v) == data for v, data in acked.items())
        assert await reader.verify(s) == len(events) >= len(acked)
        # The stream continues where it stopped.
        more = await reader.append(s, [b"after restart"], expected_version=len(events))
        assert more.status == "appended"
    finally:
        await reader.close()


async def test_functions_survive_script_flush_and_reload_after_function_flush(
    server: RedisServer, store: RedisEventStore
) -> None:
    s = new_stream()
    await store.append(s, [b"1"], expected_version=0)
    admin = aioredis.Redis.from_url(server.url)
    try:
        await admin.script_flush()
        assert await library_loaded(server.url)
        assert (await store.append(s, [b"2"], expected_version=1)).version == 2
        await admin.function_flush()
        assert not await library_loaded(server.url)
        assert (await store.append(s, [b"3"], expected_version=2)).version == 3
        assert await library_loaded(server.url)
        # A second library load by another replica is harmless (same code, same names).
        await admin.function_load(LIBRARY_CODE, replace=True)
        assert await store.verify(s) == 3
    finally:
        await admin.aclose()


async def test_outage_is_a_typed_error_and_the_store_recovers(
    server: RedisServer, store: RedisEventStore
) -> None:
    s = new_stream()
    await store.append(s, [b"1"], expected_version=0)
    server.stop()
    assert not await store.ping()
    with pytest.raises(StoreUnavailable):
        await store.append(s, [b"2"], expected_version=1)
    with pytest.raises(StoreUnavailable):
        await store.read(s)
    with pytest.raises(StoreUnavailable):
        await store.version(s)
    server.start()
    assert await store.ping()
    assert (await store.append(s, [b"2"], expected_version=1)).version == 2


async def test_unreachable_url_is_a_typed_error() -> None:
    store = open_redis_store(f"redis://127.0.0.1:{free_port()}/0")
    try:
        started = time.monotonic()
        with pytest.raises(StoreUnavailable):
            await store.append(new_stream(), [b"x"], expected_version=0)
        with pytest.raises(StoreUnavailable):
            await store.read(new_stream())
        assert time.monotonic() - started < 5
    finally:
        await store.close()


async def test_live_subscription_survives_a_restart(
    server: RedisServer, store: RedisEventStore
) -> None:
    s = new_stream()
    it = store.subscribe(s, after=0)
    await store.append(s, [b"1"], expected_version=0)
    assert [e.version for e in await take(it, 1)] == [1]
    server.kill9()
    server.start()
    writer = open_redis_store(server.url)
    try:
        await writer.append(s, [b"2", b"3"], expected_version=1)
        assert [e.version for e in await take(it, 2, wait=10)] == [2, 3]
    finally:
        await writer.close()
        await it.aclose()  # type: ignore[attr-defined]
