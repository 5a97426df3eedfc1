"""`watch(views=True)`, the feed behind the sockets: the newest event of every delivery carries
the caller's view of the fold up to its version (so a client needs no GET per event), and the
process's feed keeps its cached state current with appends made by *another* process (the
trail folds every delivered event once)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import msgspec
import pytest

from events.codec import decode_table_event
from service.game.decider import fold
from service.game.view import view as table_view
from service.tables.facade import JSON, FeedItem
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.service_play import make_users, play_hands, seated_table
from tests.support.services import Factory

pytestmark = pytest.mark.redis


class ViewSink:
    """What a socket that opted into views gets: each delivery's versions, and the view the
    writer asks for (the newest item's), decoded; None where the feed had no state at hand."""

    def __init__(self, viewer: int) -> None:
        self.viewer = viewer
        self.deliveries: list[tuple[list[int], JSON | None]] = []
        self.arrived = asyncio.Event()

    def deliver(self, items: Sequence[FeedItem]) -> None:
        view = items[-1].view_json(self.viewer)
        self.deliveries.append(
            ([i.version for i in items], None if view is None else msgspec.json.decode(view))
        )
        self.arrived.set()

    async def drained(self) -> None:
        await asyncio.sleep(0)

    @property
    def versions(self) -> list[int]:
        return [v for versions, _ in self.deliveries for v in versions]

    async def until(self, version: int) -> None:
        async with asyncio.timeout(10):
            while not self.versions or self.versions[-1] < version:
                self.arrived.clear()
                await self.arrived.wait()


async def test_feed_views_match_the_fold_at_each_version(
    services: Factory, clock: FakeClock
) -> None:
    writer = await services()  # another process: its appends reach `reader` only via Redis
    reader = await services()
    users = make_users(3)
    table_id = await seated_table(writer, users)
    start = (await reader.view(users[0], table_id))["version"]
    sinks = {u.id: ViewSink(u.id) for u in users}
    tasks = [
        asyncio.create_task(reader.watch(u, table_id, start, sinks[u.id], views=True))
        for u in users
    ]
    try:
        await play_hands(writer, clock, table_id, users, hands=2)
        version = await writer.store.version(writer.streams.table(table_id))
        for sink in sinks.values():
            await sink.until(version)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    stored = await writer.store.read(writer.streams.table(table_id))
    events = [decode_table_event(e.data) for e in stored]
    for user in users:
        sink = sinks[user.id]
        assert sink.versions == list(range(start + 1, version + 1))
        for versions, view in sink.deliveries:  # live: every delivery carries its view
            v = versions[-1]
            assert view == table_view(fold(events[:v]), user.id, v)
    # the reader never appended, yet its cache followed the feed to the latest version
    cached = reader.repo.cached(table_id)
    assert cached is not None and cached.version == version
    assert cached.state == fold(events)


async def test_catch_up_from_before_the_trail_carries_the_newest_view(
    services: Factory, clock: FakeClock
) -> None:
    writer = await services()
    users = make_users(2)
    table_id = await seated_table(writer, users)
    await play_hands(writer, clock, table_id, users, hands=1)
    version = await writer.store.version(writer.streams.table(table_id))
    reader: TableService = await services()
    sink = ViewSink(users[1].id)
    task = asyncio.create_task(reader.watch(users[1], table_id, 0, sink, views=True))
    try:
        await sink.until(version)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert sink.versions == list(range(1, version + 1))
    versions, view = sink.deliveries[-1]
    assert versions[-1] == version
    assert view == await reader.view(users[1], table_id)
