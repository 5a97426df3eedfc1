"""Redis rewriting its AOF (`BGREWRITEAOF`, the deploy's `deploy/redis.conf`: appendonly yes,
everysec) while tables are played over HTTP through a real `svara serve`: no error, and the
p99 of an action while a rewrite runs, beside the p99 without one (both printed; the figures
are in docs/PERFORMANCE.md "AOF rewrite under load").

Redis holds ~60 MB before the play starts, so each rewrite (a fork writing a new base file)
takes long enough to overlap many actions; rewrites run back to back through the second half.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
import redis

from tests.support.e2e_game import TOKEN, new_table, server_env, user_ids
from tests.support.http_player import HttpPlayer, choose
from tests.support.redis_servers import RedisServer, free_port
from tests.support.serve import REPO, Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]

TABLES = 6
WINDOW = 6.0  # seconds of play without, then with, rewrites


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path / "redis", free_port(), "--enable-debug-command", "local",
                         config=REPO / "deploy" / "redis.conf")
    yield server.start()
    server.kill9()


def p99(samples: list[float]) -> float:
    if len(samples) < 2:
        return samples[0]
    return statistics.quantiles(samples, n=100, method="inclusive")[98]


async def test_actions_through_aof_rewrites(
    redis_server: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    admin = redis.Redis(port=redis_server.port)
    admin.execute_command("DEBUG", "POPULATE", 600_000, "ballast", 100)
    server = Server(server_env(redis_server.url)).start()
    phase = "plain"
    times: dict[str, list[float]] = {"plain": [], "rewrite": []}
    refused: list[tuple[int, object]] = []
    rewrites = 0
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
            players = [HttpPlayer(session, server.url, u, TOKEN) for u in user_ids(2 * TABLES)]
            tables = [await new_table(players[2 * i], players[2 * i:2 * i + 2], turn_seconds=600)
                      for i in range(TABLES)]
            stop = asyncio.Event()

            async def play(table: str, seated: list[HttpPlayer], rng: random.Random) -> None:
                while not stop.is_set():
                    views = await asyncio.gather(*(p.view(table) for p in seated))
                    for p, v in zip(seated, views, strict=True):
                        move = choose(v, rng)
                        if move is None:
                            continue
                        rewriting = phase == "rewrite" and _rewriting(admin)
                        started = time.monotonic()
                        status, body = await p.act(table, *move, expected_version=v["version"])
                        elapsed = time.monotonic() - started
                        if status != 200:
                            refused.append((status, body))
                        elif phase == "plain" or rewriting:
                            times[phase].append(elapsed)
                        break
                    else:
                        await asyncio.sleep(0.05)  # between hands: nobody to move

            players_of = [players[2 * i:2 * i + 2] for i in range(TABLES)]
            playing = [asyncio.create_task(play(t, s, random.Random(i)))
                       for i, (t, s) in enumerate(zip(tables, players_of, strict=True))]
            await asyncio.sleep(WINDOW)
            phase = "rewrite"
            ends = time.monotonic() + WINDOW
            while time.monotonic() < ends:
                admin.bgrewriteaof()
                rewrites += 1
                while True:  # polled: the rewrite runs in Redis
                    if not (_rewriting(admin) or _scheduled(admin)):
                        break
                    await asyncio.sleep(0.02)
            stop.set()
            await asyncio.gather(*playing)
        with capsys.disabled():
            print(f"\nAOF rewrite: {rewrites} rewrites; actions p99 {p99(times['plain']) * 1e3:.1f}"
                  f" ms without ({len(times['plain'])}), {p99(times['rewrite']) * 1e3:.1f} ms "
                  f"during a rewrite ({len(times['rewrite'])}), max "
                  f"{max(times['rewrite']) * 1e3:.1f} ms")
        # Only a lost race is allowed (a player's action against a version a timer moved on).
        assert all(s == 409 for s, _ in refused), refused
        assert rewrites >= 2 and len(times["rewrite"]) >= 20, (rewrites, times)
        persistence = admin.info("persistence")
        assert persistence["aof_last_bgrewrite_status"] == "ok", persistence
        assert persistence["aof_last_write_status"] == "ok", persistence
    finally:
        admin.close()
        assert server.stop() == 0, server.output()[-3000:]
    assert "answering 503" not in server.output(), server.output()[-3000:]


def _rewriting(admin: redis.Redis) -> bool:
    return bool(admin.info("persistence")["aof_rewrite_in_progress"])


def _scheduled(admin: redis.Redis) -> bool:
    return bool(admin.info("persistence")["aof_rewrite_scheduled"])
