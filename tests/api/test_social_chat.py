"""Quick chat over HTTP and the table's socket, on the real Redis, with two in-process
servers (two `TableService`s, each with its own XREAD reader) standing in for two replicas."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from service.api.app import make_app
from service.api.auth import sign_init_data
from service.api.config import Config
from service.tables.chat_stream import chat_key
from tests.support.e2e_game import user_ids
from tests.support.signed import TOKEN, auth

pytestmark = pytest.mark.redis

Client = TestClient[web.Request, web.Application]


def _config(redis_url: str, namespace: str) -> Config:
    return Config.from_env({
        "BOT_TOKEN": TOKEN, "BOT_MODE": "off", "REDIS_URL": redis_url,
        "SVARA_NAMESPACE": namespace, "RATE_LIMIT_PER_SECOND": "500",
        "RATE_LIMIT_BURST": "500",
    })


@pytest.fixture
async def servers(redis_url: str, unique: str) -> AsyncIterator[tuple[Client, Client]]:
    namespace = f"chat{unique}"
    async with TestClient(TestServer(make_app(_config(redis_url, namespace)))) as a, \
            TestClient(TestServer(make_app(_config(redis_url, namespace)))) as b:
        yield a, b


async def call(client: Client, method: str, path: str, user: int, body: Any = None,
               **params: str) -> tuple[int, Any, aiohttp.ClientResponse]:
    resp = await client.request(method, path, json=body, headers=auth(user), params=params)
    return resp.status, await resp.json(), resp


async def seated_table(client: Client, *users: int) -> str:
    status, body, _ = await call(client, "POST", "/api/tables", users[0], {"ante": 10})
    assert status == 201, body
    table = str(body["table_id"])
    for user in users:
        status, body, _ = await call(client, "POST", f"/api/tables/{table}/seat", user,
                                     {"buy_in": 100})
        assert status == 200, body
    return table


class Socket:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.chat: list[dict[str, Any]] = []
        self.other: list[dict[str, Any]] = []

    async def next_chat(self) -> dict[str, Any]:
        while True:
            frame = json.loads((await asyncio.wait_for(self.ws.receive(), 5)).data)
            if frame["type"] == "chat":
                self.chat.append(frame["message"])
                return dict(frame["message"])
            self.other.append(frame)

    async def until_seq(self, seq: int) -> list[int]:
        while not self.chat or self.chat[-1]["seq"] < seq:
            await self.next_chat()
        return [m["seq"] for m in self.chat]

    async def next_of(self, kind: str) -> dict[str, Any]:
        while True:
            frame = json.loads((await asyncio.wait_for(self.ws.receive(), 5)).data)
            if frame["type"] == kind:
                return dict(frame)
            if frame["type"] == "chat":
                self.chat.append(frame["message"])


async def connect(client: Client, table: str, user: int, **resume: Any) -> Socket:
    ws = await client.ws_connect(f"/api/tables/{table}/ws")
    await ws.send_json({"type": "auth",
                        "init_data": sign_init_data(TOKEN, user_id=user, name=f"user{user}")})
    ready = json.loads((await ws.receive()).data)
    assert ready["type"] == "ready", ready
    await ws.send_json({"type": "resume", "after": ready["version"], **resume})
    return Socket(ws)


async def test_phrases_lists_the_ids(servers: tuple[Client, Client]) -> None:
    (user,) = user_ids(1)
    status, body, _ = await call(servers[0], "GET", "/api/chat/phrases", user)
    assert status == 200
    assert {"good_luck", "nice_hand", "gg", "svara", "bluff"} <= set(body["phrases"])
    assert len(body["phrases"]) == 16 and len(body["reactions"]) == 8
    assert "fire" in body["reactions"]


async def test_chat_reaches_every_socket_on_both_replicas_and_resumes_without_gaps(
    servers: tuple[Client, Client],
) -> None:
    a, b = servers
    p1, p2, watcher = user_ids(3)
    table = await seated_table(a, p1, p2)
    sockets = [await connect(a, table, p1, chat_after=0),
               await connect(b, table, p2, chat_after=0),
               await connect(b, table, watcher, chat_after=0)]
    status, body, _ = await call(a, "POST", f"/api/tables/{table}/chat", p1,
                                 {"phrase": "good_luck"})
    assert status == 200, body
    first = body["seq"]
    for s in sockets:  # the poster's replica and the other one
        message = await s.next_chat()
        assert message == {"seq": first, "at": message["at"], "seat": 0, "user_id": p1,
                           "name": f"user{p1}", "phrase": "good_luck"}
    # over the socket too, answered with the seq; a spectator reacts
    await sockets[1].ws.send_json({"type": "chat", "phrase": "thanks"})
    ack = await sockets[1].next_of("chat_ack")
    await sockets[2].ws.send_json({"type": "chat", "reaction": "fire"})
    ack2 = await sockets[2].next_of("chat_ack")
    assert ack2["seq"] == ack["seq"] + 1 == first + 2
    for s in sockets:
        assert await s.until_seq(ack2["seq"]) == [first, first + 1, first + 2]
    spectator = sockets[0].chat[-1]
    assert spectator["seat"] is None and spectator["reaction"] == "fire"
    assert "phrase" not in spectator

    # a dropped socket resumes from the last seq it saw: nothing missed, nothing twice
    await sockets[1].ws.close()
    seen = sockets[1].chat[-1]["seq"]
    for phrase in ("wow", "gg"):
        status, body, _ = await call(a, "POST", f"/api/tables/{table}/chat", p1,
                                     {"phrase": phrase})
        assert status == 200, body
    again = await connect(a, table, p2, chat_after=seen - 1)  # on the other replica now
    assert await again.until_seq(body["seq"]) == [seen, seen + 1, seen + 2]
    status, page, _ = await call(b, "GET", f"/api/tables/{table}/chat", p2, after=str(first))
    assert status == 200
    assert [m.get("phrase") or m.get("reaction") for m in page["messages"]] == [
        "thanks", "fire", "wow", "gg"]
    assert page["seq"] == body["seq"]
    for s in [*sockets, again]:
        await s.ws.close()


async def test_chat_rate_limit_holds_across_replicas_and_stores_nothing(
    servers: tuple[Client, Client], redis_url: str,
) -> None:
    a, b = servers
    p1, p2 = user_ids(2)
    table = await seated_table(a, p1, p2)
    for client in (a, b, a):  # the burst of 3, spent on both replicas
        status, body, _ = await call(client, "POST", f"/api/tables/{table}/chat", p1,
                                     {"reaction": "clap"})
        assert status == 200, body
    status, body, resp = await call(b, "POST", f"/api/tables/{table}/chat", p1,
                                    {"phrase": "hurry"})
    assert status == 429, body
    assert body["error"]["code"] == "rate_limited"
    assert 0 < body["retry_after"] <= 2
    assert int(resp.headers["Retry-After"]) >= 1
    status, page, _ = await call(a, "GET", f"/api/tables/{table}/chat", p2)
    assert [m["reaction"] for m in page["messages"]] == ["clap"] * 3
    assert page["seq"] == 3
    # another player's bucket is their own
    status, body, _ = await call(b, "POST", f"/api/tables/{table}/chat", p2, {"phrase": "gg"})
    assert status == 200 and body["seq"] == 4


async def test_chat_refusals(servers: tuple[Client, Client]) -> None:
    a, _ = servers
    p1, p2, watcher = user_ids(3)
    table = await seated_table(a, p1, p2)
    path = f"/api/tables/{table}/chat"
    cases = [
        (p1, {"phrase": "hi_there"}, 400, "unknown_phrase"),
        (p1, {"reaction": "poop"}, 400, "unknown_reaction"),
        (p1, {"phrase": "gg", "reaction": "fire"}, 400, "bad_request"),
        (p1, {}, 400, "bad_request"),
        (p1, {"text": "free text"}, 400, "invalid_body"),
        (watcher, {"phrase": "gg"}, 403, "not_seated"),
    ]
    for user, body, want_status, want_code in cases:
        status, answer, _ = await call(a, "POST", path, user, body)
        assert (status, answer["error"]["code"]) == (want_status, want_code), (body, answer)
    status, answer, _ = await call(a, "POST", "/api/tables/nosuchtable/chat", p1,
                                   {"reaction": "fire"})
    assert (status, answer["error"]["code"]) == (404, "table_not_found")
    status, page, _ = await call(a, "GET", path, p1)
    assert page == {"seq": 0, "messages": []}  # nothing refused was stored
    status, answer, _ = await call(a, "GET", path, p1, after="-1")
    assert status == 400


async def test_a_closed_tables_chat_is_deleted(redis_url: str, unique: str) -> None:
    import redis.asyncio as aioredis

    namespace = f"chatclose{unique}"
    config = _config(redis_url, namespace)
    config = Config.from_env({"BOT_TOKEN": TOKEN, "BOT_MODE": "off", "REDIS_URL": redis_url,
                              "SVARA_NAMESPACE": namespace, "IDLE_CLOSE_SECONDS": "1"})
    redis = aioredis.Redis.from_url(redis_url)
    async with TestClient(TestServer(make_app(config))) as a:
        (p1,) = user_ids(1)
        table = await seated_table(a, p1)
        status, body, _ = await call(a, "POST", f"/api/tables/{table}/chat", p1,
                                     {"phrase": "bye"})
        assert status == 200
        key = chat_key(f"{namespace}:table:{table}")
        assert await redis.exists(key, key + ":seq") == 2
        status, body, _ = await call(a, "POST", f"/api/tables/{table}/leave", p1)
        assert status == 200, body
        for _ in range(400):  # the timer worker closes the empty table, then its chat goes
            status, view, _ = await call(a, "GET", f"/api/tables/{table}", p1)
            if view["phase"] == "closed" and not await redis.exists(key, key + ":seq"):
                break
            await asyncio.sleep(0.02)
        assert view["phase"] == "closed"
        assert await redis.exists(key, key + ":seq") == 0
    await redis.aclose()


async def test_away_is_shown_to_the_others_from_the_socket_and_its_frame(
    servers: tuple[Client, Client],
) -> None:
    a, b = servers
    p1, p2 = user_ids(2)
    table = await seated_table(a, p1, p2)

    async def away_at() -> dict[int, bool]:
        status, view, _ = await call(a, "GET", f"/api/tables/{table}", p2)
        assert status == 200
        return {s["user_id"]: s["away"] for s in view["seats"] if s is not None}

    assert await away_at() == {p1: True, p2: True}  # nobody has the table open
    first = await connect(b, table, p1)  # on the other replica
    assert await away_at() == {p1: False, p2: True}
    await first.ws.send_json({"type": "away", "away": True})  # the app was minimised
    for _ in range(200):
        if (await away_at())[p1]:
            break
        await asyncio.sleep(0.01)
    assert (await away_at())[p1] is True
    await first.ws.send_json({"type": "away", "away": False})
    for _ in range(200):
        if not (await away_at())[p1]:
            break
        await asyncio.sleep(0.01)
    assert (await away_at())[p1] is False
    await first.ws.close()
    for _ in range(200):
        if (await away_at())[p1]:
            break
        await asyncio.sleep(0.01)
    assert await away_at() == {p1: True, p2: True}
