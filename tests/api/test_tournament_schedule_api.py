"""The ante schedule over HTTP, in process on a real `TableService` and the real Redis:
POST /api/tournaments takes exactly one of `hands_per_level` and `minutes_per_level` (both,
neither or minutes out of 1..240: 400 `invalid_settings`, nothing created), the tournament
and its listing row answer the schedule it got, and the OpenAPI body lists both fields."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from events.store import open_store
from service.api.app import make_app
from service.api.config import Config
from service.api.openapi import openapi_document
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.redis import fresh_id
from tests.support.signed import auth

Client = TestClient[web.Request, web.Application]
BODY = {"seats": 3, "buy_in": 10, "stack": 500, "antes": [5, 10], "fill_seconds": 600}
USER = 7_700_001


@pytest.fixture
async def client(redis_url: str, config: Config) -> AsyncIterator[Client]:
    service = TableService(open_store(redis_url), clock=FakeClock(),
                           namespace=f"t{fresh_id()}:", think_seconds=0.0)
    try:
        async with TestClient(TestServer(make_app(config, tables=service))) as c:
            yield c
    finally:
        await service.store.close()


async def _post(client: Client, body: dict[str, Any]) -> tuple[int, Any]:
    resp = await client.post("/api/tournaments", json=body, headers=auth(USER))
    return resp.status, await resp.json()


@pytest.mark.parametrize(("extra", "words"), [
    ({"hands_per_level": 5, "minutes_per_level": 10}, "exactly one"),
    ({}, "exactly one"),
    ({"hands_per_level": 5, "minutes_per_level": 0}, "exactly one"),
    ({"minutes_per_level": 241}, "minutes_per_level must be a whole number from 1 to 240"),
    ({"minutes_per_level": 0}, "exactly one"),
])
async def test_both_neither_or_out_of_bounds_is_invalid_settings(
    client: Client, extra: dict[str, int], words: str
) -> None:
    status, body = await _post(client, {**BODY, **extra})
    assert (status, body["error"]["code"]) == (400, "invalid_settings"), body
    assert words in body["error"]["message"]
    listed = await client.get("/api/tournaments", headers=auth(USER))
    assert (await listed.json())["tournaments"] == []  # nothing was created


async def test_either_schedule_is_taken_and_answered(client: Client) -> None:
    for extra, hands, minutes in (({"minutes_per_level": 10}, 0, 10),
                                  ({"hands_per_level": 4}, 4, 0)):
        status, created = await _post(client, {**BODY, **extra})
        assert status == 201, created
        resp = await client.get(f"/api/tournaments/{created['tournament_id']}",
                                headers=auth(USER))
        t = await resp.json()
        assert (t["settings"]["hands_per_level"], t["settings"]["minutes_per_level"]) == (
            hands, minutes)
        assert t["next_level_at"] is None  # not started: no boundary yet
        listed = await (await client.get("/api/tournaments", headers=auth(USER))).json()
        row = next(r for r in listed["tournaments"]
                   if r["tournament_id"] == created["tournament_id"])
        assert (row["hands_per_level"], row["minutes_per_level"]) == (hands, minutes)


def test_the_openapi_body_lists_both_schedules() -> None:
    body = openapi_document()["components"]["schemas"]["CreateTournamentBody"]
    assert {"hands_per_level", "minutes_per_level"} <= set(body["properties"])
    assert "hands_per_level" not in body.get("required", [])
    tournament = openapi_document()["components"]["schemas"]["Tournament"]
    assert "next_level_at" in tournament["properties"]
