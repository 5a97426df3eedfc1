"""The tournament endpoints over HTTP, in process on a real `TableService` and the real Redis:
registering for a full tournament, twice, or after the start is a 409 with its code that
changes nothing (wallet, pool, registrations), also when the last seat is taken between the
check and the append; a hand played at a tournament's table replays and audits like any."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from service.api.config import Config
from service.game.tournament.state import TournamentState
from service.tables.facade import User
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.service_play import make_users, play_hands
from tests.support.services import Client, app_on_service
from tests.support.signed import auth

pytestmark = pytest.mark.redis

BODY: dict[str, Any] = {"seats": 3, "buy_in": 100, "stack": 200, "antes": [5, 10],
                        "hands_per_level": 1, "name": "api"}


@pytest.fixture
async def stack(redis_url: str, config: Config) -> AsyncIterator[tuple[Client, TableService,
                                                                       FakeClock]]:
    """The app on a service whose workers are not started: the tournament's manager runs
    only where the test (or a registration taking the last seat) runs it."""
    async with app_on_service(redis_url, config, start=False) as made:
        yield made


async def _call(client: Client, method: str, path: str, user: User,
                body: Any = None) -> tuple[int, Any]:  # fmt: skip
    resp = await client.request(method, path, json=body, headers=auth(user.id, user.name))
    return resp.status, await resp.json()


async def _new(client: Client, user: User) -> str:
    status, created = await _call(client, "POST", "/api/tournaments", user, BODY)
    assert status == 201, created
    return str(created["tournament_id"])


async def _facts(client: Client, service: TableService, tid: str,
                 users: list[User]) -> tuple[Any, ...]:  # fmt: skip
    """What a refusal must leave as it was: the tournament as the API shows it (players,
    pool, version), its listing row, and every user's wallet (balance, tables, reservations)."""
    _, tournament = await _call(client, "GET", f"/api/tournaments/{tid}", users[0])
    _, listed = await _call(client, "GET", "/api/tournaments", users[0])
    row = next(r for r in listed["tournaments"] if r["tournament_id"] == tid)
    wallets = []
    for user in users:
        _, me = await _call(client, "GET", "/api/me", user)
        _, wallet = await service.bank.load(user.id)
        wallets.append((me["balance"], me["tables"], dict(wallet.reserved)))
    return tournament, row, wallets


async def test_a_full_tournament_refuses_with_409_and_nothing_changes(
    stack: tuple[Client, TableService, FakeClock],
) -> None:
    """Every seat taken, the start not yet made (the registering replica died before it):
    the next player hears 409 `tournament_full`; a registered one `already_registered`."""
    client, service, _ = stack
    users = make_users(5)
    tid = await _new(client, users[0])
    for user in users[:3]:  # below the layer that starts a full tournament
        await service.tournaments.registrations.register(user, tid)
    before = await _facts(client, service, tid, users)
    assert before[0]["status"] == "registering" and before[0]["pool"] == 300
    status, body = await _call(client, "POST", f"/api/tournaments/{tid}/register", users[3])
    assert (status, body["error"]["code"]) == (409, "tournament_full"), body
    status, body = await _call(client, "POST", f"/api/tournaments/{tid}/register", users[1])
    assert (status, body["error"]["code"]) == (409, "already_registered"), body
    assert await _facts(client, service, tid, users) == before
    assert before[2][3] == (1000, [], {}) and before[2][0][1] == [f"tournament:{tid}"]


async def test_the_last_seat_taken_between_check_and_append_refuses_and_releases(
    stack: tuple[Client, TableService, FakeClock],
) -> None:
    """Two players race for the last seat: the loser passed the first check, so the wallet
    had reserved the buy-in; the tournament refuses (`tournament_full`) and the reservation
    is released: the loser's wallet, the pool and the registrations are as before."""
    client, service, _ = stack
    users = make_users(4)
    tid = await _new(client, users[0])
    for user in users[:2]:
        await service.tournaments.registrations.register(user, tid)
    transfers = service.tournaments.registrations.transfers
    real_reserve = transfers.reserve
    raced: list[TournamentState] = []

    async def reserve_then_lose_the_seat(user: User, table_id: str, amount: int) -> str:
        transfer_id = await real_reserve(user, table_id, amount)
        if user.id == users[3].id and not raced:  # the other one's append lands first
            raced.append(await service.tournaments.registrations.register(users[2], tid))
        return transfer_id

    transfers.reserve = reserve_then_lose_the_seat  # type: ignore[method-assign]
    before = await _facts(client, service, tid, users)
    status, body = await _call(client, "POST", f"/api/tournaments/{tid}/register", users[3])
    assert (status, body["error"]["code"]) == (409, "tournament_full"), body
    assert raced and raced[0].full
    after = await _facts(client, service, tid, users)
    assert after[2][3] == before[2][3] == (1000, [], {})  # released: as if never asked
    assert [p["user_id"] for p in after[0]["players"]] == [u.id for u in users[:3]]
    assert after[0]["pool"] == 300 and after[1]["registered"] == 3
    await service.tournaments.manager.advance(tid)
    started = await _call(client, "GET", f"/api/tournaments/{tid}", users[0])
    assert started[1]["status"] == "running"
    status, body = await _call(client, "POST", f"/api/tournaments/{tid}/register", users[3])
    assert (status, body["error"]["code"]) == (409, "tournament_started"), body
    assert (await _facts(client, service, tid, users))[2][3] == (1000, [], {})


async def test_a_tournament_hand_replays_and_audits(
    stack: tuple[Client, TableService, FakeClock],
) -> None:
    client, service, clock = stack
    users = make_users(3)
    tid = await _new(client, users[0])
    for user in users:
        status, body = await _call(client, "POST", f"/api/tournaments/{tid}/register", user)
        assert status == 200, body
    assert body["status"] == "running", body  # the last seat started it
    table = body["table_id"]
    rng = random.Random(4)
    await play_hands(service, clock, table, users, 1, rng=rng, conserve=False)
    await service.tournaments.manager.catch_up()  # records hand 1: the ante rises to 10
    assert (await service.tournaments.get(tid))["ante"] == 10
    await play_hands(service, clock, table, users, 2, rng=rng, conserve=False)
    for number in (1, 2):
        status, replay = await _call(client, "GET", f"/api/tables/{table}/hands/{number}/replay",
                                     users[1])
        assert status == 200, replay
        assert (replay["table_id"], replay["hand"]) == (table, number)
        steps = replay["steps"]
        assert steps[0]["event"]["type"] == "hand_started"
        assert steps[-1]["event"]["type"] == "hand_settled"
        assert steps[-1]["phase"] == "settled"
        for step in steps:  # each view is the tournament table's, as it was then
            assert step["view"]["tournament"]["tournament_id"] == tid
            assert step["view"]["version"] == step["version"]
        status, audit = await _call(client, "GET", f"/api/tables/{table}/hands/{number}/audit",
                                    users[2])
        assert status == 200, audit
        assert audit["verified"] and all(audit["checks"].values()), audit["checks"]
        assert [e["version"] for e in audit["events"]] == [s["version"] for s in steps]
        assert [e["hash"] for e in audit["events"]] == [s["hash"] for s in steps]
        ante = 5 if number == 1 else 10  # hand 2 is dealt at the new level
        assert {s["view"]["settings"]["ante"] for s in steps[1:]} == {ante}, number
    stacks = [s["stack"] for s in steps[-1]["view"]["seats"]]
    assert sum(stacks) == 3 * BODY["stack"]  # tournament chips, all still at the table
    status, running = await _call(client, "GET", f"/api/tables/{table}/hands/3/replay", users[0])
    assert status in (404, 409) and running["error"]["code"] in ("unknown_hand",
                                                                  "hand_in_progress"), running
