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

from events.store.base import StoreUnavailable
from events.store.factory import open_redis_store
from events.store.redis_store import TAG, RedisEventStore
from tests.store.contract import MakeStore, StoreContract
from tests.store.drop_contract import DropContract
from tests.store.kv_contract import KeyValueContract
from tests.support.redis_servers import RedisServer, start_cluster
from tests.support.streams import new_stream

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


class TestClusterDrop(DropContract):
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


async def test_an_append_is_one_round_trip_to_its_primary(
    make_store: MakeStore, cluster: list[RedisServer]
) -> None:
    """FCALL goes straight to the slot's primary. redis-py on its own asks a node
    `COMMAND GETKEYS` before every FCALL (movable keys): a second round trip per append, to a
    node that after a failover may be the demoted primary (the append then failed with 503)."""

    async def getkeys_calls() -> int:
        total = 0
        for node in cluster:
            client = Redis(port=node.port)
            try:
                stats = await client.info("commandstats")
            finally:
                await client.aclose()
            total += int(stats.get("cmdstat_command|getkeys", {}).get("calls", 0))
        return total

    store = make_store()
    stream = new_stream()
    await store.append(stream, [b"first"], expected_version=0, action_id="a0")  # warm up
    before = await getkeys_calls()
    for version in range(1, 21):
        await store.append(stream, [b"x"], expected_version=version, action_id=f"a{version}")
    assert await getkeys_calls() == before
    assert await store.version(stream) == 21


async def test_append_with_action_id_rides_out_a_dropped_connection(
    make_store: MakeStore,
) -> None:
    """A failover closes the old primary's connections. An append with an action_id is tried
    once more (the client reads the slot map again; a first attempt that landed would answer
    `duplicate`); without one the caller gets StoreUnavailable and decides."""
    store = make_store()
    stream = new_stream()
    await store.append(stream, [b"one"], expected_version=0, action_id="a1")
    client: Any = store.client
    node = client.get_node_from_key(f"svara:{{{stream}}}:events")

    async def drop_connections() -> None:
        admin = Redis(host=node.host, port=int(node.port))
        try:
            await admin.client_kill_filter(_type="normal", skipme=True)
        finally:
            await admin.aclose()

    await drop_connections()
    result = await store.append(stream, [b"two"], expected_version=1, action_id="a2")
    assert (result.status, result.version) == ("appended", 2)
    await drop_connections()
    with pytest.raises(StoreUnavailable):
        await store.append(stream, [b"three"], expected_version=2)
    assert [e.data for e in await store.read(stream)] == [b"one", b"two"]
