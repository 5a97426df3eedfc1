"""The lobby's order on the real Redis: what a player would join comes first (a hand on and a
free seat, then players waiting for company, then full tables, empty ones last), paging walks
every open table once, and an empty table closes after the deployment's idle limit.

The thousand abandoned tables are made through the service's own `create_table`, many at
once (one append each, as in production): the ranks and the order are the real code's."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import msgspec
import pytest

from events.codec import decode_table_event
from events.store import open_store
from events.store.base import IndexOp
from events.table import TableClosed
from service.game.settings import TableSettings
from service.tables.index import (
    EMPTY,
    FULL,
    LIVE,
    WAITING,
    lobby_removals,
    rank_of,
    summary_of,
)
from service.tables.lobby import unranked_tables
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.service_play import make_users, seated_table
from tests.support.services import FAST, Factory
from tests.support.tablekit import Table
from tests.support.waiting import eventually

pytestmark = pytest.mark.redis

SETTINGS = TableSettings(ante=10, max_seats=3, turn_seconds=30, next_hand_seconds=3)
ABANDONED = 1000


async def walk(service: TableService, limit: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = await service.list_tables(limit=limit, cursor=cursor)
        assert len(page["tables"]) <= limit
        rows += page["tables"]
        cursor = page["next"]
        if cursor is None:
            return rows


async def many(count: int, make: Callable[[int], Awaitable[str]]) -> list[str]:
    limit = asyncio.Semaphore(64)

    async def one(i: int) -> str:
        async with limit:
            return await make(i)

    return list(await asyncio.gather(*(one(i) for i in range(count))))


def test_a_table_ranks_by_what_a_player_would_find_there() -> None:
    """Live while a hand is on or the next one is coming (and a seat is free), waiting while
    the seated cannot start one, full, empty -- as the table moves through them."""
    a, b, c = 11, 12, 13
    t = Table(ante=1, max_seats=3, next_hand_seconds=5)
    assert rank_of(t.s) == EMPTY
    t.sit(a)
    assert rank_of(t.s) == WAITING
    t.sit(b)
    assert t.s.phase == "blind" and rank_of(t.s) == LIVE
    t.act(b, "pass")
    t.act(b, "fold")
    assert t.s.phase == "settled" and t.s.can_start_hand() and rank_of(t.s) == LIVE
    t.sit(c)
    assert rank_of(t.s) == FULL
    t.leave(c)
    t.leave(a)
    assert t.s.phase == "settled" and rank_of(t.s) == WAITING  # one left: nobody to play
    t.leave(b)
    assert rank_of(t.s) == EMPTY


async def test_the_first_page_lists_the_live_tables_then_the_waiting_ones(
    services: Factory, clock: FakeClock
) -> None:
    service = await services()
    users = make_users(40)
    host = users[0]
    abandoned = await many(ABANDONED - 20, lambda _: service.create_table(host, SETTINGS))

    async def played_and_left(i: int) -> str:  # a hand was played, then both went away
        pair = users[2 * i : 2 * i + 2]
        table_id = await seated_table(service, pair, SETTINGS)
        for user in pair:
            await service.leave(user, table_id)
        return table_id

    abandoned += await many(20, played_and_left)
    live = await many(10, lambda i: seated_table(service, users[2 * i : 2 * i + 2], SETTINGS))
    waiting = await many(3, lambda i: seated_table(service, [users[20 + i]], SETTINGS))
    full = await seated_table(service, users[30:33], SETTINGS)

    first = await service.list_tables()
    assert len(first["tables"]) == 50 and first["next"] is not None
    ids = [r["table_id"] for r in first["tables"]]
    assert set(ids[:10]) == set(live)  # every live table, before anything else
    assert set(ids[10:13]) == set(waiting)
    assert ids[13] == full
    assert set(ids[14:]) <= set(abandoned)
    assert {r["status"] for r in first["tables"][:10]} == {"live"}
    assert {r["phase"] for r in first["tables"][:10]} == {"blind"}
    assert all(r["seats_free"] == 1 for r in first["tables"][:10])
    assert [r["status"] for r in first["tables"][10:14]] == ["waiting"] * 3 + ["full"]
    assert {(r["seated"], r["status"]) for r in first["tables"][14:]} == {(0, "empty")}

    rows = await walk(service, 50)
    walked = [r["table_id"] for r in rows]
    assert len(walked) == len(set(walked)) == ABANDONED + 14  # each open table once
    assert set(walked) == {*abandoned, *live, *waiting, full}
    assert walked[:50] == ids
    assert walked[14:] == sorted(abandoned)  # within a rank: table-id order


async def test_paging_lists_each_table_where_it_stands_when_its_page_is_read(
    services: Factory, clock: FakeClock
) -> None:
    """The guarantee `service.tables.lobby` states: tables that keep their rank are listed
    once; one that moves ahead of the cursor is listed again at its new place; one that moves
    behind it before the walk reached it is not listed by this walk (the next walk has it)."""
    service = await services()
    users = make_users(6)
    tables = sorted([await service.create_table(users[5], SETTINGS) for _ in range(14)])
    live = [tables[5], tables[9]]  # ids after tables[0], the first empty one
    for i, table_id in enumerate(live):
        for user in users[2 * i : 2 * i + 2]:
            await service.seat(user, table_id, 200)
    empty = [t for t in tables if t not in live]

    page = await service.list_tables(limit=3)
    seen = [r["table_id"] for r in page["tables"]]
    assert seen == [*live, empty[0]]
    cursor = page["next"]
    # Meanwhile: a listed live table is left by both players (empty now: ahead of the cursor),
    # an empty table not reached yet gets a player (waiting: behind the cursor), a table opens.
    moved_ahead = live[0]
    for user in users[:2]:
        await service.leave(user, moved_ahead)
    moved_behind = empty[-1]
    await service.seat(users[4], moved_behind, 200)
    opened = await service.create_table(users[5], SETTINGS)

    rest: list[dict[str, Any]] = []
    while cursor is not None:
        page = await service.list_tables(limit=4, cursor=cursor)
        rest += page["tables"]
        cursor = page["next"]
    later = [r["table_id"] for r in rest]
    assert len(later) == len(set(later))
    unmoved = empty[1:-1]
    assert [t for t in later if t in unmoved] == unmoved  # the rest: once each, in order
    assert moved_ahead in later  # again, at its new place, as it is now
    assert next(r for r in rest if r["table_id"] == moved_ahead)["status"] == "empty"
    assert moved_behind not in later
    # A table opened during the walk is listed iff its place is after the cursor it met.
    assert (opened in later) == (opened > empty[0])
    assert set(later) <= {*unmoved, moved_ahead, opened}

    again = [r["table_id"] for r in await walk(service, 4)]  # the next walk: all, once
    assert sorted(again) == sorted([*tables, opened])
    assert again[:2] == [live[1], moved_behind]  # live, then waiting


@pytest.fixture
async def replicas(
    redis_url: str, unique: str
) -> AsyncIterator[Callable[..., Awaitable[TableService]]]:
    """Services on the real clock (the idle limit is waited for, not jumped over)."""
    made: list[TableService] = []

    async def make(**options: Any) -> TableService:
        service = TableService(open_store(redis_url), namespace=f"idle{unique}:",
                               **{**FAST, **options})
        made.append(service)
        return service

    yield make
    for service in made:
        await service.stop()
        await service.store.close()


async def test_an_empty_table_closes_after_the_idle_limit_and_a_seated_one_does_not(
    replicas: Callable[..., Awaitable[TableService]],
) -> None:
    """The creating replica's limit (1 s) is recorded in the table: another replica's worker,
    set to the day, closes it after 1 s all the same."""
    creator = await replicas(idle_close_seconds=1)
    worker = await replicas()  # its own setting: none (a day)
    users = make_users(2)
    created_at = time.time()
    empty = await creator.create_table(users[0], SETTINGS)
    seated = await creator.create_table(users[0], SETTINGS)
    await creator.seat(users[1], seated, 200)
    left = await creator.create_table(users[0], SETTINGS)
    await creator.seat(users[0], left, 200)
    await creator.leave(users[0], left)  # empty again: the limit counts from here
    await worker.start()

    async def closed(table_id: str) -> bool:
        return (await creator.view(None, table_id))["phase"] == "closed"

    await eventually(lambda: closed(empty), 15)
    await eventually(lambda: closed(left), 15)
    assert time.time() - created_at >= 1.0
    stored = await creator.store.read(creator.streams.table(empty))
    assert decode_table_event(stored[-1].data) == TableClosed(reason="idle", idle_seconds=1.0)
    polls = worker.driver.polls
    await eventually(lambda: _polled(worker, polls + 3), 15)  # the worker looked again since
    assert not await closed(seated)
    assert [r["table_id"] for r in await walk(creator, 50)] == [seated]
    due = dict(await creator.store.index_due(creator.streams.wake, float("inf")))
    assert seated not in due  # one player waiting: no idle clock at all


async def _polled(service: TableService, count: int) -> bool:
    return service.driver.polls >= count


async def test_a_lobby_indexed_before_ranks_is_ranked_once_at_start(
    services: Factory, clock: FakeClock
) -> None:
    """The v1 lobby kept each table under its bare id: a service of this code ranks those
    entries once (`ensure_indexes`), and pages through a half-ranked lobby meanwhile."""
    old = await services()
    users = make_users(3)
    empty = [await old.create_table(users[2], SETTINGS) for _ in range(4)]
    live = await seated_table(old, users[:2], SETTINGS)
    for table_id in [*empty, live]:  # rewrite each entry as the v1 code wrote it
        loaded = await old.repo.load(table_id)
        assert loaded.state is not None
        summary = msgspec.json.encode(summary_of(loaded.state))
        v1 = [*lobby_removals(old.streams.lobby, table_id),
              IndexOp(old.streams.lobby, table_id, 0.0, summary)]
        stream = old.streams.table(table_id)
        assert await old.store.set_index(stream, expected_version=loaded.version, changes=v1)
    await old.store.mark(old.streams.index_meta, "v1", clock())
    assert sorted(await unranked_tables(old.store, old.streams.lobby)) == sorted([*empty, live])
    half = [r["table_id"] for r in await walk(old, 1)]  # bare cursors page on too
    assert sorted(half) == sorted([*empty, live])

    new = await services()
    assert await new.ensure_indexes() == 5
    assert await unranked_tables(new.store, new.streams.lobby) == []
    assert [r["table_id"] for r in await walk(new, 2)] == [live, *sorted(empty)]
    assert await new.ensure_indexes() == 0  # once per namespace
