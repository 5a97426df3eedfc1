"""What the API answers about an archived table: 410 `table_archived` wherever it would
have answered the table, and the player's own hands of it still listed, marked archived. The
app runs in-process on a real TableService over the real Redis."""

from __future__ import annotations

from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from service.api.app import make_app
from service.api.config import Config
from service.api.openapi import openapi_document
from tests.support.archive import IDLE, archive, closed_table
from tests.support.clock import FakeClock
from tests.support.service_play import SETTINGS, make_users, play_hands, seated_table
from tests.support.services import Factory
from tests.support.signed import TOKEN, auth

pytestmark = pytest.mark.redis

BODIES = {"/seat": {"buy_in": 100}, "/rebuy": {"buy_in": 100}, "/leave": {},
          "/seed": {"client_seed": "mine"}}  # fmt: skip


def documented_410s() -> list[tuple[str, str]]:
    """(method, path tail) of every route OpenAPI says may answer 410."""
    paths = openapi_document()["paths"]
    return sorted((method, path.removeprefix("/api/tables/{id}").replace("{n}", "1"))
                  for path, ops in paths.items() for method, op in ops.items()
                  if "410" in op["responses"])  # fmt: skip


async def test_an_archived_table_answers_410_and_its_hands_stay_listed(
    services: Factory, clock: FakeClock, tmp_path: Path
) -> None:
    service = await services(idle_close_seconds=IDLE)
    users = make_users(2)
    archived = await closed_table(service, clock, users, hands=2)
    playing = await seated_table(service, users, SETTINGS)
    await play_hands(service, clock, playing, users, 1)
    api = await services()
    assert (await archive(api, clock, tmp_path))[archived].status == "archived"

    config = Config(bot_token=TOKEN, bot_mode="off", rate_per_second=100, rate_burst=100)
    async with TestClient(TestServer(make_app(config, tables=api))) as client:
        me = auth(users[0].id)
        routes = documented_410s()
        assert {("get", t) for t in ("", "/hands/1/replay", "/hands/1/audit",
                                     "/hands/1/export", "/hands/1/transcript")} <= set(routes)
        for method, tail in routes:
            url = f"/api/tables/{archived}{tail}"
            response = await (client.get(url, headers=me) if method == "get" else
                              client.post(url, json=BODIES[tail], headers=me))  # fmt: skip
            body = await response.json()
            assert response.status == 410, (tail, body)
            assert body["error"]["code"] == "table_archived"
            assert "archived" in body["error"]["message"]
            assert body["archived_at"] == clock.now
        # an unknown table is still 404, the open one still answers
        assert (await client.get("/api/tables/nosuchtable", headers=me)).status == 404
        assert (await client.get(f"/api/tables/{playing}", headers=me)).status == 200
        assert (await client.get(f"/api/tables/{playing}/hands/1/replay",
                                 headers=me)).status == 200  # fmt: skip

        rows = (await (await client.get("/api/me/hands", headers=me)).json())["hands"]
        assert {(r["table_id"], r["hand"]) for r in rows} == {
            (archived, 1), (archived, 2), (playing, 1)}
        assert all(r.get("archived") is True for r in rows if r["table_id"] == archived)
        assert all("archived" not in r for r in rows if r["table_id"] == playing)
