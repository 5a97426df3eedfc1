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


async def test_only_streams_in_an_index_shard_carry_index_entries(make_store: MakeStore) -> None:
    """An index entry must live in its stream's slot (one atomic function call), so on a
    Cluster only streams in one of the 64 index slots may carry one; the others are refused
    before anything is written."""
    from events.store.base import IndexOp
    from events.store.keys import cluster_shards, stream_slot

    store = make_store()
    names = [new_stream() for _ in range(2000)]
    indexable = [s for s in names if store.indexable(s)]
    assert all(stream_slot(s) in cluster_shards() for s in indexable)
    assert 0 < len(indexable) < 40  # about 64 / 16384 of them
    other = next(s for s in names if not store.indexable(s))
    with pytest.raises(ValueError):
        await store.append(other, [b"x"], expected_version=0, index=[IndexOp("ix", "m", 1.0)])
    assert await store.version(other) == 0
    assert (await store.append(other, [b"x"], expected_version=0)).status == "appended"
