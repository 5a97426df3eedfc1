"""End to end against real `svara serve` processes and the real Redis: three signed users play
whole hands over HTTP while listening on WebSockets, as real clients do."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import aiohttp
import pytest

from tests.support.e2e_game import TOKEN, new_table, play, server_env, user_ids
from tests.support.http_player import (
    HttpPlayer,
    check_event_privacy,
    check_feed,
    check_hashes,
    check_seed_privacy,
)
from tests.support.serve import Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]
GRANT = 1000  # the service's starting grant


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


async def test_three_players_play_hands_to_the_end(
    redis_url: str, session: aiohttp.ClientSession
) -> None:
    server = Server(server_env(redis_url)).start()
    try:
        players = [HttpPlayer(session, server.url, u, TOKEN) for u in user_ids(3)]
        table = await new_table(players[0], players, buy_in=1000, turn_seconds=30,
                                next_hand_seconds=0)
        feeds = [await p.listen(table) for p in players]
        last = await play(players, table, hands=3, seed=1)
        version = max([last["version"], *[(await p.view(table))["version"] for p in players]])
        await asyncio.gather(*(f.wait_for(version) for f in feeds))

        audits = {}
        for n in range(1, last["hand"]["number"] + 1):
            status, audit = await players[0].call("GET", f"/api/tables/{table}/hands/{n}/audit")
            if status == 409:
                assert audit["error"]["code"] == "hand_in_progress"
                continue
            assert status == 200 and audit["verified"] and all(audit["checks"].values()), audit
            audits[n] = audit
        assert len(audits) >= 3

        for p, feed in zip(players, feeds, strict=True):
            check_feed(feed.events)
            seat = (await p.view(table))["you"]["seat"]
            check_event_privacy(feed.events, seat, audits)
            check_seed_privacy(feed.events, audits)
            check_hashes(feed.events)
            http = await p.ok("GET", f"/api/tables/{table}/events?after=0")
            assert http["events"][: len(feed.events)] == feed.events  # the same hashes too
            for audit in audits.values():  # what a player saw and the audit agree
                by_version = {e["version"]: e["hash"] for e in feed.events}
                assert all(by_version[e["version"]] == e["hash"] for e in audit["events"])
            await feed.close()

        for p in players:
            await p.ok("POST", f"/api/tables/{table}/leave")
        balances = [(await p.ok("GET", "/api/me"))["balance"] for p in players]
        assert sum(balances) == 3 * GRANT, balances
    finally:
        assert server.stop() == 0, server.output()[-3000:]
