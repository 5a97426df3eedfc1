"""`subscribe(views=True)`: each item's view is the caller's view of the fold up to that item's
version (so a client needs no GET per event), and the process's feed keeps its cached state
current with appends made by *another* process (the trail folds every delivered event once)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from events.codec import decode_table_event
from service.game.decider import fold
from service.game.view import view as table_view
from service.tables.facade import JSON
from service.tables.service import LazyView, TableService
from tests.service.conftest import Factory, FakeClock
from tests.service.helpers import make_users, play_hands, seated_table

pytestmark = pytest.mark.redis


async def _collect(feed: Any, into: list[JSON], arrived: asyncio.Event) -> None:
    async for item in feed:
        into.append(item)
        arrived.set()


async def test_feed_views_match_the_fold_at_each_version(
    services: Factory, clock: FakeClock
) -> None:
    writer = await services()  # another process: its appends reach `reader` only via Redis
    reader = await services()
    users = make_users(3)
    table_id = await seated_table(writer, users)
    start = (await reader.view(users[0], table_id))["version"]
    got: dict[int, list[JSON]] = {u.id: [] for u in users}
    arrived = asyncio.Event()
    tasks = [
        asyncio.create_task(
            _collect(reader.subscribe(u, table_id, start, views=True), got[u.id], arrived)
        )
        for u in users
    ]
    try:
        await play_hands(writer, clock, table_id, users, hands=2)
        version = await writer.store.version(writer.streams.table(table_id))
        async with asyncio.timeout(10):
            while any(not items or items[-1]["version"] < version for items in got.values()):
                arrived.clear()
                await arrived.wait()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    stored = await writer.store.read(writer.streams.table(table_id))
    events = [decode_table_event(e.data) for e in stored]
    for user in users:
        items = got[user.id]
        assert [i["version"] for i in items] == list(range(start + 1, version + 1))
        for item in items:  # live events: every one carries the view at its version
            lazy = item["view"]
            assert isinstance(lazy, LazyView)
            v = item["version"]
            assert lazy() == table_view(fold(events[:v]), user.id, v)
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
    items: list[JSON] = []
    feed = reader.subscribe(users[1], table_id, 0, views=True)
    async with asyncio.timeout(10):
        async for item in feed:
            items.append(item)
            if item["version"] == version:
                break
    await feed.aclose()
    assert "view" in items[-1]
    assert items[-1]["view"]() == await reader.view(users[1], table_id)
