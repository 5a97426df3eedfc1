"""Turn timers with several processes and across restarts, on the real Redis."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from typing import Any

import pytest

from events.codec import decode_table_event
from events.store.base import AppendResult, EventStore
from events.table import HandSettled, TimedOut
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.service_play import assert_conserved, make_users, play_hands, seated_table
from tests.support.services import Factory
from tests.support.waiting import eventually

pytestmark = pytest.mark.redis


async def timeouts(service: TableService, table_id: str) -> list[TimedOut]:
    stored = await service.store.read(service.streams.table(table_id))
    return [e for e in map(decode_table_event, (s.data for s in stored)) if isinstance(e, TimedOut)]


class BarrierStore:
    """Holds the first table append of each process until every process has reached it."""

    def __init__(self, inner: EventStore, barrier: asyncio.Barrier, results: list[str]) -> None:
        self.inner = inner
        self.barrier = barrier
        self.results = results
        self.waited = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def append(self, stream: str, events: Sequence[bytes], **kwargs: Any) -> AppendResult:
        if not self.waited and ":table:" in stream:
            self.waited = True
            await asyncio.wait_for(self.barrier.wait(), 5)
            result = await self.inner.append(stream, events, **kwargs)
            self.results.append(result.status)
            return result
        return await self.inner.append(stream, events, **kwargs)


async def test_turn_times_out_exactly_once_with_two_processes(
    services: Factory, clock: FakeClock
) -> None:
    first, second = await services(), await services()
    users = make_users(2)
    table_id = await seated_table(first, users)  # the hand starts at the second seat
    state = (await first.repo.load(table_id)).state
    assert state is not None and state.deadline is not None
    clock.now = state.deadline + 0.001
    # two processes' timers fire at the same deadline and both decide a Tick on the same
    # version before either appends (a barrier holds their appends until both arrive)
    barrier = asyncio.Barrier(2)
    results: list[str] = []
    for service in (first, second):
        service.repo.store = BarrierStore(service.store, barrier, results)  # type: ignore[assignment]
    await asyncio.gather(first.driver.fire(table_id), second.driver.fire(table_id))
    assert sorted(results) == ["appended", "duplicate"]
    assert len(await timeouts(first, table_id)) == 1
    for service in (first, second):
        service.repo.store = service.store

    # the same with both workers running on their own: each asks the wake index what is due
    await first.start()
    await second.start()
    state = (await first.repo.load(table_id)).state
    assert state is not None and state.deadline is not None
    wake = await first.store.index_due(first.streams.wake, float("inf"))
    assert wake == [(table_id, state.deadline)]
    clock.now = state.deadline + 0.001
    await eventually(lambda: _has_timeout(first, table_id, 2), 5)
    # A second timeout for that deadline could only come from a firing started by a poll or
    # a plan of either worker: once both have polled twice since, and finished what they
    # started, none is left to come.
    await settled_down(first, second)
    assert len(await timeouts(first, table_id)) == 2
    await assert_conserved(first, users, [table_id])


async def settled_down(*services: TableService) -> None:
    """Every worker has polled the wake index twice more and has no firing in flight."""
    marks = [s.driver.polls for s in services]

    async def polled() -> bool:
        return all(s.driver.polls >= m + 2 for s, m in zip(services, marks, strict=True))

    await eventually(polled, 5)
    for service in services:
        await service.driver.drain()


async def _has_timeout(service: TableService, table_id: str, count: int = 1) -> bool:
    return len(await timeouts(service, table_id)) >= count


async def test_restart_rebuilds_timers_and_the_table_continues(
    services: Factory, clock: FakeClock
) -> None:
    before = await services()
    users = make_users(3)
    table_id = await seated_table(before, users)
    await before.start()
    await before.stop()  # the process goes away mid-hand
    after = await services()  # a new process: no cache, no plans
    await after.start()
    state = (await after.repo.load(table_id)).state
    assert state is not None and state.deadline is not None
    clock.now = state.deadline + 0.001
    await eventually(lambda: _has_timeout(after, table_id), 5)
    await after.stop()
    await play_hands(after, clock, table_id, users, hands=2)


async def test_next_hand_starts_after_the_pause(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    await service.start()

    async def settled() -> bool:
        loaded = await service.repo.load(table_id)
        return loaded.state is not None and loaded.state.phase == "settled"

    async def second_hand() -> bool:
        loaded = await service.repo.load(table_id)
        return loaded.state is not None and loaded.state.hand_number == 2

    state = (await service.repo.load(table_id)).state
    assert state is not None and state.deadline is not None
    clock.now = state.deadline + 0.001  # the first turn times out
    await eventually(lambda: _has_timeout(service, table_id), 5)
    for _ in range(10):  # then whoever is on turn folds
        if await settled():
            break
        turn = (await service.view(None, table_id))["hand"]["turn"]
        seats = {u.id: (await service.view(u, table_id))["you"]["seat"] for u in users}
        on_turn = next(u for u in users if seats[u.id] == turn)
        await service.act(on_turn, table_id, action_id=uuid.uuid4().hex, type="fold")
    await eventually(settled, 5)
    state = (await service.repo.load(table_id)).state
    assert state is not None and state.next_hand_at is not None
    await settled_down(service)  # it has looked at what is due, with the clock before the end
    assert not await second_hand()  # the pause is respected
    clock.now = state.next_hand_at
    await eventually(second_hand, 5)
    stored = await service.store.read(service.streams.table(table_id))
    settled_events = [
        e for e in map(decode_table_event, (s.data for s in stored)) if isinstance(e, HandSettled)
    ]
    assert len(settled_events) == 1
    await assert_conserved(service, users, [table_id])
