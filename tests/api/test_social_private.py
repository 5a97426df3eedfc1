"""Private tables and table names over HTTP, on the real Redis (in-process server)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from service.api.app import make_app
from service.api.auth import sign_init_data
from service.api.config import Config
from tests.support.e2e_game import user_ids
from tests.support.signed import TOKEN, auth

pytestmark = pytest.mark.redis

Client = TestClient[web.Request, web.Application]


@pytest.fixture
async def server(redis_url: str, unique: str) -> AsyncIterator[Client]:
    config = Config.from_env({
        "BOT_TOKEN": TOKEN, "BOT_MODE": "off", "REDIS_URL": redis_url,
        "SVARA_NAMESPACE": f"priv{unique}", "RATE_LIMIT_PER_SECOND": "500",
        "RATE_LIMIT_BURST": "500",
    })
    async with TestClient(TestServer(make_app(config))) as client:
        yield client


async def call(client: Client, method: str, path: str, user: int, body: Any = None,
               **params: str) -> tuple[int, Any]:
    resp = await client.request(method, path, json=body, headers=auth(user), params=params)
    return resp.status, await resp.json()


async def lobby_ids(client: Client, user: int) -> list[str]:
    status, page = await call(client, "GET", "/api/tables", user, limit="200")
    assert status == 200
    return [row["table_id"] for row in page["tables"]]


async def test_a_private_table_is_unlisted_and_joined_by_its_link_only(server: Client) -> None:
    host, friend, stranger, late = user_ids(4)
    status, created = await call(server, "POST", "/api/tables", host,
                                 {"ante": 10, "private": True, "name": "Friday"})
    assert status == 201, created
    table, invite = created["table_id"], created["invite"]
    assert len(invite) >= 20 and invite not in table
    status, _ = await call(server, "POST", f"/api/tables/{table}/seat", host, {"buy_in": 100})
    assert status == 200
    assert table not in await lobby_ids(server, stranger)

    seat = f"/api/tables/{table}/seat"
    for body in ({"buy_in": 100}, {"buy_in": 100, "invite": "wrong" + invite[5:]}):
        status, answer = await call(server, "POST", seat, stranger, body)
        assert (status, answer["error"]["code"]) == (404, "unknown_table"), answer
    for path in (f"/api/tables/{table}", f"/api/tables/{table}/events",
                 f"/api/tables/{table}/chat"):
        status, answer = await call(server, "GET", path, stranger)
        assert (status, answer["error"]["code"]) == (404, "unknown_table"), (path, answer)
        status, answer = await call(server, "GET", path, stranger, invite=invite)
        assert status == 200, (path, answer)

    status, view = await call(server, "POST", seat, friend, {"buy_in": 100, "invite": invite})
    assert status == 200, view
    assert table not in await lobby_ids(server, stranger)  # seated players change nothing

    # the socket of a stranger without the link is closed 4404; with it, it follows
    ws = await server.ws_connect(f"/api/tables/{table}/ws")
    await ws.send_json({"type": "auth", "init_data": sign_init_data(TOKEN, user_id=stranger,
                                                                   name="s")})
    assert json.loads((await ws.receive()).data)["type"] == "ready"
    await ws.send_json({"type": "resume", "after": 0})
    closing = await ws.receive()
    assert ws.close_code == 4404, closing
    ws = await server.ws_connect(f"/api/tables/{table}/ws")
    await ws.send_json({"type": "auth", "invite": invite,
                        "init_data": sign_init_data(TOKEN, user_id=stranger, name="s")})
    assert json.loads((await ws.receive()).data)["type"] == "ready"
    await ws.send_json({"type": "resume", "after": 0})
    assert json.loads((await ws.receive()).data)["type"] == "event"
    await ws.close()

    # only the host makes a new link; the old one stops working
    status, answer = await call(server, "POST", f"/api/tables/{table}/invite", friend)
    assert (status, answer["error"]["code"]) == (403, "not_host")
    status, answer = await call(server, "POST", f"/api/tables/{table}/invite", stranger)
    assert (status, answer["error"]["code"]) == (404, "unknown_table")
    status, fresh = await call(server, "POST", f"/api/tables/{table}/invite", host)
    assert status == 200 and fresh["invite"] != invite
    status, answer = await call(server, "POST", seat, late, {"buy_in": 100, "invite": invite})
    assert status == 404 and answer["error"]["code"] == "invite_revoked", answer
    status, answer = await call(server, "GET", f"/api/tables/{table}", late, invite=invite)
    assert status == 404 and answer["error"]["code"] == "invite_revoked", answer
    status, _ = await call(server, "POST", seat, late, {"buy_in": 100, "invite": fresh["invite"]})
    assert status == 200
    # the friend who sat down with the old link still watches the table
    status, _ = await call(server, "GET", f"/api/tables/{table}", friend)
    assert status == 200


async def test_the_invite_token_is_in_no_event_nor_audit(server: Client) -> None:
    (host,) = user_ids(1)
    status, created = await call(server, "POST", "/api/tables", host,
                                 {"ante": 10, "private": True})
    table, invite = created["table_id"], created["invite"]
    status, events = await call(server, "GET", f"/api/tables/{table}/events", host)
    assert status == 200
    assert invite not in json.dumps(events)
    assert events["events"][0]["data"].get("private") is True


async def test_names_are_validated_and_shown_in_the_lobby(server: Client) -> None:
    host, guest = user_ids(2)
    refused = ["bad\u0007bell", "x" * 33, "   ", "", "rtl\u202eoverride", "line\u2028sep",
               "zero\u200bwidth"]
    for name in refused:
        status, answer = await call(server, "POST", "/api/tables", host,
                                    {"ante": 10, "name": name})
        assert (status, answer["error"]["code"]) == (400, "invalid_name"), (name, answer)
    accepted = {"Маса на Иван": "Маса на Иван", " طاولة الأصدقاء ": "طاولة الأصدقاء",
                "🃏 Svara 🔥": "🃏 Svara 🔥", "x" * 32: "x" * 32}
    made = {}
    for name, stored in accepted.items():
        status, answer = await call(server, "POST", "/api/tables", host,
                                    {"ante": 10, "name": name})
        assert status == 201, (name, answer)
        made[answer["table_id"]] = stored
    status, plain = await call(server, "POST", "/api/tables", host, {"ante": 10})
    assert "invite" not in plain
    photo = "https://t.me/i/userpic/320/guest.jpg"
    signed = sign_init_data(TOKEN, user_id=guest, name=f"user{guest}", photo_url=photo)
    resp = await server.post(f"/api/tables/{plain['table_id']}/seat", json={"buy_in": 100},
                             headers={"Authorization": f"tma {signed}"})
    assert resp.status == 200, await resp.text()
    status, _ = await call(server, "POST", f"/api/tables/{plain['table_id']}/seat", host,
                           {"buy_in": 100})
    status, page = await call(server, "GET", "/api/tables", host, limit="200")
    rows = {row["table_id"]: row for row in page["tables"]}
    for table, name in made.items():
        assert rows[table]["name"] == name
    row = rows[plain["table_id"]]
    assert row["name"] is None and row["host_name"] == f"user{host}"  # its creator, seated
    assert row["players"] == [
        {"seat": 0, "user_id": guest, "name": f"user{guest}", "photo_url": photo},
        {"seat": 1, "user_id": host, "name": f"user{host}", "photo_url": None}]
    for table in made:
        status, events = await call(server, "GET", f"/api/tables/{table}/events", host)
        assert events["events"][0]["data"]["name"] == made[table]
