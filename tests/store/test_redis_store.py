"""The contract on the real Redis at REDIS_TEST_URL (the shared server; uuid stream names)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from events.store import open_store
from events.store.factory import open_redis_store
from events.store.redis_store import RedisEventStore
from tests.store.contract import MakeStore, StoreContract
from tests.store.drop_contract import DropContract
from tests.store.kv_contract import KeyValueContract
from tests.support.streams import new_stream

pytestmark = pytest.mark.redis


@pytest.fixture
async def make_store(redis_url: str) -> AsyncIterator[MakeStore]:
    made: list[RedisEventStore] = []

    def make(**kw: Any) -> RedisEventStore:
        store = open_redis_store(redis_url, **kw)
        made.append(store)
        return store

    yield make
    for store in made:
        await store.close()


class TestRedisStore(StoreContract):
    pass


class TestRedisDrop(DropContract):
    pass


class TestRedisKeyValue(KeyValueContract):
    pass


async def test_open_store_with_url_uses_that_redis(redis_url: str) -> None:
    store = open_store(redis_url)
    try:
        s = new_stream()
        await store.append(s, [b"x"], expected_version=0)
        assert isinstance(store, RedisEventStore)
        assert await store.client.xlen(f"svara:{{{s}}}:events") == 1
    finally:
        await store.close()
