"""A full Redis (maxmemory reached under `noeviction`, the deploy's policy) over HTTP, against a
real `svara serve` and a redis-server of the test's own: an action answers 503 `store_full`
(never a 500), writes nothing, is logged once for the episode and counted in /metrics; once
memory is freed the same action succeeds by itself and the table's chain audits fine.

The embedded store (fakeredis) has no memory limit and never refuses a write for memory, so
there is no embedded counterpart."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import redis

from events.store.factory import open_redis_store
from tests.support.e2e_game import TOKEN, new_table, server_env, user_ids
from tests.support.http_player import HttpPlayer
from tests.support.redis_servers import RedisServer, free_port
from tests.support.serve import Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]

FULL_LOG = "Redis is at its memory limit"


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    srv = RedisServer(tmp_path / "redis", free_port(), "--maxmemory-policy", "noeviction")
    yield srv.start()
    srv.kill9()


def fill(port: int) -> int:
    """Fill Redis with junk keys of our own until even a 1-byte write is refused, then set
    the limit a little under what is used, so memory the server frees by itself (a client
    buffer) cannot end the episode before the test does. Returns the keys written."""
    r = redis.Redis(port=port)
    used = int(r.info("memory")["used_memory"])
    r.config_set("maxmemory", used + 2_000_000)
    written = 0
    for size in (10_000, 100, 1):
        try:
            while True:
                r.set(f"junk:{written}", b"j" * size)
                written += 1
        except redis.exceptions.OutOfMemoryError:
            pass
    used = int(r.info("memory")["used_memory"])
    r.config_set("maxmemory", used - 256_000)
    r.close()
    return written


def metric(text: str, name: str) -> float:
    found = re.search(rf"^{name} (\S+)$", text, re.MULTILINE)
    assert found, name
    return float(found.group(1))


async def test_a_full_redis_answers_503_store_full_and_recovers_by_itself(
    redis_server: RedisServer,
) -> None:
    namespace = "full-test"
    server = Server(server_env(redis_server.url, namespace=namespace)).start()
    store = open_redis_store(redis_server.url)
    try:
        async with aiohttp.ClientSession() as session:
            players = [HttpPlayer(session, server.url, u, TOKEN) for u in user_ids(2)]
            table = await new_table(players[0], players, turn_seconds=600)
            stream = f"{namespace}:table:{table}"
            views = [await p.view(table) for p in players]
            mover, seen = next((p, v) for p, v in zip(players, views, strict=True)
                               if v["you"]["seat"] == v["hand"]["turn"])
            move: dict[str, Any] = next(a for a in seen["you"]["legal"] if a["type"] != "look")
            amount = move.get("amount", move.get("min"))
            before = await store.version(stream)
            scoped = f"{mover.user_id}:full-1"  # how the service records a player's action_id

            assert fill(redis_server.port) > 0
            for _ in range(3):  # the same action, retried: refused each time, never a 500
                status, body = await mover.act(table, move["type"], amount, action_id="full-1")
                assert status == 503 and body["error"]["code"] == "store_full", (status, body)
            # Nothing of it written: neither the events nor their index entries (one atomic
            # function call, refused before it ran), nor the action id.
            assert await store.version(stream) == before
            assert await store.find_action(stream, scoped) is None
            assert (await mover.view(table))["version"] == before  # reads still answer
            async with session.get(f"{server.url}/metrics") as resp:
                text = await resp.text()
            assert metric(text, "svara_store_full_refusals_total") >= 3
            assert metric(text, "svara_store_full") == 1

            r = redis.Redis(port=redis_server.port)
            r.config_set("maxmemory", 0)  # memory freed (the limit raised): no restart
            r.close()
            status, body = await mover.act(table, move["type"], amount, action_id="full-1")
            assert status == 200, body
            assert body["version"] > before
            assert await store.find_action(stream, scoped) == body["version"]
            assert await store.verify(stream) == body["version"]
            async with session.get(f"{server.url}/metrics") as resp:
                assert metric(await resp.text(), "svara_store_full") == 0
    finally:
        await store.close()
        assert server.stop() == 0, server.output()[-3000:]
    log = server.output()
    assert log.count(FULL_LOG) == 1, log[-3000:]  # once for the episode, not per request
    assert "Redis accepts writes again" in log
    assert "Traceback" not in log and "internal_error" not in log, log[-3000:]
