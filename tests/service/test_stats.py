"""The stats projection on real Redis: after random hands at several tables (one bound to a
group, one with a practice bot) every player's figures (all time and the last 7 days, read
at three times) and every board equal a recount from the events alone; a rebuild gives the
same; racing projectors and a repeated apply count each hand once."""

from __future__ import annotations

import asyncio
import os
import random
import sys
from typing import Any

import pytest

from events import table as ev
from events.codec import decode_table_event
from events.store.base import StoreUnavailable
from service.game.settings import TableSettings
from service.tables.facade import ServiceError, User
from service.tables.service import TableService
from service.tables.stats.projector import due_index
from tests.service.stats_recount import (
    Recount,
    figures_json,
    last_7_days,
    ranking,
    recount,
    week_of,
)
from tests.support.clock import FakeClock
from tests.support.service_play import make_users, play_hands
from tests.support.services import Factory

GROUP = -1001234567890
SETTINGS = TableSettings(ante=5, max_seats=4, turn_seconds=30, next_hand_seconds=3)


async def _logs(service: TableService, tables: list[str]) -> Recount:
    return recount([await service.store.read(service.streams.table(t)) for t in tables])


async def _assert_matches(service: TableService, expected: Recount, users: list[int]) -> None:
    now_week = week_of(service.clock())
    for user in users:
        if user not in expected.all:
            try:
                await service.player_stats(user)
            except ServiceError as error:
                assert (error.status, error.code) == (404, "unknown_player")
            else:
                raise AssertionError(f"player {user} has stats but played no counted hand")
            continue
        got = await service.player_stats(user)
        assert got["all"] == figures_json(expected.all[user]), user
        recent = figures_json(last_7_days(expected, user, service.clock()))
        assert got["last_7_days"] == recent, user
        assert got["week"] == recent, user  # the deprecated alias
        assert got["name"] == expected.names[user]
    for period, group in (("all", None), ("week", None), ("all", GROUP), ("week", GROUP)):
        key = ("all" if period == "all" else now_week, group)
        want = ranking(expected.boards.get(key, {}))
        for you in users[:2]:
            board = await service.leaderboard(period, group, you)
            assert [(e["user_id"], e["net"]) for e in board["entries"]] == want[:50]
            assert [e["rank"] for e in board["entries"]] == list(range(1, len(want) + 1))
            mine = [i for i, (u, _) in enumerate(want) if u == you]
            assert board["you"] == ({"rank": mine[0] + 1, "net": want[mine[0]][1]}
                                    if mine else None)


async def _assert_matches_over_time(service: TableService, clock: FakeClock,
                                    expected: Recount, users: list[int]) -> None:
    """As `_assert_matches` read now, 4 days back (a window that still holds the first
    table's days as well as the second's) and 8 days on (no counted day in it)."""
    now = clock.now
    try:
        for shift in (0, -4 * 86400, 8 * 86400):
            clock.now = now + shift
            await _assert_matches(service, expected, users)
    finally:
        clock.now = now


async def _play(services: Factory, clock: FakeClock, hands: int) -> tuple[
        TableService, list[str], list[int]]:  # fmt: skip
    service = await services(starting_grant=100_000)
    users = make_users(6)
    rng = random.Random(11)
    plain = await service.create_table(users[0], SETTINGS)
    grouped = await service.create_table(users[2], SETTINGS, group_chat_id=GROUP)
    practice = await service.create_table(users[5], SETTINGS)
    bot = User(id=await service.add_practice_bot(practice, 0, SETTINGS), name="Bot Ana")
    seatings = {plain: users[0:3], grouped: users[1:5], practice: [users[5], bot]}
    for table_id, seated in seatings.items():
        for user in seated[:-1] if table_id == practice else seated:
            await service.seat(user, table_id, 500)
    # the bot plays through the same path as the humans here (the worker is not started)
    for table_id, seated in seatings.items():
        for target in range(5, (hands if table_id != practice else 5) + 1, 5):
            for user in seated:  # a broke player buys in again, so that the table plays on
                _, state = await service.state(table_id)
                mine = state.seat_by_user(user.id) if state is not None else None
                if mine is not None and mine.stack < SETTINGS.ante:
                    await service.rebuy(user, table_id, 500)
            await play_hands(service, clock, table_id, seated, target, rng=rng,
                             conserve=False)
        clock.advance(3 * 86400)  # the next table plays in later days (a new week, too)
    return service, list(seatings), [u.id for u in users]


async def test_stats_and_boards_equal_a_recount_and_a_rebuild(
    services: Factory, clock: FakeClock, redis_url: str
) -> None:
    service, tables, users = await _play(services, clock, 100)
    await service.stats.projector.catch_up_due()
    expected = await _logs(service, tables)
    assert expected.all, "no counted hand"
    assert users[5] not in expected.all  # only played with a bot
    assert sum(f.svaras for f in expected.all.values()) > 0, "no svara in the sample"
    # the last 7 days hold part of it: the first table played 9 days ago, the second 6
    recent = {u: last_7_days(expected, u, clock.now).hands for u in expected.all}
    assert any(0 < recent[u] < f.hands for u, f in expected.all.items()), recent
    assert any(recent[u] == 0 for u in expected.all), recent
    await _assert_matches_over_time(service, clock, expected, users)
    assert not await service.store.index_due(due_index(service.streams.namespace), 1e300)
    # rebuilt from the streams alone by `svara reindex --stats`: the same figures, the old
    # generation gone (its keys damaged first: the rebuild must not read them)
    old = await service.stats.counters.generation()
    client = service.stats.counters.client
    glob = service.stats.counters.keys.generation_glob(old)
    await client.hset(service.stats.counters.keys.player(old, users[0]), "hands", 999)
    env = {**os.environ, "REDIS_URL": redis_url,
           "SVARA_NAMESPACE": service.streams.namespace.rstrip(":")}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "service.cli", "reindex", "--stats", env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode == 0, out
    assert b"counted the hands of 3 tables" in out, out
    assert await service.stats.counters.generation() != old
    await _assert_matches_over_time(service, clock, expected, users)
    assert [k async for k in client.scan_iter(match=glob)] == []


async def test_racing_projectors_count_each_hand_once(
    services: Factory, clock: FakeClock
) -> None:
    service, tables, users = await _play(services, clock, 25)
    # first a replica that dies with the reply of its third apply (the script ran): what it
    # applied stays applied, once
    dying = await services()
    real_apply, calls = dying.stats.counters.apply, []

    async def apply_then_die(*args: Any, **kwargs: Any) -> int:
        status = await real_apply(*args, **kwargs)
        calls.append(status)
        if len(calls) == 3:
            raise StoreUnavailable("the connection died with the reply")
        return status

    dying.stats.counters.apply = apply_then_die  # type: ignore[method-assign]
    with pytest.raises(StoreUnavailable):
        await dying.stats.projector.catch_up_due()
    assert calls == [1, 1, 1]
    others = [await services() for _ in range(3)]  # replicas, each with its own store
    projectors = [s.stats.projector for s in [service, *others]]
    await asyncio.gather(*(p.catch_up_due() for p in projectors),
                         *(p.catch_up(t) for p in projectors[1:] for t in tables))
    settled = 0
    for t in tables:
        log = await service.store.read(service.streams.table(t))
        settled += sum(decode_table_event(e.data).__class__ is ev.HandSettled for e in log)
    # each hand applied by one of them (the dying one's third counted itself out)
    assert sum(p.applied for p in projectors) + len(calls) == settled
    expected = await _logs(service, tables)
    await _assert_matches(service, expected, users)
    # a process that died after applying but before dropping its due members: again, no more
    before = service.stats.projector.applied
    for t in tables:
        assert await service.stats.projector.catch_up(t) == 0
    assert service.stats.projector.applied == before
    await _assert_matches(service, expected, users)
