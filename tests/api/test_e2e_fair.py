"""Fair hands end to end, against a real `svara serve` and the real Redis: players set their own
seeds (POST /seed), every event they receive carries its chain hash (HTTP and WebSocket), a
settled hand's export (GET .../export) verifies offline and agrees with what they saw, and bad
input is refused with a clear 4xx that changes nothing."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import aiohttp
import pytest

from service import verify
from tests.support.e2e_game import TOKEN, new_table, play, server_env, user_ids
from tests.support.http_player import HttpPlayer, check_hashes, check_seed_privacy
from tests.support.serve import Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


async def test_players_cut_the_deck_and_check_the_hand_themselves(
    redis_url: str, session: aiohttp.ClientSession
) -> None:
    server = Server(server_env(redis_url)).start()
    try:
        players = [HttpPlayer(session, server.url, u, TOKEN) for u in user_ids(3)]
        table = await new_table(players[0], players, buy_in=1000)
        feeds = [await p.listen(table) for p in players]
        for p, seed in zip(players, ["alice-seed", "b0b", "7f3a"], strict=True):
            view = await p.ok("POST", f"/api/tables/{table}/seed", {"client_seed": seed})
            assert view["you"]["client_seed"] == seed
        last = await play(players, table, hands=3, seed=4)
        version = max([(await p.view(table))["version"] for p in players])
        for feed in feeds:
            await feed.wait_for(version)
        hand = last["hand"]["number"] - (0 if last["hand"]["phase"] == "settled" else 1)
        status, exported = await players[1].call("GET", f"/api/tables/{table}/hands/{hand}/export")
        assert status == 200, exported
        report = verify.verify(verify.load(json.dumps(exported)))
        assert report.ok, report.failures

        feed = feeds[0]
        check_hashes(feed.events)
        seen = {e["version"]: e for e in feed.events}
        audits = {}
        for n in range(1, hand + 1):
            audits[n] = await players[0].ok("GET", f"/api/tables/{table}/hands/{n}/audit")
            assert audits[n]["verified"], audits[n]["failures"]
        check_seed_privacy(feed.events, audits)
        # the export agrees with every hash the player saw: pin them all
        pins = {"hashes": {str(v): e["hash"] for v, e in seen.items()}}
        assert verify.verify(verify.load(json.dumps(exported)), pins).ok
        for entry in exported["events"]:
            assert seen[entry["version"]]["hash"] == entry["hash"]
        # the deal the player saw dealt names their seeds, and its commitment was public first
        dealt = [e for e in feed.events if e["type"] == "cards_dealt"]
        assert dealt[-1]["data"]["algorithm"] == "hmac-sha256-fy-v2"
        assert dealt[-1]["data"]["client_seeds"] == {"0": "alice-seed", "1": "b0b", "2": "7f3a"}
        started = [e for e in feed.events if e["type"] == "hand_started"]
        for e in started[1:]:
            published = [p for p in feed.events if p["type"] == "hand_settled"
                         and p["version"] < e["version"]][-1]  # fmt: skip
            assert published["data"]["next_commitment"] == e["data"]["commitment"]
        # the export downloads as a file
        async with session.get(f"{server.url}/api/tables/{table}/hands/{hand}/export",
                               headers=players[0].headers) as resp:  # fmt: skip
            assert resp.status == 200
            assert resp.headers["Content-Disposition"] == (
                f'attachment; filename="svara-{table}-hand-{hand}.json"')
        for f in feeds:
            await f.close()
    finally:
        server.stop()


async def test_seed_and_export_refusals(redis_url: str, session: aiohttp.ClientSession) -> None:
    server = Server(server_env(redis_url)).start()
    try:
        players = [HttpPlayer(session, server.url, u, TOKEN) for u in user_ids(3)]
        table = await new_table(players[0], players[:2], buy_in=200)
        before = (await players[0].view(table))["version"]
        for body, code in [
            ({"client_seed": ""}, "invalid_body"),
            ({"client_seed": "x" * 65}, "invalid_body"),
            ({"client_seed": "with space"}, "invalid_body"),
            ({"client_seed": "ünï"}, "invalid_body"),
            ({"client_seed": 42}, "invalid_body"),
            ({"client_seed": "ok", "user_id": 5}, "invalid_body"),
            ({}, "invalid_body"),
        ]:
            status, answer = await players[0].call("POST", f"/api/tables/{table}/seed", body)
            assert (status, answer["error"]["code"]) == (400, code), (body, answer)
            assert "client_seed" in answer["error"]["message"] or body.get("user_id"), answer
        status, answer = await players[2].call(  # not seated
            "POST", f"/api/tables/{table}/seed", {"client_seed": "ok"})
        assert (status, answer["error"]["code"]) == (403, "not_seated")
        status, answer = await players[0].call(
            "POST", "/api/tables/0123456789abcdef/seed", {"client_seed": "ok"})
        assert status == 404
        assert (await players[0].view(table))["version"] == before  # nothing changed
        for n, expected in [(1, (409, "hand_in_progress")), (7, (404, "hand_not_found"))]:
            status, answer = await players[0].call("GET", f"/api/tables/{table}/hands/{n}/export")
            assert (status, answer["error"]["code"]) == expected
        status, answer = await players[0].call("GET", f"/api/tables/{table}/hands/0/export")
        assert status == 404
        async with session.get(f"{server.url}/api/tables/{table}/hands/1/export") as resp:
            assert resp.status == 401  # signed users only
    finally:
        server.stop()
