"""Full hands through TableService on the real Redis: chips, idempotency, versions, views."""

from __future__ import annotations

import random
import uuid

import pytest

from events.codec import decode_table_event
from events.table import HandSettled, HandStarted
from service.game.decider import fold
from service.game.settings import TableSettings
from service.tables.facade import ServiceError
from tests.support.clock import FakeClock
from tests.support.service_play import (
    SETTINGS,
    assert_conserved,
    make_users,
    play_hands,
    seated_table,
)
from tests.support.services import Factory

pytestmark = pytest.mark.redis


async def test_three_players_play_hands_to_settlement(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(3)
    table_id = await seated_table(service, users)
    totals = await assert_conserved(service, users, [table_id])
    assert totals["granted"] == 3 * 1000 and totals["tables"] == 600
    actions = await play_hands(service, clock, table_id, users, hands=3)
    assert actions > 0
    stored = await service.store.read(service.streams.table(table_id))
    events = [decode_table_event(e.data) for e in stored]
    assert [e.number for e in events if isinstance(e, HandSettled)] == [1, 2, 3]
    # the cached state equals a fold from scratch, and versions have no gap
    assert [e.version for e in stored] == list(range(1, len(stored) + 1))
    loaded = await service.repo.load(table_id)
    assert loaded.state == fold(events)
    # a fresh service (no cache) loads the same state from snapshot + tail
    other = await services()
    assert (await other.repo.load(table_id)).state == loaded.state
    for user in users:
        me = await service.me(user)
        assert me["tables"] == [table_id]
    # everyone leaves: all chips are back in the wallets
    for user in users:
        await service.leave(user, table_id)
    totals = await assert_conserved(service, users, [table_id])
    assert totals["tables"] == 0 and totals["wallets"] == 3000
    for user in users:
        assert (await service.me(user))["tables"] == []


async def test_duplicate_action_id_answers_once(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    clock.advance(1)
    await service.driver.fire(table_id)  # the first hand starts at once
    view = await service.view(users[0], table_id)
    turn_seat = view["hand"]["turn"]
    seats = {u: (await service.view(u, table_id))["you"]["seat"] for u in users}
    player = next(u for u in users if seats[u] == turn_seat)
    first = await service.act(player, table_id, action_id="a1", type="look")
    version = await service.store.version(service.streams.table(table_id))
    again = await service.act(player, table_id, action_id="a1", type="look")
    assert again == first == version
    # the table moves on; the retry still gets its first answer and appends nothing
    legal = [a for a in (await service.view(player, table_id))["you"]["legal"]]
    move = next(a for a in legal if a["type"] in ("pass", "fold", "call"))
    await service.act(player, table_id, action_id="a2", type=move["type"])
    moved = await service.store.version(service.streams.table(table_id))
    assert await service.act(player, table_id, action_id="a1", type="look") == first
    assert await service.store.version(service.streams.table(table_id)) == moved
    # action ids are per user: another user's "a1" is a different action
    other = next(u for u in users if u != player)
    with pytest.raises(ServiceError) as info:
        await service.act(other, table_id, action_id="a1", type="fold", expected_version=1)
    assert info.value.status == 409


async def test_stale_expected_version_is_409(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    await service.driver.fire(table_id)
    version = await service.store.version(service.streams.table(table_id))
    view = await service.view(users[0], table_id)
    player = users[0] if view["you"]["seat"] == view["hand"]["turn"] else users[1]
    with pytest.raises(ServiceError) as info:
        await service.act(
            player, table_id, action_id="x", type="look", expected_version=version - 1
        )
    assert info.value.status == 409 and info.value.code == "version_conflict"
    assert info.value.extra == {"version": version}
    assert await service.store.version(service.streams.table(table_id)) == version
    done = await service.act(player, table_id, action_id="y", type="look", expected_version=version)
    assert done > version


async def test_refusals_are_service_errors(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(3)
    table_id = await seated_table(service, users[:2])
    cases = [
        (service.view(users[0], "nope"), 404, "table_not_found"),
        (service.view(users[0], "{bad}"), 404, "table_not_found"),
        (service.seat(users[2], table_id, 5), 422, "buy_in_out_of_range"),
        (service.seat(users[2], table_id, -1), 400, "bad_request"),
        (service.seat(users[0], table_id, 200), 409, "already_seated"),
        (service.seat(users[2], table_id, 100_000), 422, "buy_in_out_of_range"),
        (service.leave(users[2], table_id), 403, "not_seated"),
        (service.act(users[0], table_id, action_id="1", type="dance"), 400, "unknown_action"),
        (service.act(users[0], table_id, action_id="2", type="raise"), 400, "amount_required"),
        (service.act(users[0], table_id, action_id="", type="fold"), 400, "bad_request"),
        (service.act(users[2], table_id, action_id="3", type="fold"), 403, "not_seated"),
        (service.events(users[0], table_id, -1), 400, "bad_request"),
        (service.audit(table_id, 7), 404, "hand_not_found"),
        (service.audit(table_id, 1), 409, "hand_in_progress"),
        (service.create_table(users[0], TableSettings(ante=0)), 400, "invalid_settings"),
        (
            service.create_table(users[0], SETTINGS, practice_bots=SETTINGS.max_seats),
            400,
            "bad_request",
        ),
    ]
    for call, status, code in cases:
        with pytest.raises(ServiceError) as info:
            await call
        assert (info.value.status, info.value.code) == (status, code), info.value.message
    # a refused seat gives the reservation back
    assert (await service.me(users[2]))["balance"] == 1000
    await assert_conserved(service, users, [table_id])


async def test_wallet_grant_and_daily_topup(services: Factory, clock: FakeClock) -> None:
    service = await services()
    [user] = make_users(1)
    me = await service.me(user)
    assert me["user"] == {"id": user.id, "name": user.name}
    assert me["balance"] == 1000 and me["tables"] == []
    tomorrow = (clock.now // 86_400 + 1) * 86_400  # the start grant was today (UTC)
    assert me["daily_topup"] == {"amount": 1000, "next_at": tomorrow}
    assert (await service.me(user))["balance"] == 1000  # the start grant happens once
    other = make_users(1)[0]
    table_id = await service.create_table(user, TableSettings(ante=10, max_buy_in=1000))
    await service.seat(user, table_id, 1000)
    await service.seat(other, table_id, 1000)
    clock.advance(86_400)
    assert (await service.me(user))["balance"] == 0  # seated: no top-up
    await service.leave(user, table_id)  # seating two started a hand: the ante is lost
    assert (await service.me(user))["balance"] == 990
    clock.advance(86_400)
    assert (await service.me(user))["balance"] == 990  # not dry: no top-up


async def test_events_and_views_are_projected(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    await service.driver.fire(table_id)
    version, events = await service.events(users[0], table_id, 0)
    assert version == await service.store.version(service.streams.table(table_id))
    assert [e["version"] for e in events] == list(range(1, version + 1))
    assert {"version", "type", "at", "data"} <= set(events[0])
    later_version, later = await service.events(None, table_id, version)
    assert later_version == version and later == []
    spectator = await service.view(None, table_id)
    assert all(seat["cards"] is None for seat in spectator["seats"])
    listed = {t["table_id"]: t for t in (await service.list_tables())["tables"]}
    assert listed[table_id]["seated"] == 2 and listed[table_id]["ante"] == 10
    # named by its host (the creator, seated) with its stakes, never by its id
    assert listed[table_id] | {"table_id": None} == {
        "table_id": None, "ante": 10, "max_seats": 6, "seated": 2, "phase": "blind",
        "host": users[0].name, "practice": False, "bet_unit": 10, "min_buy_in": 100,
        "max_buy_in": 1000, "turn_seconds": 30, "seats_free": 4, "created_by": users[0].id,
        "status": "live", "name": None, "host_name": users[0].name,
        "players": [{"seat": i, "user_id": u.id, "name": u.name, "photo_url": None}
                    for i, u in enumerate(users)]}


async def test_concurrent_commands_stay_consistent(services: Factory, clock: FakeClock) -> None:
    """Many tasks (on two services, like two replicas) act on one table at once."""
    import asyncio

    from service.tables import bots

    first, second = await services(), await services()
    users = make_users(4)
    table_id = await seated_table(first, users)
    await first.driver.fire(table_id)
    rng = random.Random(3)

    async def worker(n: int) -> None:
        service = first if n % 2 else second
        for _ in range(15):
            for user in users:
                choice = bots.choose(await service.view(user, table_id), rng)
                if choice is None:
                    continue
                try:
                    await service.act(
                        user, table_id, action_id=uuid.uuid4().hex, type=choice[0], amount=choice[1]
                    )
                except ServiceError as error:
                    assert error.status in (403, 409, 422), error.code
            clock.advance(0.5)
            loaded = await service.repo.load(table_id)
            deadline = loaded.state.deadline if loaded.state is not None else None
            if deadline is not None and clock.now >= deadline:
                await service.driver.fire(table_id)

    await asyncio.gather(*(worker(n) for n in range(8)))
    stored = await first.store.read(first.streams.table(table_id))
    assert [e.version for e in stored] == list(range(1, len(stored) + 1))
    assert await first.store.verify(first.streams.table(table_id)) == len(stored)
    events = [decode_table_event(e.data) for e in stored]
    assert any(isinstance(e, HandStarted) for e in events)
    folded = fold(events)
    assert (await first.repo.load(table_id)).state == folded
    assert (await second.repo.load(table_id)).state == folded
    assert folded.chips_in_play() == folded.bought_in - folded.cashed_out
    await assert_conserved(first, users, [table_id])


async def test_a_stale_cache_never_refuses_a_valid_action(
    services: Factory, clock: FakeClock
) -> None:
    """Replica A decides optimistically on its cached state; when B moved the table on, A's
    refusal must not be trusted: it rereads and decides again."""
    a, b = await services(), await services()
    users = make_users(3)
    table_id = await seated_table(a, users)  # A's cache: the first player's turn
    before = (await a.repo.load(table_id)).state
    assert before is not None and before.hand is not None
    first_turn = before.hand.turn
    opener = next(u for u in users if before.seat_of(u.id) == first_turn)
    blind = next(
        a for a in (await b.view(opener, table_id))["you"]["legal"] if a["type"] == "blind"
    )
    await b.act(opener, table_id, action_id="b", type="blind", amount=blind.get("min"))
    now_turn = (await b.view(None, table_id))["hand"]["turn"]
    assert now_turn is not None and now_turn != first_turn
    player = next(u for u in users if before.seat_of(u.id) == now_turn)
    choice = ("pass", None)
    assert a.repo._cache[table_id].version < await b.store.version(b.streams.table(table_id))
    version = await a.act(player, table_id, action_id="late", type=choice[0], amount=choice[1])
    assert version == await a.store.version(a.streams.table(table_id))


async def test_an_unreachable_store_is_503(clock: FakeClock) -> None:
    """Port 7149 (this suite's range) has no server: every call answers 503, nothing else."""
    from events.store import open_store
    from service.tables.service import TableService

    service = TableService(open_store("redis://127.0.0.1:7149/0"), clock=clock)
    [user] = make_users(1)
    calls = [
        service.me(user),
        service.list_tables(),
        service.view(user, "abc"),
        service.act(user, "abc", action_id="a", type="fold"),
        service.create_table(user, SETTINGS),
    ]
    try:
        for call in calls:
            with pytest.raises(ServiceError) as info:
                await call
            assert (info.value.status, info.value.code) == (503, "store_unavailable")
    finally:
        await service.store.close()
