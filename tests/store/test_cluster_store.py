"""The contract on a real 3-primary Redis Cluster started for this session.

Passing it proves the keys share a slot per stream and every key a function touches is in
KEYS (a cluster rejects anything else with CROSSSLOT), and that the per-slot readers work.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

from events.store.factory import open_redis_store
from events.store.redis_store import TAG, RedisEventStore
from tests.store.contract import MakeStore, StoreContract, new_stream
from tests.store.kv_contract import KeyValueContract
from tests.store.servers import RedisServer, start_cluster

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[RedisServer]]:
    base: Path = tmp_path_factory.mktemp("cluster")
    nodes = start_cluster(base, masters=3)
    yield nodes
    for node in nodes:
        node.kill9()


@pytest.fixture
async def make_store(cluster: list[RedisServer]) -> AsyncIterator[MakeStore]:
    made: list[RedisEventStore] = []
    url = f"redis+cluster://127.0.0.1:{cluster[0].port}"

    def make(**kw: Any) -> RedisEventStore:
        store = open_redis_store(url, **kw)
        made.append(store)
        return store

    yield make
    for store in made:
        await store.close()


class TestClusterStore(StoreContract):
    pass


class TestClusterKeyValue(KeyValueContract):
    pass


async def test_streams_spread_over_all_primaries(make_store: MakeStore) -> None:
    """Not a degenerate cluster: our tables really land on different nodes."""
    store = make_store()
    nodes = set()
    for _ in range(30):
        s = new_stream()
        await store.append(s, [b"x"], expected_version=0)
        client: Any = store.client
        node = client.get_node_from_key(f"svara:{{{s}}}:events")
        nodes.add(node.port)
    assert len(nodes) == 3


async def test_function_library_is_on_every_primary(
    make_store: MakeStore, cluster: list[RedisServer]
) -> None:
    store = make_store()
    await store.append(new_stream(), [b"x"], expected_version=0)
    for node in cluster:
        client = Redis(port=node.port)
        try:
            assert len(await client.function_list(library=f"svara_events_{TAG}")) == 1
        finally:
            await client.aclose()
