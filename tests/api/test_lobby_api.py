"""`GET /api/tables` and the idle limit through the real server (in-process, its own
`TableService` built from the environment, on the real Redis): `IDLE_CLOSE_SECONDS` reaches the
tables the server creates, and the lobby pages through its order with the cursor it hands out."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from service.api.app import make_app
from service.api.config import Config
from tests.support.e2e_game import user_ids
from tests.support.signed import TOKEN, auth

pytestmark = pytest.mark.redis

Client = TestClient[web.Request, web.Application]


@pytest.fixture
async def server(redis_url: str, unique: str) -> AsyncIterator[Client]:
    config = Config.from_env({
        "BOT_TOKEN": TOKEN, "BOT_MODE": "off", "REDIS_URL": redis_url,
        "SVARA_NAMESPACE": f"lobby{unique}", "IDLE_CLOSE_SECONDS": "1",
        "RATE_LIMIT_PER_SECOND": "500", "RATE_LIMIT_BURST": "500",
    })
    async with TestClient(TestServer(make_app(config))) as client:
        yield client


async def lobby(client: Client, user: int, **query: str) -> dict[str, Any]:
    resp = await client.get("/api/tables", params=query, headers=auth(user))
    assert resp.status == 200, await resp.text()
    page: dict[str, Any] = await resp.json()
    return page


async def create(client: Client, user: int) -> str:
    resp = await client.post("/api/tables", json={"ante": 10}, headers=auth(user))
    assert resp.status == 201, await resp.text()
    table_id: str = (await resp.json())["table_id"]
    return table_id


async def test_the_server_closes_a_table_left_empty_for_IDLE_CLOSE_SECONDS(server: Client) -> None:
    host, guest = user_ids(2)
    empty = await create(server, host)
    seated = await create(server, host)
    resp = await server.post(f"/api/tables/{seated}/seat", json={"buy_in": 100},
                             headers=auth(guest))
    assert resp.status == 200, await resp.text()
    first = await lobby(server, host)
    assert [(r["table_id"], r["status"]) for r in first["tables"]] == [
        (seated, "waiting"), (empty, "empty")]
    for _ in range(500):  # nobody asks the server to: its timer worker closes the table
        if [r["table_id"] for r in (await lobby(server, host))["tables"]] == [seated]:
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("the empty table stayed open")
    view = await (await server.get(f"/api/tables/{empty}", headers=auth(host))).json()
    assert view["phase"] == "closed"
    events = await (await server.get(f"/api/tables/{empty}/events", headers=auth(host))).json()
    assert events["events"][-1]["type"] == "table_closed"
    assert events["events"][-1]["data"]["idle_seconds"] == 1


async def test_the_lobby_pages_with_the_cursor_it_hands_out(server: Client) -> None:
    [host] = user_ids(1)
    tables = {await create(server, host) for _ in range(3)}
    walked: list[str] = []
    cursor = ""
    while True:
        page = await lobby(server, host, limit="1", **({"cursor": cursor} if cursor else {}))
        walked += [r["table_id"] for r in page["tables"]]
        if page["next"] is None:
            break
        cursor = page["next"]
    assert sorted(walked) == sorted(tables)
    for bad in ["3.x!", "9." + "a" * 65, "a b"]:
        resp = await server.get("/api/tables", params={"cursor": bad}, headers=auth(host))
        assert resp.status == 400
        assert (await resp.json())["error"]["code"] == "invalid_parameter"
