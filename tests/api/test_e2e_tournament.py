"""A 4-player Sit & Go over the API on two `svara serve` replicas sharing one Redis, one of
them `kill -9`ed mid-way: the other finishes it with the right standings and payouts,
every hand audits and so do the standings."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from tests.support.e2e_game import TOKEN, server_env, user_ids
from tests.support.http_player import HttpPlayer, choose
from tests.support.serve import REPO, Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]

BODY = {"seats": 4, "buy_in": 100, "stack": 20, "antes": [5, 10], "hands_per_level": 2,
        "fill_seconds": 600, "name": "e2e", "turn_seconds": 5}


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


async def _move(players: list[HttpPlayer], table: str, rng: random.Random) -> None:
    for p in players:
        view = await p.view(table)
        move = choose(view, rng)
        if move is not None:
            status, body = await p.act(table, *move, expected_version=view["version"])
            assert status == 200 or (status == 409 and body["error"]["code"] in (
                "version_conflict", "not_your_turn")), (move, status, body)
            return
    await asyncio.sleep(0.05)


async def test_tournament_survives_a_kill_9(
    redis_url: str, session: aiohttp.ClientSession, unique: str
) -> None:
    namespace = f"apitest-{unique}"
    a = Server(server_env(redis_url, namespace=namespace)).start()
    b = Server(server_env(redis_url, namespace=namespace)).start()
    try:
        ids = user_ids(4)
        players = [HttpPlayer(session, (a if i < 2 else b).url, u, TOKEN)
                   for i, u in enumerate(ids)]
        status, bad = await players[0].call("POST", "/api/tournaments", {**BODY, "seats": 11})
        assert status == 400, bad
        created = await players[0].ok("POST", "/api/tournaments", BODY)
        tid = created["tournament_id"]
        for p in players:
            await p.ok("POST", f"/api/tournaments/{tid}/register")
        status, again = await players[0].call("POST", f"/api/tournaments/{tid}/register")
        assert (status, again["error"]["code"]) == (409, "tournament_started")
        t = await players[0].ok("GET", f"/api/tournaments/{tid}")
        assert t["status"] == "running" and t["table_id"]
        table = t["table_id"]
        rng = random.Random(5)
        killed, moves = False, 0
        deadline = time.monotonic() + 50
        while time.monotonic() < deadline:
            t = await players[-1].ok("GET", f"/api/tournaments/{tid}")
            if t["status"] == "finished" and all(p["prize"] is not None for p in t["players"]):
                me = await players[-1].ok("GET", "/api/me")
                if me["tables"] == []:  # the prizes are credited: no pool open in the wallet
                    break
            if not killed and moves >= 4 and t["status"] == "running":  # mid-way
                a.kill()
                killed = True
                for p in players:
                    p.base = b.url
            if t["status"] == "running":
                await _move(players, table, rng)
                moves += 1
            else:
                await asyncio.sleep(0.1)
        else:
            raise AssertionError(f"the tournament did not finish: {t}")
        assert killed
        places = sorted(p["place"] for p in t["players"])
        assert places == [1, 2, 3, 4], t
        prizes = {p["user_id"]: p["prize"] for p in t["players"]}
        winner = next(p["user_id"] for p in t["players"] if p["place"] == 1)
        assert prizes[winner] == 400 and sum(prizes.values()) == 400
        for p in players:
            me = await p.ok("GET", "/api/me")
            assert me["balance"] == 1000 - 100 + prizes[p.user_id], (p.user_id, me)
        audit = await players[0].ok("GET", f"/api/tournaments/{tid}/audit")
        assert audit["verified"], audit["checks"]
        assert [s["place"] for s in audit["standings"]] == [1, 2, 3, 4]
        hands: list[Any] = await players[0].ok("GET", f"/api/tables/{table}/hands?limit=50")
        numbers = [h["number"] for h in hands] if isinstance(hands, list) else [
            h["number"] for h in hands["hands"]]
        assert numbers
        for n in numbers:
            hand_audit = await players[0].ok("GET", f"/api/tables/{table}/hands/{n}/audit")
            assert hand_audit["verified"], (n, hand_audit["checks"])
        env = {**os.environ, **server_env(redis_url, namespace=namespace)}
        for ident, code in ((tid, 0), ("no-such-tournament", 2)):
            run = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "service.cli", "audit", "--tournament", ident,
                cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            )
            out, err = await asyncio.wait_for(run.communicate(), 30)
            assert run.returncode == code, (ident, out, err)
        listed = await players[0].ok("GET", "/api/tournaments")
        assert any(r["tournament_id"] == tid and r["status"] == "finished"
                   for r in listed["tournaments"])
    finally:
        a.kill()
        assert b.stop() == 0, b.output()[-3000:]
