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
import random
import sys
import time
import uuid
from pathlib import Path

import aiohttp

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_api import BARE, TOKEN, pct, start, stop  # noqa: E402
from bench_game import PLAYERS, random_command  # noqa: E402

from events.codec import encode_table_event  # noqa: E402
from events.store import open_store  # noqa: E402
from service.api.auth import sign_init_data  # noqa: E402
from service.game import commands as cmd  # noqa: E402
from service.game.decider import decide, evolve  # noqa: E402
from service.game.settings import TableSettings  # noqa: E402
from service.game.state import TableState, encode_state  # noqa: E402
from service.tables.hands_index import HandTracker, fold_tracked  # noqa: E402

# ../shared beside the repo (CI); BARE_STACK=<path> where the checkout lies elsewhere
BARE_STACK = Path(os.environ.get("BARE_STACK", str(BARE)))


def play_table(table_id: str, events: int, seed: int = 1) -> tuple[list[list], int]:
    """Batches of (event, at) as the commands decided them, until `events` events."""
    rng = random.Random(seed)
    now = 1_000.0
    state: TableState | None = None
    setup: list[cmd.TableCommand] = [cmd.CreateTable(
        table_id=table_id, settings=TableSettings(ante=1, max_buy_in=10**9), created_by=1,
        now=now, seed=rng.randbytes(32))]
    setup += [cmd.SitDown(user_id=u, name=f"P{u}", buy_in=10**8, transfer_id=str(u), now=now,
                          seed=rng.randbytes(32)) for u in PLAYERS]  # fmt: skip
    batches: list[list] = []
    total = 0
    hands = 0
    while total < events:
        if setup:
            command = setup.pop(0)
        elif state is None or state.hand is None or state.hand.phase == "settled":
            assert state is not None and state.deadline is not None
            now = max(now + 0.5, state.deadline)
            command = cmd.Tick(now=now, seed=rng.randbytes(32))
        else:
            now += 0.5
            command = random_command(state, rng, now)
        batch = decide(state, command)
        for e in batch:
            state = evolve(state, e)
        batches.append([(e, float(command.now)) for e in batch])
        total += len(batch)
        hands = state.hand_number if state is not None else 0
    return batches, hands


async def build(url: str, namespace: str, table_id: str, events: int) -> int:
    """Write the table; returns its number of settled hands."""
    store = open_store(url)
    stream = f"{namespace}table:{table_id}"
    tracker = HandTracker(namespace, table_id)
    batches, hands = play_table(table_id, events)
    state: TableState | None = None
    version = 0
    chunk: list = []
    for batch in batches:
        chunk += batch
        if len(chunk) < 500 and batch is not batches[-1]:
            continue
        evs = [e for e, _ in chunk]
        new_state, ops = fold_tracked(tracker, state, evs, version + 1, [a for _, a in chunk])
        result = await store.append(stream, [encode_table_event(e) for e in evs],
                                    expected_version=version, at=chunk[-1][1], index=ops)
        assert result.status == "appended", result
        state, version, chunk = new_state, result.version, []
    assert state is not None
    await store.save_snapshot(stream, version, encode_state(state))
    await store.close()
    return hands - 1


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
    hands = await build(args.redis, namespace, table_id, args.events)
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
