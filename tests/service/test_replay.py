"""Replays of settled hands through the service (real Redis): steps are the hand's events,
each step's view is what the live view said at that version, per viewer; the hands index
finds a hand without reading the rest of the log; my hands lists each settled hand once."""

from __future__ import annotations

import asyncio
import random
import uuid
from typing import Any

import pytest

from service.tables import bots
from service.tables.facade import ServiceError, User
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.service_play import make_users, seated_table
from tests.support.services import Factory


async def play_recording(
    service: TableService, clock: FakeClock, table_id: str, users: list[User], hands: int,
    *, seed: int = 7, leave_in_hand: User | None = None,
) -> dict[int, dict[int, Any]]:
    """Play until hand `hands` settles, recording every user's live view (GET view) at every
    version the table passes through: {user_id: {version: view}}."""
    rng = random.Random(seed)
    seen: dict[int, dict[int, Any]] = {u.id: {} for u in users}
    left = False

    async def record() -> None:
        for u in users:
            v = await service.view(u, table_id)
            seen[u.id][v["version"]] = v

    for _ in range(3000):
        await record()
        state = (await service.repo.load(table_id)).state
        assert state is not None
        if state.hand is not None and state.hand.number >= hands and state.phase == "settled":
            return seen
        if (leave_in_hand is not None and not left and state.hand is not None
                and state.hand.number == hands and state.hand.phase == "betting"):
            left = True
            await service.leave(leave_in_hand, table_id)
            continue
        for user in users:
            choice = bots.choose(await service.view(user, table_id), rng)
            if choice is not None:
                kind, amount = choice
                await service.act(user, table_id, action_id=uuid.uuid4().hex, type=kind,
                                  amount=amount)
                break
        else:
            deadline = state.deadline
            assert deadline is not None
            clock.now = max(clock.now, deadline)
            await service.driver.fire(table_id)
    raise AssertionError("did not settle")


async def test_replay_steps_are_the_hands_events_and_the_live_views(
    services: Factory, clock: FakeClock
) -> None:
    service = await services()
    users = make_users(3)
    table_id = await seated_table(service, users)
    seen = await play_recording(service, clock, table_id, users, 3)
    for hand in (1, 2, 3):
        audit = await service.audit(table_id, hand)
        for user in users:
            replay = await service.replay(user, table_id, hand)
            assert replay["hand"] == hand and replay["table_id"] == table_id
            steps = replay["steps"]
            assert [(s["version"], s["hash"], s["event"]["type"]) for s in steps] == [
                (e["version"], e["hash"], e["type"]) for e in audit["events"]
            ]
            recorded = 0
            for step in steps:
                live = seen[user.id].get(step["version"])
                if live is not None:
                    recorded += 1
                    assert step["view"] == live
            assert recorded >= 2  # at least the start and the settlement were seen live


async def test_replay_refuses_unknown_and_unsettled(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    await play_recording(service, clock, table_id, users, 1)
    with pytest.raises(ServiceError) as e:
        await service.replay(users[0], table_id, 9)
    assert (e.value.status, e.value.code) == (404, "unknown_hand")
    with pytest.raises(ServiceError) as e:
        await service.replay(users[0], "nosuchtable", 1)
    assert (e.value.status, e.value.code) == (404, "unknown_table")
    clock.advance(10)
    await service.driver.fire(table_id)  # deals hand 2
    state = (await service.repo.load(table_id)).state
    assert state is not None and state.hand is not None and state.hand.number == 2
    with pytest.raises(ServiceError) as e:
        await service.replay(users[0], table_id, 2)
    assert (e.value.status, e.value.code) == (409, "hand_in_progress")


async def test_my_hands_lists_each_settled_hand_once_newest_first(
    services: Factory, clock: FakeClock
) -> None:
    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    await play_recording(service, clock, table_id, users, 3)
    page = await service.my_hands(users[0], None, 2)
    assert [h["hand"] for h in page["hands"]] == [3, 2]
    rest = await service.my_hands(users[0], page["next"], 10)
    assert [h["hand"] for h in rest["hands"]] == [1] and rest["next"] is None
    nets = [h["won"] for h in page["hands"] + rest["hands"]]
    other = await service.my_hands(users[1], None, 10)
    # two players, no rake: what one wins the other loses
    assert [a + b for a, b in zip(nets, [h["won"] for h in other["hands"]], strict=True)] == [
        0, 0, 0]
    view = await service.view(users[0], table_id)
    stack = next(s["stack"] for s in view["seats"] if s["user_id"] == users[0].id)
    assert sum(nets) == stack - 200


async def test_reindex_rebuilds_the_hand_entries(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    await play_recording(service, clock, table_id, users, 2)
    before = await service.my_hands(users[0], None, 10)
    replay = await service.replay(users[0], table_id, 2)
    redis: Any = service.store.client  # type: ignore[attr-defined]
    keys = [k async for k in redis.scan_iter(match=f"*{service.streams.namespace}*hands:*")]
    assert keys
    await redis.delete(*keys)
    assert (await service.my_hands(users[0], None, 10))["hands"] == []
    assert await service.replay(users[0], table_id, 2) == replay  # the slow way, same answer
    await service.rebuild_indexes()
    assert await service.my_hands(users[0], None, 10) == before
    assert await service.replay(users[0], table_id, 2) == replay


async def test_transcript_in_each_language(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    await play_recording(service, clock, table_id, users, 1)
    english = await service.transcript(users[0], table_id, 1)
    print(english)
    assert english.startswith("Svara hand history\n")
    russian = await service.transcript(users[0], table_id, 1, "ru")
    assert russian.startswith("Свара: история раздачи\n") and "банк" in russian
    arabic = await service.transcript(users[0], table_id, 1, "ar")
    assert "الوعاء" in arabic


async def test_a_closed_tables_hands_stay_readable(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    await play_recording(service, clock, table_id, users, 2)
    replay = await service.replay(users[0], table_id, 2)
    for user in users:
        await service.leave(user, table_id)
    clock.advance(86_400 + 60)
    await service.driver.fire(table_id)
    state = (await service.repo.load(table_id)).state
    assert state is not None and state.closed
    assert await service.replay(users[0], table_id, 2) == replay
    assert (await service.transcript(users[1], table_id, 1, "de")).startswith("Svara-Handverlauf")
    mine = await service.my_hands(users[1], None, 10)
    assert [(h["table_id"], h["hand"]) for h in mine["hands"]] == [(table_id, 2), (table_id, 1)]


async def test_two_replicas_record_each_hand_once(services: Factory, clock: FakeClock) -> None:
    """Both replicas fire every deadline at once and take turns with the players' actions:
    each settled hand is in each player's list once (the entry rides on the one append)."""
    one, two = await services(), await services()
    users = make_users(3)
    table_id = await seated_table(one, users)
    rng = random.Random(11)
    for _ in range(2000):
        state = (await one.repo.load(table_id)).state
        assert state is not None
        if state.hand is not None and state.hand.number >= 4 and state.phase == "settled":
            break
        service = one if rng.random() < 0.5 else two
        for user in users:
            choice = bots.choose(await service.view(user, table_id), rng)
            if choice is not None:
                await service.act(user, table_id, action_id=uuid.uuid4().hex, type=choice[0],
                                  amount=choice[1])
                break
        else:
            assert state.deadline is not None
            clock.now = max(clock.now, state.deadline)
            await asyncio.gather(one.driver.fire(table_id), two.driver.fire(table_id))
    dealt: dict[int, list[int]] = {u.id: [] for u in users}
    for n in (4, 3, 2, 1):
        first = (await one.replay(None, table_id, n))["steps"][0]
        by_seat = {s["seat"]: s["user_id"] for s in first["view"]["seats"]}
        for seat in first["event"]["data"]["participants"]:
            dealt[by_seat[seat]].append(n)
    for user in users:
        listed = (await two.my_hands(user, None, 100))["hands"]
        assert [h["hand"] for h in listed] == dealt[user.id]  # newest first, each once
