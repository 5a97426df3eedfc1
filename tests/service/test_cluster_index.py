"""The indexes and the timer worker through the service on a real 3-primary Redis Cluster: table
ids land in the index slots (spread over every primary), the lobby pages across the shards in
its order (live tables first), deadlines fire from the wake index, idle tables close (after the
limit recorded by the replica that created them), marks find transfers in flight, and a rebuild
scans every primary."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import pytest

from events.codec import decode_table_event
from events.store.keys import cluster_shards, stream_slot
from events.table import TimedOut
from service.game.settings import TableSettings
from service.game.state import IDLE_CLOSE_SECONDS
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.redis_servers import RedisServer, start_cluster
from tests.support.service_play import assert_conserved, make_users, seated_table
from tests.support.services import service_factory
from tests.support.waiting import eventually

pytestmark = [pytest.mark.redis, pytest.mark.slow]

SETTINGS = TableSettings(ante=10, max_seats=4, turn_seconds=30)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[RedisServer]]:
    nodes = start_cluster(tmp_path_factory.mktemp("svc-cluster"), masters=3)
    yield nodes
    for node in nodes:
        node.kill9()


@pytest.fixture
async def make(
    cluster: list[RedisServer], clock: FakeClock, unique: str
) -> AsyncIterator[Callable[..., Awaitable[TableService]]]:
    url = f"redis+cluster://127.0.0.1:{cluster[0].port}"
    async for new in service_factory(url, f"c{unique}:", clock):
        yield new


async def test_the_service_runs_on_the_cluster_indexes(
    make: Callable[..., Awaitable[TableService]], clock: FakeClock
) -> None:
    first, second = await make(), await make()
    users = make_users(3)
    tables = [await first.create_table(users[0], SETTINGS) for _ in range(30)]
    client: Any = first.store.client
    slots = {stream_slot(first.streams.table(t)) for t in tables}
    assert slots <= set(cluster_shards())
    nodes = {client.get_node_from_key(f"svara:{{{first.streams.table(t)}}}:events").port
             for t in tables}
    assert len(nodes) == 3  # the tables spread over every primary

    rows: list[str] = []
    cursor = None
    while True:
        page = await second.list_tables(limit=7, cursor=cursor)
        rows += [r["table_id"] for r in page["tables"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert rows == sorted(tables)

    playing = await seated_table(first, users[:2], SETTINGS)
    state = (await first.repo.load(playing)).state
    assert state is not None and state.deadline is not None
    await second.start()  # only the replica that did not seat them runs a worker
    clock.now = state.deadline + 0.001

    async def timed_out() -> bool:
        stored = await first.store.read(first.streams.table(playing))
        return any(isinstance(decode_table_event(e.data), TimedOut) for e in stored)

    await eventually(timed_out, 15)

    clock.now += IDLE_CLOSE_SECONDS  # every table nobody sat at closes

    async def all_closed() -> bool:
        page = await first.list_tables(limit=200)
        return [r["table_id"] for r in page["tables"]] == [playing]

    await eventually(all_closed, 15)
    await second.stop()
    await assert_conserved(first, users, [playing])


async def test_marks_and_rebuilds_work_across_the_primaries(
    make: Callable[..., Awaitable[TableService]], clock: FakeClock
) -> None:
    service = await make()
    users = make_users(3)
    tables = [await service.create_table(users[0], SETTINGS) for _ in range(12)]
    playing = await seated_table(service, users[:2], SETTINGS)
    await service.me(users[2])
    transfer_id = await service.transfers.reserve(users[2], playing, 200)  # then "crash"
    assert [m for m, _ in await service.store.marked(service.streams.transfers)] == [
        f"{users[2].id}:{transfer_id}"]
    before = await service.list_tables(limit=200)
    client: Any = service.store.client
    for node in client.get_primaries():
        keys = [k async for k in client.scan_iter(
            match=f"svara:{{#ix*}}:ix:{service.streams.namespace}*", target_nodes=node)]
        for key in keys:
            await client.delete(key)
    assert (await service.list_tables())["tables"] == []
    assert await service.rebuild_indexes() == 13 + 1  # thirteen tables, one wallet
    assert await service.list_tables(limit=200) == before
    assert {r["table_id"] for r in before["tables"]} == {*tables, playing}
    clock.advance(121)
    assert await service.reconcile() == 1
    assert await service.store.marked(service.streams.transfers) == []
    await assert_conserved(service, users, [playing])


async def test_the_lobby_order_and_the_idle_limit_hold_across_the_shards(
    make: Callable[..., Awaitable[TableService]], clock: FakeClock
) -> None:
    first = await make(idle_close_seconds=1)
    second = await make()  # another replica, its own setting (none: a day)
    users = make_users(6)
    empty = [await first.create_table(users[5], SETTINGS) for _ in range(24)]
    live = [await seated_table(first, users[2 * i : 2 * i + 2], SETTINGS) for i in range(2)]
    waiting = await seated_table(first, users[4:5], SETTINGS)
    client: Any = first.store.client
    nodes = {client.get_node_from_key(f"svara:{{{first.streams.table(t)}}}:events").port
             for t in [*empty, *live, waiting]}
    assert len(nodes) == 3  # the lobby's rows spread over every primary

    walked: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = await second.list_tables(limit=5, cursor=cursor)
        walked += page["tables"]
        cursor = page["next"]
        if cursor is None:
            break
    assert [r["table_id"] for r in walked] == [*sorted(live), waiting, *sorted(empty)]
    assert [r["status"] for r in walked[:3]] == ["live", "live", "waiting"]

    await second.start()  # the other replica's worker closes the empty tables after 1 s
    clock.advance(1)

    async def only_seated_left() -> bool:
        page = await first.list_tables(limit=200)
        return [r["table_id"] for r in page["tables"]] == [*sorted(live), waiting]

    await eventually(only_seated_left, 15)
    assert (await first.view(None, waiting))["phase"] == "waiting"
    await second.stop()
