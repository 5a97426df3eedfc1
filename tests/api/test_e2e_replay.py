"""The replayer's endpoints end to end, against a real `svara serve` and the real Redis:
replays equal the hand's events and the views each player saw live, show nothing to the wrong
viewer, refuse bad input clearly; transcripts (ru, ar; English equal to `svara verify --text`
on the hand's export); download links that work without the Authorization header; my hands."""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from service import verify
from service.api import downloads
from tests.support.e2e_game import TOKEN, hands_done, new_table, server_env, user_ids
from tests.support.http_player import (
    HttpPlayer,
    check_event_privacy,
    check_seed_privacy,
    check_view_privacy,
    choose,
)
from tests.support.redis import REDIS_TEST_URL
from tests.support.serve import REPO, Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]
JSON = dict[str, Any]


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """One server for the module's tests: each plays its own tables with its own users."""
    s = Server(server_env(REDIS_TEST_URL)).start()
    yield s
    s.stop()


async def play_recording(players: list[HttpPlayer], table: str, hands: int,
                         seed: int = 3) -> dict[int, dict[int, JSON]]:
    """Play by `legal` until `hands` hands are settled, keeping every view each player got
    live (GET view), by version."""
    rng = random.Random(seed)
    seen: dict[int, dict[int, JSON]] = {p.user_id: {} for p in players}
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        views = await asyncio.gather(*(p.view(table) for p in players))
        for p, v in zip(players, views, strict=True):
            # `away` is who has the table open now (presence), no part of the state at a
            # version, so a replay of that version has none to show
            seen[p.user_id][v["version"]] = {
                **v, "seats": [{k: x for k, x in seat.items() if k != "away"}
                               for seat in v["seats"]]}
        if hands_done(views[0]) >= hands:
            return seen
        for p, v in zip(players, views, strict=True):
            move = choose(v, rng)
            if move is not None:
                await p.act(table, *move, expected_version=v["version"])
                break
        else:
            await asyncio.sleep(0.05)
    raise AssertionError("the hands did not settle")


async def test_replay_is_the_hand_as_each_player_saw_it(
    server: Server, session: aiohttp.ClientSession
) -> None:
    players = [HttpPlayer(session, server.url, u, TOKEN) for u in user_ids(3)]
    outsider = HttpPlayer(session, server.url, user_ids(1)[0], TOKEN)
    table = await new_table(players[0], players, buy_in=300, turn_seconds=5)
    seen = await play_recording(players, table, 3)
    audits = {n: await players[0].ok("GET", f"/api/tables/{table}/hands/{n}/audit")
              for n in (1, 2, 3)}  # fmt: skip
    for n, audit in audits.items():
        for p in [*players, outsider]:
            replay = await p.ok("GET", f"/api/tables/{table}/hands/{n}/replay")
            assert (replay["table_id"], replay["hand"]) == (table, n)
            steps = replay["steps"]
            assert [(s["version"], s["hash"], s["event"]["type"], s["event"]["at"])
                    for s in steps] == [(e["version"], e["hash"], e["type"], e["at"])
                                        for e in audit["events"]]  # fmt: skip
            matched = 0
            for s in steps:
                assert s["view"]["version"] == s["version"]
                if s["event"]["type"] != "showdown":
                    # (right after a showdown its cards are public: they are the event's own;
                    # live, that state is never seen, as the settlement follows in one append)
                    check_view_privacy(s["view"])
                live = seen.get(p.user_id, {}).get(s["version"])
                if live is not None:
                    matched += 1
                    assert s["view"] == live, s["version"]
            if p is not outsider:
                assert matched >= 2
            events = [{"version": s["version"], **s["event"]} for s in steps]
            own = steps[0]["view"]["you"]["seat"]
            check_event_privacy(events, own if own is not None else -1, audits)
            check_seed_privacy(events, audits)
            # a player's own cards appear only in their own replay
            looked = [s for s in steps if s["event"]["type"] == "looked"]
            for s in looked:
                mine = s["event"]["data"]["user_id"] == p.user_id
                assert (s["event"]["data"]["cards"] is not None) == mine


async def test_replay_refusals(server: Server, session: aiohttp.ClientSession) -> None:
    players = [HttpPlayer(session, server.url, u, TOKEN) for u in user_ids(2)]
    table = await new_table(players[0], players, buy_in=200)
    before = (await players[0].view(table))["version"]
    for path, expected in [
        (f"/api/tables/{table}/hands/1/replay", (409, "hand_in_progress")),
        (f"/api/tables/{table}/hands/7/replay", (404, "unknown_hand")),
        (f"/api/tables/{table}/hands/0/replay", (404, "unknown_hand")),
        (f"/api/tables/{table}/hands/x1/replay", (400, "invalid_parameter")),
        (f"/api/tables/{table}/hands/99999999999/replay", (400, "invalid_parameter")),
        ("/api/tables/nosuchtable0000/hands/1/replay", (404, "unknown_table")),
        (f"/api/tables/{table}/hands/1/transcript", (409, "hand_in_progress")),
        (f"/api/tables/{table}/hands/1/transcript?lang=xx", (400, "unknown_language")),
        ("/api/me/hands?limit=0", (400, "invalid_parameter")),
        ("/api/me/hands?limit=101", (400, "invalid_parameter")),
        ("/api/me/hands?cursor=bogus", (400, "invalid_parameter")),
    ]:
        status, answer = await players[0].call("GET", path)
        assert (status, answer["error"]["code"]) == expected, (path, answer)
    async with session.get(f"{server.url}/api/tables/{table}/hands/1/replay") as resp:
        assert resp.status == 401
    assert (await players[0].view(table))["version"] == before


async def test_transcripts_and_downloads(server: Server, session: aiohttp.ClientSession,
                                         tmp_path: Path) -> None:
    players = [HttpPlayer(session, server.url, u, TOKEN) for u in user_ids(3)]
    table = await new_table(players[0], players, buy_in=300)
    await play_recording(players, table, 2, seed=5)
    path = f"/api/tables/{table}/hands/2"
    texts = {}
    for lang in ("en", "ru", "ar", "bg", "tr", "de"):
        async with session.get(f"{server.url}{path}/transcript?lang={lang}",
                               headers=players[0].headers) as resp:  # fmt: skip
            assert resp.status == 200
            assert resp.headers["Content-Type"] == "text/plain; charset=utf-8"
            texts[lang] = await resp.text()
    assert texts["ru"].startswith("Свара: история раздачи\n") and "банк" in texts["ru"]
    assert texts["ar"].startswith("سجل يد سفارا\n") and "الوعاء" in texts["ar"]
    assert len(set(texts.values())) == 6
    exported = await players[0].ok("GET", f"{path}/export")
    assert texts["en"] == verify.transcript(verify.load(json.dumps(exported)))
    file = tmp_path / "hand.json"
    file.write_text(json.dumps(exported))
    cli = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "service.cli", "verify", "--text", str(file), cwd=REPO,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(cli.communicate(), 60)
    assert cli.returncode == 0, err
    assert out.decode() == texts["en"]
    # the caller's language by default: what /api/me says
    await players[1].ok("POST", "/api/me/settings", {"language": "ru"})
    async with session.get(f"{server.url}{path}/transcript", headers=players[1].headers) as r:
        assert await r.text() == texts["ru"]

    # download links: no Authorization header needed, only for this hand and kind, for a while
    links = await players[1].ok("POST", f"{path}/download")
    assert links["file_names"] == {"export": f"svara-{table}-hand-2.json",
                                   "transcript": f"svara-{table}-hand-2.txt"}
    assert "tma" not in json.dumps(links) and "hash=" not in json.dumps(links)
    async with session.get(links["transcript_url"]) as resp:
        assert resp.status == 200
        assert resp.headers["Access-Control-Allow-Origin"] == "*"
        assert resp.headers["Content-Disposition"] == (
            f'attachment; filename="svara-{table}-hand-2.txt"')
        assert await resp.text() == texts["ru"]  # the minter's language
    async with session.get(links["export_url"]) as resp:
        assert resp.status == 200 and resp.headers["Access-Control-Allow-Origin"] == "*"
        assert resp.headers["Content-Disposition"] == (
            f'attachment; filename="svara-{table}-hand-2.json"')
        assert verify.verify(verify.load(await resp.read())).ok
    version = (await players[0].view(table))["version"]
    token = links["export_url"].split("download=")[1]
    secret = downloads.download_secret(TOKEN)
    user = players[1].user_id
    expired = downloads.mint(secret, user, "export", table, 2, "en", now=time.time() - 3600)
    forged = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    for url, expected in [
        (f"{server.url}{path}/export?download={expired}", (401, "download_expired")),
        (f"{server.url}{path}/export?download={forged}", (403, "invalid_download")),
        (f"{server.url}{path}/export?download=nonsense", (403, "invalid_download")),
        (f"{server.url}{path}/transcript?download={token}", (403, "invalid_download")),
        (f"{server.url}/api/tables/{table}/hands/1/export?download={token}",
         (403, "invalid_download")),
        (f"{server.url}{path}/export?download="
         + downloads.mint(downloads.download_secret("other"), user, "export", table, 2, "en"),
         (403, "invalid_download")),
    ]:
        async with session.get(url) as resp:
            body = await resp.json()
            assert (resp.status, body["error"]["code"]) == expected, (url, body)
            assert resp.headers["Access-Control-Allow-Origin"] == "*"
    assert (await players[0].view(table))["version"] == version  # nothing changed


async def test_my_hands_pages_across_tables(server: Server,
                                            session: aiohttp.ClientSession) -> None:
    players = [HttpPlayer(session, server.url, u, TOKEN) for u in user_ids(2)]
    first = await new_table(players[0], players, buy_in=200)
    await play_recording(players, first, 2, seed=1)
    await players[0].ok("POST", f"/api/tables/{first}/leave")
    await players[1].ok("POST", f"/api/tables/{first}/leave")
    second = await new_table(players[1], players, buy_in=200)
    await play_recording(players, second, 2, seed=2)
    got: list[JSON] = []
    cursor = ""
    for _ in range(10):
        page = await players[0].ok("GET", f"/api/me/hands?limit=1{cursor}")
        got += page["hands"]
        if page["next"] is None:
            break
        cursor = f"&cursor={page['next']}"
    assert [(h["table_id"], h["hand"]) for h in got] == [
        (second, 2), (second, 1), (first, 2), (first, 1)]
    settled = [h["settled_at"] for h in got]
    assert settled == sorted(settled, reverse=True)
    for h in got:
        assert h["result"] in ("won", "split", "lost", "folded")
        assert isinstance(h["won"], int) and isinstance(h["pot"], int)
