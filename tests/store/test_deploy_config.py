"""deploy/redis.conf really starts a Redis that keeps events: AOF on, no eviction."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis.asyncio as aioredis

from events.store.factory import open_redis_store
from tests.support.redis_servers import RedisServer, free_port
from tests.support.streams import new_stream

pytestmark = [pytest.mark.redis, pytest.mark.slow]

CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "redis.conf"


async def test_shipped_config_persists_events(tmp_path: Path) -> None:
    # Same file, but on a free local port and a temp dir instead of the container's /data.
    server = RedisServer(tmp_path, free_port(), config=CONFIG)
    server.start()
    try:
        client = aioredis.Redis.from_url(server.url, decode_responses=True)
        try:
            conf = await client.config_get("*")
        finally:
            await client.aclose()
        assert conf["appendonly"] == "yes"
        assert conf["appendfsync"] == "everysec"
        assert conf["maxmemory-policy"] == "noeviction"
        store = open_redis_store(server.url)
        s = new_stream()
        await store.append(s, [b"kept"], expected_version=0)
        await store.close()
        server.kill9()
        server.start()
        store = open_redis_store(server.url)
        assert [e.data for e in await store.read(s)] == [b"kept"]
        await store.close()
    finally:
        server.kill9()
