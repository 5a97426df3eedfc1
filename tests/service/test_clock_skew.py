"""Two replicas whose clocks disagree by 4 s (one 2 s ahead of true time, one 2 s behind),
sharing one real Redis (a redis-server of the test's own, AOF on), with real time passing and
nobody acting, so every turn ends by its timer.

Every turn deadline fires once -- never twice, whichever replica sees it due first -- and, in
true time, no earlier than the deadline written in the table's events minus the larger offset
(the replica ahead fires when its clock reads the deadline) and no later than the deadline
plus that offset and the timer's lag. Then the replica ahead stops and the one behind fires the
next deadlines: late by its offset, never twice. deploy/README.md "Clock skew" states what this
asks of NTP."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from events.codec import decode_table_event
from events.store import open_store
from events.store.base import EventStore
from events.table import TimedOut, TurnDeadlineSet, TurnHandover
from service.game.settings import TableSettings
from service.tables.service import TableService
from tests.support.redis_servers import RedisServer, free_port
from tests.support.service_play import make_users

pytestmark = [pytest.mark.redis, pytest.mark.slow]

SKEW = 2.0  # each replica's offset from true time
LAG = 1.0  # the timer's own lateness allowed on a shared, loaded machine
SETTINGS = TableSettings(ante=10, max_seats=6, turn_seconds=5, next_hand_seconds=3)


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    server = RedisServer(tmp_path / "redis", free_port(), "--appendonly", "yes").start()
    yield server.url
    server.kill9()


@pytest.fixture
async def stores(redis_url: str) -> AsyncIterator[list[EventStore]]:
    made = [open_store(redis_url) for _ in range(3)]
    yield made
    for store in made:
        await store.close()


def offset(seconds: float) -> Callable[[], float]:
    def clock() -> float:
        return time.time() + seconds

    return clock


async def test_every_deadline_fires_once_within_the_skew(stores: list[EventStore]) -> None:
    ahead = TableService(stores[0], clock=offset(+SKEW), namespace="skew:", poll_seconds=0.1)
    behind = TableService(stores[1], clock=offset(-SKEW), namespace="skew:", poll_seconds=0.1)
    watcher = stores[2]
    users = make_users(3)
    # The table is made and filled through the replica behind, so the first deadlines are
    # written by its clock (4 s behind the one that fires them); later ones by the other's.
    table_id = await behind.create_table(users[0], SETTINGS)
    stream = behind.streams.table(table_id)
    arrived: dict[int, float] = {}  # version -> true time the watcher saw it

    async def watch() -> None:
        async for stored in watcher.subscribe(stream, 0):
            arrived[stored.version] = time.time()

    watching = asyncio.create_task(watch())
    try:
        await ahead.start()
        await behind.start()
        for user in users:
            await behind.seat(user, table_id, 200)

        async def timeouts(at_least: int) -> None:
            while True:  # polled: the timers fire in the services' own tasks
                events = await watcher.read(stream)
                got = [e for e in events if isinstance(decode_table_event(e.data), TimedOut)]
                if len(got) >= at_least and all(e.version in arrived for e in events):
                    return
                await asyncio.sleep(0.05)

        await asyncio.wait_for(timeouts(2), 20)
        await ahead.stop()  # now only the replica behind fires
        fired_ahead = len([e for e in await watcher.read(stream)
                           if isinstance(decode_table_event(e.data), TimedOut)])
        await asyncio.wait_for(timeouts(fired_ahead + 1), 20)
        await behind.stop()

        deadline: float | None = None
        answered: set[float] = set()
        early: list[float] = []
        late: list[float] = []
        for stored in await watcher.read(stream):
            event = decode_table_event(stored.data)
            if isinstance(event, TimedOut):
                assert deadline is not None, stored
                assert deadline not in answered, ("a deadline fired twice", stored.version)
                answered.add(deadline)
                seen = arrived[stored.version]
                early.append(deadline - seen)
                late.append(seen - deadline)
            if isinstance(event, TurnDeadlineSet | TurnHandover) and event.deadline is not None:
                deadline = event.deadline
        print(f"fired {len(answered)} deadlines; early by at most {max(early):.2f} s, "
              f"late by at most {max(late):.2f} s (skew ±{SKEW} s)")
        assert len(answered) >= fired_ahead + 1
        assert max(early) <= SKEW + 1e-6, early  # (float rounding of the offset)
        assert max(late) <= SKEW + LAG, late
    finally:
        watching.cancel()
        await asyncio.gather(watching, return_exceptions=True)
        await ahead.stop()
        await behind.stop()
