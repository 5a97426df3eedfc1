"""Two `svara serve` processes on one Redis, and a `kill -9` mid-hand."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from tests.support.e2e_game import TOKEN, new_table, play, server_env, step, user_ids
from tests.support.http_player import HttpPlayer, check_feed
from tests.support.serve import Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


def public(events: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What every viewer sees alike: all but the looker's own cards in `looked`."""
    out = []
    for e in events:
        data = {k: v for k, v in e["data"].items() if not (e["type"] == "looked" and k == "cards")}
        out.append((e["version"], e["type"], e["at"], data))
    return out


async def test_two_processes_one_table(
    redis_url: str, session: aiohttp.ClientSession, unique: str
) -> None:
    namespace = f"apitest-{unique}"
    a = Server(server_env(redis_url, namespace=namespace)).start()
    b = Server(server_env(redis_url, namespace=namespace)).start()
    try:
        u1, u2, u3 = user_ids(3)
        http = [HttpPlayer(session, a.url, u1, TOKEN), HttpPlayer(session, a.url, u2, TOKEN),
                HttpPlayer(session, b.url, u3, TOKEN)]
        sockets = [HttpPlayer(session, a.url, u1, TOKEN), HttpPlayer(session, b.url, u2, TOKEN),
                   HttpPlayer(session, b.url, u3, TOKEN)]
        table = await new_table(http[0], http, buy_in=1000, turn_seconds=5,
                                next_hand_seconds=0)
        feeds = [await p.listen(table) for p in sockets]
        http[1] = sockets[1]  # this player acts over its socket (on the other server)
        http[1].over_socket = True
        await play(http, table, hands=2, seed=3)

        # Nobody acts now: the turn's deadline passes and one of the two timers acts. Then
        # the next turn times out too (5 s later): both servers' timers have run well past
        # the first deadline, so a second (wrong) timeout of it would be in the feed by now.
        first = await feeds[0].wait_until(lambda e: e["type"] == "timed_out", within=15)
        await feeds[0].wait_until(
            lambda e: e["type"] == "timed_out" and e["version"] > first["version"], within=15)
        version = (await http[2].view(table))["version"]
        await asyncio.gather(*(f.wait_for(version) for f in feeds))

        for f in feeds:
            check_feed(f.events)
        assert public(feeds[0].events) == public(feeds[1].events) == public(feeds[2].events)
        deadline: tuple[int, float] | None = None
        fired: list[tuple[int, float] | None] = []
        for e in feeds[0].events:
            # The turn and its deadline come from `turn_deadline_set`, or ride on the action
            # that handed the turn on (`turn`/`deadline` in its data): accept either form.
            if e["type"] == "turn_deadline_set":
                deadline = (e["data"]["seat"], e["data"]["deadline"])
                continue
            if e["type"] == "timed_out":
                assert deadline is not None and deadline[0] == e["data"]["seat"]
                assert e["at"] >= deadline[1]
                fired.append(deadline)
            if e["data"].get("turn") is not None:
                deadline = (e["data"]["turn"], e["data"]["deadline"])
        assert fired and len(fired) == len(set(fired)), fired
        for f in feeds:
            await f.close()
    finally:
        assert a.stop() == 0, a.output()[-3000:]
        assert b.stop() == 0, b.output()[-3000:]


async def test_kill_9_mid_hand(redis_url: str, session: aiohttp.ClientSession) -> None:
    server = Server(server_env(redis_url)).start()
    try:
        players = [HttpPlayer(session, server.url, u, TOKEN) for u in user_ids(3)]
        table = await new_table(players[0], players, buy_in=1000, turn_seconds=60,
                                next_hand_seconds=0)
        feeds = [await p.listen(table) for p in players]
        await play(players, table, hands=1, seed=4)
        rng = random.Random(5)
        async with asyncio.timeout(20):  # into the next hand, a few moves deep
            moves = 0
            while True:
                view = await step(players, table, rng, 3000)
                hand = view["hand"]
                moves += 1
                if hand and hand["phase"] in ("blind", "betting") and moves > 3:
                    break
        before = [await p.view(table) for p in players]
        assert len({v["version"] for v in before}) == 1
        await asyncio.gather(*(f.wait_for(before[0]["version"]) for f in feeds))
        seen = [list(f.events) for f in feeds]

        server.kill()
        for f in feeds:
            await f.close()
        server.start()

        after = [await p.view(table) for p in players]
        assert after == before
        feeds = [await p.listen(table, after=s[-1]["version"]) for p, s in
                 zip(players, seen, strict=True)]
        await play(players, table, hands=before[0]["hand"]["number"], seed=6)
        version = (await players[0].view(table))["version"]
        await asyncio.gather(*(f.wait_for(version) for f in feeds))
        for p, old, f in zip(players, seen, feeds, strict=True):
            check_feed(old + f.events)  # nothing lost or repeated across the crash
            http = await p.ok("GET", f"/api/tables/{table}/events?after=0")
            assert old + f.events == http["events"][: len(old + f.events)]
        for f in feeds:
            await f.close()
    finally:
        assert server.stop() == 0, server.output()[-3000:]
