"""The indexes beside the streams, through the service on the real Redis:
the lobby pages through open tables only, the wake index holds exactly the tables that need
the timer worker, idle tables close, transfers in flight are marked, and every index can be
rebuilt from the streams."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from events.store.base import IndexOp
from service.game.settings import TableSettings
from service.game.state import IDLE_CLOSE_SECONDS
from service.tables.directory import TableListed, WalletOpened, encode_entry
from service.tables.facade import ServiceError
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.service_play import assert_conserved, make_users, seated_table
from tests.support.services import Factory
from tests.support.waiting import eventually

pytestmark = pytest.mark.redis

SETTINGS = TableSettings(ante=10, max_seats=3, turn_seconds=30, next_hand_seconds=3)


async def lobby(service: TableService, limit: int = 50) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = await service.list_tables(limit=limit, cursor=cursor)
        assert len(page["tables"]) <= limit
        rows += page["tables"]
        cursor = page["next"]
        if cursor is None:
            return rows


async def wake(service: TableService) -> dict[str, float]:
    return dict(await service.store.index_due(service.streams.wake, float("inf")))


async def test_the_lobby_lists_open_tables_in_pages_with_their_summary(
    services: Factory, clock: FakeClock
) -> None:
    service = await services()
    users = make_users(3)
    tables = [await service.create_table(users[0], SETTINGS) for _ in range(7)]
    playing = await seated_table(service, users[:2], SETTINGS)
    rows = await lobby(service, limit=3)
    assert [r["table_id"] for r in rows] == [playing, *sorted(tables)]  # live first
    row = next(r for r in rows if r["table_id"] == playing)
    assert row == {
        "table_id": playing, "ante": 10, "max_seats": 3, "seated": 2, "seats_free": 1,
        "phase": "blind", "created_by": users[0].id, "turn_seconds": 30,
        "min_buy_in": 100, "max_buy_in": 1000, "host": users[0].name, "practice": False,
        "bet_unit": 10, "status": "live", "name": None, "host_name": users[0].name,
        "players": [{"seat": i, "user_id": u.id, "name": u.name, "photo_url": None}
                    for i, u in enumerate(users[:2])],
    }
    assert {(r["phase"], r["status"]) for r in rows if r["table_id"] != playing} == {
        ("waiting", "empty")}
    with pytest.raises(ServiceError) as bad:
        await service.list_tables(limit=0)
    assert bad.value.status == 400
    with pytest.raises(ServiceError):
        await service.list_tables(cursor="not a cursor!")


async def test_the_wake_index_holds_what_the_timer_worker_must_do(
    services: Factory, clock: FakeClock
) -> None:
    service = await services()
    users = make_users(3)
    empty = await service.create_table(users[0], SETTINGS)
    waiting = await service.create_table(users[0], SETTINGS)
    await service.seat(users[2], waiting, 200)  # one player: nothing to wait for
    playing = await seated_table(service, users[:2], SETTINGS)
    state = (await service.repo.load(playing)).state
    assert state is not None and state.deadline is not None
    assert await wake(service) == {empty: clock() + IDLE_CLOSE_SECONDS, playing: state.deadline}
    assert await service.store.index_due(service.streams.wake, clock()) == []


async def test_an_empty_table_closes_after_a_day_and_leaves_every_index(
    services: Factory, clock: FakeClock
) -> None:
    first, second = await services(), await services()
    users = make_users(2)
    table_id = await first.create_table(users[0], SETTINGS)
    await first.seat(users[0], table_id, 200)
    clock.advance(3600)
    await first.leave(users[0], table_id)
    left_at = clock()
    await second.start()  # another replica's worker closes it: it never saw the table
    clock.now = left_at + IDLE_CLOSE_SECONDS - 1
    polls = second.driver.polls
    await eventually(lambda: _polled(second, polls + 2))
    assert [r["table_id"] for r in await lobby(first)] == [table_id]  # not a second early
    clock.now = left_at + IDLE_CLOSE_SECONDS

    async def closed() -> bool:
        return (await first.view(None, table_id))["phase"] == "closed"

    await eventually(closed)
    assert await lobby(first) == [] and await wake(first) == {}
    with pytest.raises(ServiceError) as refused:
        await first.seat(users[1], table_id, 200)
    assert (refused.value.status, refused.value.code) == (409, "table_closed")
    assert (await first.me(users[1]))["balance"] == 1000
    await assert_conserved(first, users, [table_id])


async def _polled(service: TableService, count: int) -> bool:
    return service.driver.polls >= count


async def test_transfers_in_flight_are_marked_and_the_reconciler_reads_only_those(
    services: Factory, clock: FakeClock
) -> None:
    service = await services()
    users = make_users(4)
    table_id = await seated_table(service, users[:2], SETTINGS)
    await service.leave(users[1], table_id)
    await service.me(users[3])  # a wallet with nothing in flight
    assert await service.store.marked(service.streams.transfers) == []  # finished: unmarked
    await service.me(users[2])
    transfer_id = await service.transfers.reserve(users[2], table_id, 300)  # then "crash"
    marks = await service.store.marked(service.streams.transfers)
    assert [m for m, _ in marks] == [f"{users[2].id}:{transfer_id}"]
    read: list[int] = []
    original = service.bank.load

    async def counting_load(user_id: int) -> Any:
        read.append(user_id)
        return await original(user_id)

    service.bank.load = counting_load  # type: ignore[method-assign]
    assert await service.reconcile() == 0  # too early to release
    assert set(read) == {users[2].id}  # not every wallet ever opened: the marked one
    clock.advance(121)
    assert await service.reconcile() == 1
    assert await service.store.marked(service.streams.transfers) == []
    assert (await service.me(users[2]))["balance"] == 1000
    await assert_conserved(service, users, [table_id])


async def test_a_mark_whose_transfer_never_started_is_dropped_after_ttl_and_grace(
    services: Factory, clock: FakeClock
) -> None:
    service = await services()
    [user] = make_users(1)
    await service.me(user)
    await service.store.mark(service.streams.transfers, f"{user.id}:never", clock())
    await service.reconcile()
    assert len(await service.store.marked(service.streams.transfers)) == 1
    clock.advance(121)
    await service.reconcile()
    assert await service.store.marked(service.streams.transfers) == []


async def test_a_deployment_from_before_the_indexes_is_indexed_once_at_start(
    services: Factory, clock: FakeClock
) -> None:
    """Tables and wallets listed only in the old directory streams (what the code before the
    indexes wrote) get their index entries and marks when a service starts."""
    old = await services()
    users = make_users(3)
    tables = [await old.create_table(users[0], SETTINGS) for _ in range(3)]
    playing = await seated_table(old, users[:2], SETTINGS)
    await old.me(users[2])
    transfer_id = await old.transfers.reserve(users[2], playing, 200)  # in flight
    client: Any = old.store.client
    await client.delete(*[k async for k in client.scan_iter(
        match=f"svara:{{#ix*}}:ix:{old.streams.namespace}*")])
    await old.store.unmark(old.streams.transfers, f"{users[2].id}:{transfer_id}")
    assert await lobby(old) == [] and await wake(old) == {}
    for i, table_id in enumerate([*tables, playing]):  # what the old code had written
        entry = encode_entry(TableListed(table_id=table_id, created_by=users[0].id))
        await old.store.append(old.streams.tables, [entry], expected_version=i)
    for i, user in enumerate(users):
        entry = encode_entry(WalletOpened(user_id=user.id))
        await old.store.append(old.streams.wallets, [entry], expected_version=i)

    new = await services()
    assert await new.ensure_indexes() == 5  # four tables, one wallet with a transfer
    assert [r["table_id"] for r in await lobby(new)] == [playing, *sorted(tables)]
    assert set(await wake(new)) == {*tables, playing}
    assert [m for m, _ in await new.store.marked(new.streams.transfers)] == [
        f"{users[2].id}:{transfer_id}"]
    assert await new.ensure_indexes() == 0  # once per namespace


async def test_lost_indexes_are_rebuilt_from_the_streams(
    services: Factory, clock: FakeClock
) -> None:
    service = await services()
    users = make_users(3)
    tables = [await service.create_table(users[0], SETTINGS) for _ in range(4)]
    playing = await seated_table(service, users[:2], SETTINGS)
    closed = await service.create_table(users[0], SETTINGS)
    clock.advance(IDLE_CLOSE_SECONDS)
    await service.driver.fire(closed)
    clock.advance(-IDLE_CLOSE_SECONDS)
    await service.me(users[2])
    transfer_id = await service.transfers.reserve(users[2], playing, 200)
    before = (await lobby(service), await wake(service),
              await service.store.marked(service.streams.transfers))
    assert closed not in {r["table_id"] for r in before[0]}
    client: Any = service.store.client
    index_keys = [k async for k in client.scan_iter(
        match=f"svara:{{#ix*}}:ix:{service.streams.namespace}*")]
    await client.delete(*index_keys, f"svara:{{#mk:{service.streams.transfers}}}:z")
    assert await lobby(service) == []
    # a stale entry too: a rebuild corrects what is there as well as what is missing
    await service.store.set_index(service.streams.table(closed), expected_version=(
        await service.store.version(service.streams.table(closed))),
        changes=[IndexOp(service.streams.wake, closed, 1.0)])
    assert await service.rebuild_indexes() == 7  # six tables and one wallet
    after = (await lobby(service), await wake(service),
             await service.store.marked(service.streams.transfers))
    assert after[0] == before[0] and after[1] == before[1]
    assert [m for m, _ in after[2]] == [f"{users[2].id}:{transfer_id}"]
    assert {r["table_id"] for r in after[0]} == {*tables, playing}


async def test_the_wake_entry_follows_every_action_of_two_replicas(
    services: Factory, clock: FakeClock
) -> None:
    """Whoever acts (a look keeps the deadline and writes no wake change; a bet moves it), the
    wake entry is the table's deadline after every action, on either replica."""
    import random
    import uuid

    from service.tables import bots

    first, second = await services(), await services()
    users = make_users(3)
    table_id = await seated_table(first, users, SETTINGS)
    rng = random.Random(5)
    looks = 0
    for step in range(120):
        service = (first, second)[step % 3 == 0]
        for user in users:
            choice = bots.choose(await service.view(user, table_id), rng)
            if choice is not None:
                looks += choice[0] == "look"
                await service.act(user, table_id, action_id=uuid.uuid4().hex, type=choice[0],
                                  amount=choice[1])
                break
        else:
            state = (await service.repo.load(table_id)).state
            assert state is not None and state.deadline is not None
            clock.now = max(clock.now, state.deadline)
            await service.driver.fire(table_id)
        state = (await first.repo.load(table_id)).state
        assert state is not None
        expected = {} if state.deadline is None else {table_id: state.deadline}
        assert await wake(first) == expected, step
    assert looks > 5


async def test_svara_reindex_rebuilds_a_deployment_from_the_command_line(
    services: Factory, clock: FakeClock, redis_url: str
) -> None:
    import os
    import sys

    service = await services()
    users = make_users(2)
    tables = [await service.create_table(users[0], SETTINGS) for _ in range(3)]
    before = await lobby(service)
    client: Any = service.store.client
    await client.delete(*[k async for k in client.scan_iter(
        match=f"svara:{{#ix*}}:ix:{service.streams.namespace}*")])
    assert await lobby(service) == []
    env = {**os.environ, "REDIS_URL": redis_url,
           "SVARA_NAMESPACE": service.streams.namespace.rstrip(":")}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "service.cli", "reindex", env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, out
    assert b"indexed 3 tables and wallets" in out
    assert await lobby(service) == before and {r["table_id"] for r in before} == set(tables)
