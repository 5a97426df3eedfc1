"""Deadlines that fall inside a Redis outage, on a private redis-server that is
stopped across the deadline and started again (same port, same AOF): the turn times out, or
the next hand starts, once the store answers again -- with one replica, two, and two where the
one that planned the deadline is gone."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from events.codec import decode_table_event
from events.table import TimedOut
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.redis_servers import RedisServer, free_port
from tests.support.service_play import (
    SETTINGS,
    assert_conserved,
    make_users,
    play_hands,
    seated_table,
)
from tests.support.services import service_factory
from tests.support.waiting import eventually

pytestmark = [pytest.mark.redis, pytest.mark.slow]

Make = Callable[[], Awaitable[TableService]]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    srv = RedisServer(tmp_path / "redis", free_port(), "--appendonly", "yes").start()
    yield srv
    srv.kill9()


@pytest.fixture
async def replicas(
    server: RedisServer, clock: FakeClock, unique: str
) -> AsyncIterator[Make]:
    async for make in service_factory(server.url, f"o{unique}:", clock):
        yield make


async def timeouts(service: TableService, table_id: str) -> int:
    stored = await service.store.read(service.streams.table(table_id))
    return sum(isinstance(decode_table_event(s.data), TimedOut) for s in stored)


def attempts(service: TableService) -> tuple[int, int]:
    return service.driver.fired, getattr(service.driver, "poll_failures", 0)


async def every_replica_tried(services: list[TableService], since: list[tuple[int, int]]) -> bool:
    """Since the deadline passed, each replica has tried to fire it, or failed to read what
    is due: the outage has hidden the deadline from every one of them."""
    return all(
        now[0] > before[0] or now[1] > before[1]
        for now, before in zip(map(attempts, services), since, strict=True)
    )


@pytest.mark.parametrize("setup", ["one replica", "two replicas", "two, the planner gone"])
async def test_a_turn_deadline_inside_an_outage_fires_after_it(
    server: RedisServer, replicas: Make, clock: FakeClock, setup: str
) -> None:
    services = [await replicas() for _ in range(1 if setup == "one replica" else 2)]
    users = make_users(2)
    table_id = await seated_table(services[0], users)  # the hand starts: a turn deadline
    state = (await services[0].repo.load(table_id)).state
    assert state is not None and state.deadline is not None
    for service in services:
        await service.start()
    server.stop()
    clock.now = state.deadline + 0.001  # the deadline passes while Redis is down
    since = [attempts(s) for s in services]
    await eventually(lambda: every_replica_tried(services, since), 20)
    if setup == "two, the planner gone":
        await services[0].stop()  # only the replica that never saw the table is left
        services = services[1:]
    server.start()
    await eventually(lambda: _timed_out(services[0], table_id), 20)
    for service in services:
        await service.stop()
    assert await timeouts(services[0], table_id) == 1
    await assert_conserved(services[0], users, [table_id])


async def _timed_out(service: TableService, table_id: str) -> bool:
    try:
        return await timeouts(service, table_id) >= 1
    except Exception:
        return False  # the store is still coming back


@pytest.mark.parametrize("setup", ["one replica", "two replicas"])
async def test_the_next_hand_starts_after_an_outage_over_its_start(
    server: RedisServer, replicas: Make, clock: FakeClock, setup: str
) -> None:
    services = [await replicas() for _ in range(1 if setup == "one replica" else 2)]
    users = make_users(2)
    table_id = await seated_table(services[0], users, SETTINGS)
    await play_hands(services[0], clock, table_id, users, hands=1)
    state = (await services[0].repo.load(table_id)).state
    assert state is not None and state.phase == "settled" and state.next_hand_at is not None
    for service in services:
        await service.start()
    server.stop()
    clock.now = state.next_hand_at + 0.001
    since = [attempts(s) for s in services]
    await eventually(lambda: every_replica_tried(services, since), 20)
    server.start()

    async def second_hand() -> bool:
        try:
            loaded = await services[-1].repo.load(table_id)
        except Exception:
            return False
        return loaded.state is not None and loaded.state.hand_number == 2

    await eventually(second_hand, 20)
    for service in services:
        await service.stop()
    await assert_conserved(services[0], users, [table_id])
