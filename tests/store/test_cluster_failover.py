"""A live subscription across a failover on a real 3-primary Redis Cluster with a replica each.

Two stores play two replicas of the service: one holds a player's subscription, the other
appends (the player's action reached the other replica). The first store sends nothing to the
stream's slot but its blocking XREAD, so only the reader itself can learn that the slot moved.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from events.store.factory import open_redis_store
from events.store.redis_store import RedisEventStore
from tests.support.redis_servers import (
    RedisServer,
    fail_over,
    replica_of,
    slot_owners,
    start_cluster,
)
from tests.support.streams import new_stream, take

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[RedisServer]]:
    base: Path = tmp_path_factory.mktemp("cluster-failover")
    nodes = start_cluster(base, masters=3, replicas=1)
    yield nodes
    for node in nodes:
        node.kill9()


@pytest.fixture
async def two_stores(cluster: list[RedisServer]) -> AsyncIterator[tuple[RedisEventStore, ...]]:
    url = f"redis+cluster://127.0.0.1:{cluster[0].port}"
    stores = (open_redis_store(url, block_ms=1000), open_redis_store(url, block_ms=1000))
    yield stores
    for store in stores:
        await store.close()


async def test_a_subscriber_follows_its_stream_to_the_new_primary(
    cluster: list[RedisServer], two_stores: tuple[RedisEventStore, ...]
) -> None:
    watcher, writer = two_stores
    stream = new_stream()
    await writer.append(stream, [b"before"], expected_version=0)
    live = watcher.subscribe(stream, after=0)
    assert [e.data for e in await take(live, 1)] == [b"before"]

    client: Any = writer.client
    slot = client.keyslot(f"svara:{{{stream}}}:events")
    primary = slot_owners(cluster)[slot]
    await asyncio.to_thread(fail_over, cluster, replica_of(cluster, primary))
    assert slot_owners(cluster)[slot] != primary

    await writer.append(stream, [b"after"], expected_version=1, action_id="after")
    appended = time.monotonic()
    # The reader was unblocked by the demotion and its slot map still names the old primary,
    # which answers MOVED: it must follow the redirection, not back off until the map is
    # refreshed by something else (the event would then arrive seconds late, or never).
    got = await take(live, 1, wait=10.0)
    waited = time.monotonic() - appended
    assert [e.data for e in got] == [b"after"]
    assert waited < 1.5, f"the event reached the subscriber {waited:.2f} s after its append"
    await live.aclose()  # type: ignore[attr-defined]
