"""Every refusal of the API contract against a real server on the real Redis: idempotent
retries, stale versions, bad initData, out-of-turn and unseated actions, bad bodies. Never a
500."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from service.api.auth import sign_init_data
from tests.support.e2e_game import TOKEN, new_table, server_env, user_ids
from tests.support.http_player import HttpPlayer
from tests.support.serve import Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.fixture
async def server(redis_url: str) -> AsyncIterator[Server]:
    s = Server(server_env(redis_url, RATE_LIMIT_PER_SECOND="5", RATE_LIMIT_BURST="60")).start()
    yield s
    assert s.stop() == 0, s.output()[-3000:]


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


def code(body: dict[str, object]) -> object:
    error = body["error"]
    assert isinstance(error, dict) and isinstance(error["message"], str)
    return error["code"]


async def test_refusals(server: Server, session: aiohttp.ClientSession) -> None:
    u1, u2, u3, stranger = user_ids(4)
    players = [HttpPlayer(session, server.url, u, TOKEN) for u in (u1, u2)]
    outsider = HttpPlayer(session, server.url, stranger, TOKEN)
    table = await new_table(players[0], players, turn_seconds=60)
    views = [await p.view(table) for p in players]
    turn = views[0]["hand"]["turn"]
    mover, waiter = (players if views[0]["you"]["seat"] == turn else players[::-1])
    view = await mover.view(table)
    move = next(a for a in view["you"]["legal"] if a["type"] != "look")
    amount = move.get("amount", move.get("min"))

    # Duplicate action_id: the same answer, one event.
    first = await mover.act(table, move["type"], amount, action_id="dup-1")
    again = await mover.act(table, move["type"], amount, action_id="dup-1")
    assert first == again and first[0] == 200
    assert (await mover.view(table))["version"] == first[1]["version"]

    # A stale expected_version: 409 with the current version, and nothing happens.
    current = (await waiter.view(table))["version"]
    legal = [a for a in (await waiter.view(table))["you"]["legal"] if a["type"] != "look"]
    stale: dict[str, Any] = legal[0] if legal else {"type": "fold"}
    status, body = await waiter.act(table, stale["type"], stale.get("amount", stale.get("min")),
                                    expected_version=current - 1)
    assert status == 409 and code(body) == "version_conflict" and body["version"] == current

    # Out of turn, and at a table where one has no seat: 403.
    now = await mover.view(table)
    assert now["hand"]["phase"] in ("blind", "betting")
    off_turn = mover if now["hand"]["turn"] != now["you"]["seat"] else waiter
    status, body = await off_turn.act(table, "pass" if now["hand"]["phase"] == "blind" else "fold")
    assert status == 403 and code(body) == "not_your_turn", body
    status, body = await outsider.act(table, "fold")
    assert status == 403 and code(body) == "not_seated"
    status, body = await outsider.call("POST", f"/api/tables/{table}/leave")
    assert status == 403
    assert (await mover.view(table))["version"] == now["version"]

    # Forged, expired, missing initData: 401 (and the socket closes with 4401).
    forged = HttpPlayer(session, server.url, u3, "999:another-bot")
    expired = HttpPlayer(session, server.url, u3, TOKEN)
    expired.headers = {"Authorization": "tma " + sign_init_data(
        TOKEN, user_id=u3, name="late", auth_date=int(time.time()) - 86401)}
    for who, expected in ((forged, "invalid_init_data"), (expired, "expired_init_data")):
        status, body = await who.call("GET", "/api/me")
        assert status == 401 and code(body) == expected
    async with session.get(f"{server.url}/api/tables/{table}") as resp:
        assert resp.status == 401
    ws = await session.ws_connect(f"{server.url}/api/tables/{table}/ws")
    await ws.send_json({"type": "auth", "init_data": forged.init_data})
    assert (await ws.receive(timeout=5)).type == aiohttp.WSMsgType.CLOSE
    assert ws.close_code == 4401

    # Garbage JSON, wrong types, huge bodies: 4xx, never 500.
    bad_bodies = [b"{", b"null", b"[1,2]", b'"call"', b"\x00\xff", b'{"type": 5}',
                  b'{"action_id": "x", "type": "raise", "amount": "lots"}',
                  b'{"action_id": "x", "type": "raise", "amount": -5}',
                  b'{"action_id": "", "type": "call"}', b'{"action_id": "x", "type": "call",'
                  b' "expected_version": 1.5}', b'{"buy_in": 1e100}', b'{"ante": true}',
                  b'{"action_id": "' + b"x" * 500 + b'", "type": "call"}',
                  b'{"action_id": "x", "type": "' + b"y" * 100 + b'"}',
                  b"[" * 5000 + b"]" * 5000, b"x" * 100_000, b'{"ante": 10, "extra": 1}']
    paths = ["/api/tables", f"/api/tables/{table}/seat", f"/api/tables/{table}/actions",
             "/api/tables/nope/actions"]
    for path in paths:
        for raw in bad_bodies:
            status, body = await outsider.call("POST", path, raw=raw)
            assert 400 <= status < 500, (path, raw[:40], status, body)
            code(body)
    for path in [f"/api/tables/{table}/events?after=x", f"/api/tables/{table}/events?after=-1",
                 f"/api/tables/{table}/hands/0/audit", f"/api/tables/{table}/hands/99/audit",
                 "/api/tables/no-such-table", "/api/tables/" + "z" * 300]:
        status, body = await outsider.call("GET", path)
        assert 400 <= status < 500, (path, status, body)

    # Flooding: the rate limit answers 429 before anything reaches the service.
    statuses = [(await outsider.call("GET", "/api/me"))[0] for _ in range(80)]
    assert 429 in statuses and set(statuses) <= {200, 429}
    assert (await mover.view(table))["version"] == now["version"]


async def test_store_down_is_503_never_500(session: aiohttp.ClientSession) -> None:
    """Redis unreachable (a port in this suite's range where nothing listens)."""
    down = Server(server_env("redis://127.0.0.1:7157/0")).start(healthy=False)
    try:
        p = HttpPlayer(session, down.url, user_ids(1)[0], TOKEN)
        for method, path, body in [("GET", "/api/health", None), ("GET", "/api/me", None),
                                   ("GET", "/api/tables", None),
                                   ("POST", "/api/tables", {"ante": 10}),
                                   ("POST", "/api/tables/abc/actions",
                                    {"action_id": "a", "type": "call"})]:
            status, answer = await p.call(method, path, body)
            assert status == 503 and code(answer) == "store_unavailable", (path, status, answer)
        ws = await session.ws_connect(f"{down.url}/api/tables/abc/ws")
        await ws.send_json({"type": "auth", "init_data": p.init_data})
        assert (await ws.receive(timeout=10)).type == aiohttp.WSMsgType.CLOSE
        assert ws.close_code == 1011
    finally:
        assert down.stop() == 0, down.output()[-3000:]


async def test_dev_mode_embedded_store_and_graceful_stop() -> None:
    """The README's run command: no REDIS_URL, no BOT_TOKEN → a practice table to open."""
    dev = Server({"REDIS_URL": "", "BOT_TOKEN": "", "BOT_MODE": ""}).start()
    try:
        async with aiohttp.ClientSession() as session:
            async with session.get(f"{dev.url}/dev/init-data?user_id=77&name=Dev") as resp:
                init = (await resp.json())["init_data"]
            p = HttpPlayer(session, dev.url, 77, "unused")
            p.headers = {"Authorization": f"tma {init}"}
            tables = (await p.ok("GET", "/api/tables"))["tables"]
            assert len(tables) == 1 and tables[0]["seated"] == 2
            async with session.get(f"{dev.url}/") as resp:
                assert resp.status == 200 and "html" in resp.content_type
    finally:
        assert dev.stop() == 0
    assert f"open {dev.url}/ in a browser" in dev.output()
