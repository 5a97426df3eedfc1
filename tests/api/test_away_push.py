"""Who is away, pushed over the table's socket to the other viewers, across two in-process
servers on the real Redis (two `TableService`s, each with its own XREAD reader)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from redis.asyncio import Redis

from service.api.app import make_app
from service.api.auth import sign_init_data
from service.api.config import Config
from service.api.context import TABLES
from service.tables.away_feed import away_key
from service.tables.facade import ServiceError, User
from tests.support.e2e_game import user_ids
from tests.support.signed import TOKEN, auth

pytestmark = pytest.mark.redis

Client = TestClient[web.Request, web.Application]


@pytest.fixture
async def servers(redis_url: str, unique: str) -> AsyncIterator[tuple[Client, Client]]:
    config = Config.from_env({
        "BOT_TOKEN": TOKEN, "BOT_MODE": "off", "REDIS_URL": redis_url,
        "SVARA_NAMESPACE": f"away{unique}", "RATE_LIMIT_PER_SECOND": "500",
        "RATE_LIMIT_BURST": "500"})
    async with TestClient(TestServer(make_app(config))) as a, \
            TestClient(TestServer(make_app(config))) as b:
        yield a, b


async def seated(client: Client, *users: int) -> str:
    resp = await client.post("/api/tables", json={"ante": 10}, headers=auth(users[0]))
    table = str((await resp.json())["table_id"])
    for user in users:
        resp = await client.post(f"/api/tables/{table}/seat", json={"buy_in": 100},
                                 headers=auth(user))
        assert resp.status == 200, await resp.text()
    return table


async def socket(client: Client, table: str, user: int) -> aiohttp.ClientWebSocketResponse:
    ws = await client.ws_connect(f"/api/tables/{table}/ws")
    await ws.send_json({"type": "auth",
                        "init_data": sign_init_data(TOKEN, user_id=user, name=f"user{user}")})
    ready = json.loads((await ws.receive()).data)
    assert ready["type"] == "ready", ready
    await ws.send_json({"type": "resume", "after": ready["version"]})
    return ws


async def until_away(ws: aiohttp.ClientWebSocketResponse, user: int,
                     away: bool) -> dict[str, Any]:
    """The next away frame about `user` saying `away` (earlier ones may say the other)."""
    async with asyncio.timeout(5):
        while True:
            frame = json.loads((await ws.receive()).data)
            if frame["type"] == "away" and frame["user_id"] == user and frame["away"] is away:
                return dict(frame)


async def test_away_changes_reach_the_other_players_socket_on_another_replica(
    servers: tuple[Client, Client],
) -> None:
    a, b = servers
    p1, p2 = user_ids(2)
    table = await seated(a, p1, p2)
    watcher = await socket(b, table, p2)
    # the snapshot after the resume: p1 has no socket open
    first = await until_away(watcher, p1, True)
    assert first == {"type": "away", "user_id": p1, "seat": 0, "away": True}
    player = await socket(a, table, p1)  # on the other replica
    assert (await until_away(watcher, p1, False))["seat"] == 0
    await player.send_json({"type": "away", "away": True})  # the app was minimised
    await until_away(watcher, p1, True)
    await player.send_json({"type": "away", "away": False})  # brought back
    await until_away(watcher, p1, False)
    await player.close()  # the socket is gone
    await until_away(watcher, p1, True)
    await watcher.close()


async def test_a_spectator_hears_the_seated_players_only(servers: tuple[Client, Client]) -> None:
    a, b = servers
    p1, p2, fan = user_ids(3)
    table = await seated(a, p1, p2)
    player = await socket(a, table, p1)
    spectator = await socket(b, table, fan)
    frames = [await until_away(spectator, p1, False), await until_away(spectator, p2, True)]
    assert {f["user_id"] for f in frames} == {p1, p2}
    other = await socket(a, table, fan)  # the spectator's second socket: no frame about them
    await player.send_json({"type": "away", "away": True})
    async with asyncio.timeout(5):
        while True:
            frame = json.loads((await spectator.receive()).data)
            if frame["type"] == "away":
                assert frame["user_id"] != fan
                if frame["user_id"] == p1 and frame["away"]:
                    break
    for ws in (player, spectator, other):
        await ws.close()


async def test_a_stranger_to_a_private_table_hears_nothing_of_who_is_away(
    servers: tuple[Client, Client],
) -> None:
    a, b = servers
    host, stranger = user_ids(2)
    resp = await a.post("/api/tables", json={"ante": 10, "private": True}, headers=auth(host))
    body = await resp.json()
    table = str(body["table_id"])
    resp = await a.post(f"/api/tables/{table}/seat",
                        json={"buy_in": 100, "invite": body["invite"]}, headers=auth(host))
    assert resp.status == 200, await resp.text()
    player = await socket(a, table, host)
    ws = await b.ws_connect(f"/api/tables/{table}/ws")
    await ws.send_json({"type": "auth", "init_data": sign_init_data(
        TOKEN, user_id=stranger, name="stranger")})
    frames: list[dict[str, Any]] = []
    async with asyncio.timeout(5):
        while (msg := await ws.receive()).type == aiohttp.WSMsgType.TEXT:
            frames.append(json.loads(msg.data))
            if frames[-1]["type"] == "ready":
                await ws.send_json({"type": "resume", "after": 0})
    assert ws.close_code == 4404
    assert [f for f in frames if f["type"] == "away"] == []
    # the feed itself refuses, however soon the socket's close comes
    feed = b.server.app[TABLES].social.away.follow(
        User(stranger, "stranger"), table, None)
    with pytest.raises(ServiceError) as refused:
        await anext(feed)
    assert refused.value.status == 404
    await player.close()


async def test_spectators_coming_and_going_leave_no_note(
    servers: tuple[Client, Client], redis_url: str,
) -> None:
    """A spectator's socket changes no seat's `away`: a reconnect storm of spectators must not
    cost a presence note each (and a presence read for every other socket of the table)."""
    a, b = servers
    p1, p2, *fans = user_ids(8)
    table = await seated(a, p1, p2)
    watcher = await socket(b, table, p2)
    await until_away(watcher, p1, True)
    for fan in fans:  # they come and go, on both replicas
        ws = await socket(a if fan % 2 else b, table, fan)
        await ws.close()
    player = await socket(a, table, p1)  # a seated player's socket: its note comes after theirs
    await until_away(watcher, p1, False)
    service = a.server.app[TABLES]
    key = away_key(service.streams.table(table))
    client = Redis.from_url(redis_url)
    try:
        noted = {int(fields[b"d"]) for _, fields in await client.xrange(key)}
    finally:
        await client.aclose()
    assert noted == {p1, p2} or noted == {p1}, noted  # p2's own socket may have its note
    for ws in (player, watcher):
        await ws.close()
