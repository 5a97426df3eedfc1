"""A Redis that neither answers nor refuses for 5 s (packets dropped: `tests/support/proxy.py`),
three times, under a real `svara serve`: after each, an action and a view are back within 2 s
of Redis, measured by polling each over HTTP until it succeeds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.support.e2e_game import TOKEN, new_table, server_env, user_ids
from tests.support.http_player import HttpPlayer
from tests.support.proxy import Proxy
from tests.support.redis_servers import RedisServer, free_port
from tests.support.serve import Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]

OUTAGE = 5.0
RECOVERY = 2.0


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[Proxy]:
    server = RedisServer(tmp_path / "redis", free_port()).start()
    front = Proxy(server.port).start()
    yield front
    front.stop()
    server.kill9()


async def until_ok(call: Callable[[], Awaitable[tuple[int, Any]]], since: list[float]) -> float:
    """Poll `call` until it answers 2xx after `since` holds the moment Redis came back; that
    moment to the success. Every answer before it must be a 503, never a 500."""
    while True:
        status, body = await call()
        if 200 <= status < 300 and since:
            return time.monotonic() - since[0]
        assert status == 503 or 200 <= status < 300, (status, body)
        await asyncio.sleep(0.02)


async def test_actions_and_views_are_back_within_2s_after_each_stall(proxy: Proxy) -> None:
    server = Server(server_env(proxy.url)).start()
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
            players = [HttpPlayer(session, server.url, u, TOKEN) for u in user_ids(2)]
            table = await new_table(players[0], players, turn_seconds=600)
            recoveries = []
            for cycle in range(3):
                views = [await p.view(table) for p in players]
                mover, seen = next((p, v) for p, v in zip(players, views, strict=True)
                                   if v["you"]["seat"] == v["hand"]["turn"])
                move: dict[str, Any] = next(
                    a for a in seen["you"]["legal"] if a["type"] in ("call", "pass", "blind"))
                amount = move.get("amount", move.get("min"))
                proxy.black_hole()
                back: list[float] = []
                action = asyncio.create_task(until_ok(
                    lambda m=mover, t=move["type"], a=amount, c=cycle: m.act(
                        table, t, a, action_id=f"stall-{c}"), back))
                view = asyncio.create_task(until_ok(
                    lambda p=players[0]: p.call("GET", f"/api/tables/{table}"), back))
                await asyncio.sleep(OUTAGE)
                assert not action.done() and not view.done()
                back.append(time.monotonic())
                proxy.restore()
                recoveries.append(
                    (await asyncio.wait_for(action, 20), await asyncio.wait_for(view, 20))
                )
                after = await mover.view(table)
                assert after["version"] > seen["version"]
            assert all(a <= RECOVERY and v <= RECOVERY for a, v in recoveries), recoveries
    finally:
        assert server.stop() == 0, server.output()[-3000:]
