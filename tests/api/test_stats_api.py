"""The stats endpoints over HTTP, in process on a real `TableService` and the real Redis:
the running service's own worker counts hands as they settle (no catch-up by hand), the
answers have docs/API.md's shape, and bad input is a clear 400/404."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from service.api.config import Config
from service.game.settings import TableSettings
from service.game.stats import WIN_UNIT, HandLine
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.service_play import make_users, play_hands
from tests.support.services import Client, app_on_service
from tests.support.signed import auth

GROUP = -100777


@pytest.fixture
async def stack(redis_url: str, config: Config) -> AsyncIterator[tuple[Client, TableService,
                                                                       FakeClock]]:
    async with app_on_service(redis_url, config, start=True) as made:
        yield made


async def _get(client: Client, path: str, user: int) -> tuple[int, Any]:
    resp = await client.get(path, headers=auth(user))
    return resp.status, await resp.json()


async def test_stats_and_boards_over_http(stack: tuple[Client, TableService, FakeClock]) -> None:
    client, service, clock = stack
    users = make_users(3)
    settings = TableSettings(ante=5, max_seats=3)
    table_id = await service.create_table(users[0], settings, group_chat_id=GROUP)
    for user in users:
        await service.seat(user, table_id, 200)
    await play_hands(service, clock, table_id, users, 3)
    status, body = 0, dict[str, Any]()
    async with asyncio.timeout(10):  # the service's worker, nudged by the settlements
        while (status, body.get("all", {}).get("hands")) != (200, 3):
            await asyncio.sleep(0.02)
            status, body = await _get(client, f"/api/players/{users[0].id}/stats", users[1].id)
    assert set(body) == {"user_id", "name", "all", "last_7_days", "week"}
    assert body["user_id"] == users[0].id and body["name"] == users[0].name
    assert body["last_7_days"] == body["all"]  # all 3 hands today
    assert body["week"] == body["last_7_days"]  # the deprecated alias
    for figures in (body["all"], body["last_7_days"]):
        assert set(figures) == {"hands", "won", "net", "biggest_pot", "svaras", "svaras_won",
                                "best_score", "win_rate"}
    nets = []
    for group in ("", f"&group={GROUP}"):
        status, board = await _get(client, f"/api/leaderboard?period=week{group}", users[2].id)
        assert status == 200, board
        assert board["period"] == "week" and board["group"] == (GROUP if group else None)
        assert [e["rank"] for e in board["entries"]] == [1, 2, 3]
        assert {e["user_id"] for e in board["entries"]} == {u.id for u in users}
        assert set(board["entries"][0]) == {"rank", "user_id", "name", "net"}
        mine = next(e for e in board["entries"] if e["user_id"] == users[2].id)
        assert board["you"] == {"rank": mine["rank"], "net": mine["net"]}
        nets.append(sum(e["net"] for e in board["entries"]))
    assert nets == [0, 0]  # no rake: what one won another lost
    status, board = await _get(client, "/api/leaderboard", 42)  # the default: this week
    assert status == 200 and board["period"] == "week" and board["you"] is None


@pytest.mark.parametrize(("path", "status", "code"), [
    ("/api/players/abc/stats", 400, "invalid_parameter"),
    ("/api/players/0/stats", 400, "invalid_parameter"),
    ("/api/players/1.5/stats", 400, "invalid_parameter"),
    ("/api/players/99999999999999999999/stats", 400, "invalid_parameter"),
    ("/api/players/424242/stats", 404, "unknown_player"),
    ("/api/leaderboard?period=month", 400, "invalid_parameter"),
    ("/api/leaderboard?period=", 400, "invalid_parameter"),
    ("/api/leaderboard?group=abc", 400, "invalid_parameter"),
    ("/api/leaderboard?period=all&group=0", 400, "invalid_parameter"),
])
async def test_bad_input_is_a_clear_4xx(
    stack: tuple[Client, TableService, FakeClock], path: str, status: int, code: str
) -> None:
    client, _, _ = stack
    got, body = await _get(client, path, 5)
    assert got == status and body["error"]["code"] == code, body


async def test_the_endpoints_need_a_signed_caller(
    stack: tuple[Client, TableService, FakeClock],
) -> None:
    client, _, _ = stack
    for path in ("/api/players/5/stats", "/api/leaderboard"):
        assert (await client.get(path)).status == 401


async def test_the_board_is_the_top_50_and_a_lower_player_still_gets_their_rank(
    stack: tuple[Client, TableService, FakeClock],
) -> None:
    """53 counted players, written through the service's own counters (the script its
    projector runs): the board is exactly 50 rows in rank order, equal nets rank by who
    reached them first whatever order the hands were applied in (also across the cut-off),
    and players below 50 still hear their own rank."""
    client, service, clock = stack
    counters = service.stats.counters
    users = [u.id for u in make_users(53)]
    # rank i (0-based) nets 1000 - 10 i, except two ties: ranks 3/4 and 49/50 (the cut-off)
    nets = [1000 - 10 * i for i in range(53)]
    nets[4], nets[50] = nets[3], nets[49]
    reached = {u: clock.now - 3000 + 10 * i for i, u in enumerate(users)}  # earlier: higher
    applied = [*range(53)]
    applied[3], applied[4], applied[49], applied[50] = 4, 3, 50, 49  # the later one first
    for i in applied:
        user = users[i]
        line = HandLine(user_id=user, name=f"N{i}", won=WIN_UNIT, net=nets[i], pot=0,
                        svaras=0, svaras_won=0, best=0)
        assert await counters.apply(await counters.generation(), f"cut{i}", (0, 0), (9, 1),
                                    [line], at=reached[user], group=None, chips=True) == 1
    for period in ("week", "all"):
        status, board = await _get(client, f"/api/leaderboard?period={period}", users[52])
        assert status == 200, board
        assert [(e["rank"], e["user_id"], e["net"], e["name"]) for e in board["entries"]] == [
            (i + 1, users[i], nets[i], f"N{i}") for i in range(50)]
        assert board["you"] == {"rank": 53, "net": nets[52]}
    for i in (49, 50, 51, 3, 4):
        _, board = await _get(client, "/api/leaderboard?period=all", users[i])
        assert board["you"] == {"rank": i + 1, "net": nets[i]}, i
        assert len(board["entries"]) == 50
