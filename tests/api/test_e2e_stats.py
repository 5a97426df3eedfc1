"""The stats against real `svara serve` replicas on one Redis: hands played through both,
one replica killed with `kill -9` between hands and started again; every player's figures,
read from either replica, agree with their own list of hands (`GET /api/me/hands`, the hands
index written with the events) -- each settled hand counted once -- and the board sums to 0."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from tests.support.e2e_game import TOKEN, new_table, play, server_env, user_ids
from tests.support.http_player import HttpPlayer
from tests.support.serve import Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]
START = 120.0  # seconds a server may take to answer: imports are slow on a loaded machine


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


async def _my_hands(player: HttpPlayer) -> list[dict[str, Any]]:
    hands: list[dict[str, Any]] = []
    cursor = ""
    while True:
        page = await player.ok("GET", f"/api/me/hands?limit=100{cursor}")
        hands += page["hands"]
        if page["next"] is None:
            return hands
        cursor = f"&cursor={page['next']}"


async def test_stats_survive_kill_9_and_agree_across_replicas(
    redis_url: str, session: aiohttp.ClientSession, unique: str
) -> None:
    namespace = f"apitest-{unique}"
    a = Server(server_env(redis_url, namespace=namespace))
    b = Server(server_env(redis_url, namespace=namespace))
    try:
        a.start(START)
        b.start(START)  # inside the try: a failed start must not leave `a` running
        u1, u2, u3 = user_ids(3)
        players = [HttpPlayer(session, a.url, u1, TOKEN), HttpPlayer(session, b.url, u2, TOKEN),
                   HttpPlayer(session, a.url, u3, TOKEN)]
        table = await new_table(players[0], players, buy_in=1000, turn_seconds=30,
                                next_hand_seconds=0)
        await play(players, table, hands=4, seed=21)
        a.kill()  # kill -9: its worker may be anywhere in a catch-up
        for p in (players[0], players[2]):
            p.base = b.url
        await play(players, table, hands=8, seed=22)
        a.start(START)
        settled = int((await players[0].view(table))["hand"]["number"])
        readers = [HttpPlayer(session, a.url, u1, TOKEN), HttpPlayer(session, b.url, u2, TOKEN)]
        dealt = 0
        async with asyncio.timeout(30):
            for p in players:
                mine = await _my_hands(p)
                want = (len(mine), sum(int(h["won"]) for h in mine))
                for reader in readers:
                    while True:
                        stats = await reader.ok("GET", f"/api/players/{p.user_id}/stats")
                        if (stats["all"]["hands"], stats["all"]["net"]) == want:
                            break
                        assert stats["all"]["hands"] < want[0], (stats, want)  # never twice
                        await asyncio.sleep(0.1)
                dealt += want[0]
        assert dealt >= 2 * settled  # every settled hand, with two players at least
        board = await readers[0].ok("GET", "/api/leaderboard?period=all")
        assert {e["user_id"] for e in board["entries"]} >= {u1, u2, u3}
        mine_on_board = [e for e in board["entries"] if e["user_id"] in (u1, u2, u3)]
        assert sum(e["net"] for e in mine_on_board) == 0
        you = (await readers[1].ok("GET", "/api/leaderboard?period=all"))["you"]
        assert you == {"rank": next(e["rank"] for e in board["entries"] if e["user_id"] == u2),
                       "net": next(e["net"] for e in board["entries"] if e["user_id"] == u2)}
    finally:
        assert a.stop() in (0, None), a.output()[-3000:]  # None: never started
        assert b.stop() in (0, None), b.output()[-3000:]
