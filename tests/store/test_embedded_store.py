"""The contract on the embedded store: fakeredis running the same Lua functions via lupa."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import fakeredis
import pytest

from events.store import open_store
from events.store.factory import embedded_store
from events.store.redis_store import RedisEventStore
from tests.store.contract import MakeStore, StoreContract
from tests.store.drop_contract import DropContract
from tests.store.kv_contract import KeyValueContract
from tests.support.streams import new_stream


@pytest.fixture
async def make_store() -> AsyncIterator[MakeStore]:
    server = fakeredis.FakeServer(version=(7, 0))
    made: list[RedisEventStore] = []

    def make(**kw: Any) -> RedisEventStore:
        store = embedded_store(server, **kw)
        made.append(store)
        return store

    yield make
    for store in made:
        await store.close()


class TestEmbeddedStore(StoreContract):
    pass


class TestEmbeddedDrop(DropContract):
    pass


class TestEmbeddedKeyValue(KeyValueContract):
    pass


async def test_open_store_without_url_is_embedded() -> None:
    store = open_store(None)
    try:
        assert await store.ping()
        s = new_stream()
        assert (await store.append(s, [b"x"], expected_version=0)).version == 1
        assert [e.data for e in await store.read(s)] == [b"x"]
    finally:
        await store.close()
