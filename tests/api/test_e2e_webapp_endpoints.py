"""The endpoints the web app added (hand history, buying in again, the lobby's table names,
the daily top-up time) over HTTP against a real `svara serve` on the real Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest

from tests.support.e2e_game import TOKEN, new_table, server_env, user_ids
from tests.support.http_player import HttpPlayer
from tests.support.serve import Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.fixture
async def server(redis_url: str) -> AsyncIterator[Server]:
    s = Server(server_env(redis_url)).start()
    yield s
    assert s.stop() == 0, s.output()[-3000:]


async def test_history_rebuy_listing_and_topup_over_http(server: Server) -> None:
    async with aiohttp.ClientSession() as session:
        ana, boris, cleo = (HttpPlayer(session, server.url, uid, TOKEN, name)
                            for uid, name in zip(user_ids(3), ("Ana", "Boris", "Cleo"),
                                                 strict=True))
        table = await new_table(ana, [ana, boris], buy_in=10, min_buy_in=10, max_buy_in=500,
                                max_seats=3)
        # both all in with the ante: hand 1 is settled at once, one of them is busted
        view = await ana.view(table)
        assert view["hand"]["phase"] == "settled" and view["host"] == "Ana"
        busted = next(p for p in (ana, boris)
                      if next(s for s in view["seats"] if s["user_id"] == p.user_id)["stack"] == 0)

        hands = (await ana.ok("GET", f"/api/tables/{table}/hands?limit=5"))["hands"]
        assert [h["number"] for h in hands] == [1]
        assert hands[0]["names"] == {"0": "Ana", "1": "Boris"}
        assert hands[0]["showdowns"][-1]["capped"] is True
        for query in ("limit=0", "limit=51", "limit=x"):
            status, body = await ana.call("GET", f"/api/tables/{table}/hands?{query}")
            assert status == 400 and body["error"]["code"] in {"bad_request", "invalid_parameter"}

        listed = {t["table_id"]: t for t in (await cleo.ok("GET", "/api/tables"))["tables"]}
        assert listed[table]["host"] == "Ana" and listed[table]["bet_unit"] == 10
        assert (listed[table]["min_buy_in"], listed[table]["max_buy_in"]) == (10, 500)

        status, body = await cleo.call("POST", f"/api/tables/{table}/rebuy", {"buy_in": 100})
        assert status == 403 and body["error"]["code"] == "not_seated"
        status, body = await busted.call("POST", f"/api/tables/{table}/rebuy", {"buy_in": -1})
        assert status == 400
        # above the table's maximum, though the wallet (990) covers it: refused, and the
        # player keeps the seat and every chip
        before = await busted.view(table)
        status, body = await busted.call("POST", f"/api/tables/{table}/rebuy", {"buy_in": 600})
        assert status == 422 and body["error"]["code"] == "buy_in_out_of_range", body
        assert await busted.view(table) == before
        assert (await busted.ok("GET", "/api/me"))["balance"] == 990
        view = await busted.ok("POST", f"/api/tables/{table}/rebuy", {"buy_in": 200})
        mine = next(s for s in view["seats"] if s["user_id"] == busted.user_id)
        assert mine["stack"] in (200, 190)  # 190 once the next hand took its ante

        me = await cleo.ok("GET", "/api/me")
        assert me["daily_topup"]["amount"] == 1000 and me["daily_topup"]["next_at"] > 0

        doc = await cleo.ok("GET", "/api/openapi.json")
        assert {"/api/tables/{id}/hands", "/api/tables/{id}/rebuy"} <= set(doc["paths"])
