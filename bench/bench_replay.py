"""Replay benchmark: `GET /api/tables/{id}/hands/{n}/replay` of one hand of a table with
100,000 events, over HTTP against `svara serve`, beside the bare-stack yardstick
(../shared/bench/bare_stack.py: one POST, one Lua XADD) measured in the same run.

The table is played by the game core in this process (three players, random legal actions,
as bench_game.py) and written to Redis in batches with the hands index entries the live path
would have written (`HandTracker`), then a snapshot at its head. Requests are sequential on
one keep-alive connection; the figure is the whole answer (status, headers, body read).

    python bench/bench_replay.py [--events 100000] [--requests 1000] [--redis URL]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
import uuid
from pathlib import Path

import aiohttp

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_api import BARE, TOKEN, pct, start, stop  # noqa: E402

from events.store import open_store  # noqa: E402
from service.api.auth import sign_init_data  # noqa: E402
from tests.support.random_play import PLAYERS, write_big_table  # noqa: E402

# ../shared beside the repo (CI); BARE_STACK=<path> where the checkout lies elsewhere
BARE_STACK = Path(os.environ.get("BARE_STACK", str(BARE)))


async def measure(url: str, n: int, headers: dict[str, str], method: str = "GET",
                  body: bytes | None = None) -> list[float]:
    out: list[float] = []
    async with aiohttp.ClientSession() as session:
        for i in range(n + 20):
            t = time.perf_counter()
            async with session.request(method, url, headers=headers, data=body) as resp:
                await resp.read()
                assert resp.status == 200, (resp.status, await resp.text())
            if i >= 20:  # warm-up
                out.append(time.perf_counter() - t)
    return out


async def cleanup(url: str, namespace: str) -> None:
    store = open_store(url)
    client = store.client  # type: ignore[attr-defined]
    keys = [k async for k in client.scan_iter(match=f"svara:*{namespace}*")]
    keys += [k async for k in client.scan_iter(match="bare:{replaybench*")]
    for i in range(0, len(keys), 500):
        await client.delete(*keys[i : i + 500])
    await store.close()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/13"))
    args = parser.parse_args()
    run = uuid.uuid4().hex[:8]
    namespace, table_id = f"replaybench{run}:", f"rb{run}"
    started = time.perf_counter()
    hands = await write_big_table(args.redis, namespace, table_id, args.events)
    print(f"table {table_id}: {args.events}+ events, {hands} settled hands, built in "
          f"{time.perf_counter() - started:.1f} s")
    env = {"REDIS_URL": args.redis, "BOT_TOKEN": TOKEN, "BOT_MODE": "off", "WORKERS": "1",
           "SVARA_NAMESPACE": namespace[:-1], "RATE_LIMIT_PER_SECOND": "100000",
           "RATE_LIMIT_BURST": "100000", "LOG_LEVEL": "WARNING", "PRACTICE_BOTS": "0"}
    server = start([sys.executable, "-m", "service.cli", "serve", "--port", "8391"], env,
                   "http://127.0.0.1:8391/api/health")
    try:
        bare = start([sys.executable, str(BARE_STACK), "8392"], {"REDIS_URL": args.redis},
                     "http://127.0.0.1:8392/act", cwd=BARE_STACK.parent)
    except BaseException:
        stop(server)
        raise
    try:
        auth = {"Authorization": "tma " + sign_init_data(TOKEN, user_id=PLAYERS[0], name="P")}
        hand = hands // 2
        replay = await measure(
            f"http://127.0.0.1:8391/api/tables/{table_id}/hands/{hand}/replay", args.requests,
            auth)
        body = b'{"table": "replaybench%s"}' % run.encode()
        yard = await measure("http://127.0.0.1:8392/act", args.requests, {}, "POST", body)
        for name, values in (("replay of one hand", replay), ("bare stack POST", yard)):
            print(f"{name:<20} n={len(values)}  p50 {pct(values, 0.5):.2f} ms  "
                  f"p99 {pct(values, 0.99):.2f} ms  max {max(values) * 1000:.2f} ms")
    finally:
        stop(server)
        stop(bare)
        await cleanup(args.redis, namespace)


if __name__ == "__main__":
    asyncio.run(main())
