"""Preferences over HTTP against a real `svara serve` on the real Redis: the language in the
signed initData picks the language until the player chooses one; bad input is a clear 400."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest

from service.api.auth import sign_init_data
from tests.support.e2e_game import TOKEN, server_env, user_ids
from tests.support.serve import Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.fixture
async def server(redis_url: str) -> AsyncIterator[Server]:
    server = Server(server_env(redis_url)).start()
    try:
        yield server
    finally:
        assert server.stop() == 0, server.output()[-3000:]


async def test_language_from_init_data_then_from_the_players_choice(server: Server) -> None:
    (user_id,) = user_ids(1)
    init_data = sign_init_data(TOKEN, user_id=user_id, name="Елена", language_code="bg-BG")
    headers = {"Authorization": f"tma {init_data}"}
    async with aiohttp.ClientSession(base_url=server.url, headers=headers) as http:
        async with http.get("/api/me") as resp:
            me = await resp.json()
            assert resp.status == 200, me
        assert me["language"] == "bg" and me["settings"] == {"language": None, "pings": True}

        async with http.post("/api/me/settings", json={"language": "tr", "pings": False}) as resp:
            assert resp.status == 200
            me = await resp.json()
        assert me["language"] == "tr" and me["settings"] == {"language": "tr", "pings": False}

        for body, field in (({"language": "xx"}, "language"), ({"pings": "yes"}, "pings"),
                            ({"user_id": 1}, "user_id")):
            async with http.post("/api/me/settings", json=body) as resp:
                error = (await resp.json())["error"]
                assert resp.status == 400 and field in error["message"], error
        async with http.get("/api/me") as resp:
            me = await resp.json()
            assert resp.status == 200, me
        assert me["settings"] == {"language": "tr", "pings": False}
