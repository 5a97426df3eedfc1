"""What the bot costs the command path and Redis (docs/PERFORMANCE.md, "The bot").

    python bench/bench_bot.py [--appends 20000] [--redis-url redis://127.0.0.1:6379/0]

1. The bot's observer (`service.bot.watch.TableWatch`) on every append of random hands through
   the game engine: the time it takes to look at a batch and start its jobs (the jobs
   themselves run later, off the command path). With the bot off the observer list is empty.
2. Round trips of what a ping needs from Redis: presence (open, look, close) and a once-only
   claim, and one presence refresh of many sockets. Keys are namespaced and deleted after.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
import uuid
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from redis.asyncio import Redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from events.store.kv import RedisKeyValue
from service.bot.watch import TableWatch
from service.game import commands as cmd
from service.game.decider import decide, evolve
from service.tables.presence import Presence
from tests.support import random_play


class _Tables:
    def __init__(self) -> None:
        self.observers: list[Any] = []


class _Jobs:
    """Stands in for pings, notices and results: the jobs are made, never run (so the
    notices' reach and the results' groups, which the watch hands on, are never asked)."""

    reach: object = None
    groups: object = None

    def wanted(self, turn: object) -> bool:
        return True

    def table_changed(self, table_id: str) -> None:
        pass

    def stop(self) -> None:
        pass

    async def turn_started(self, *args: object) -> None:
        pass

    async def timed_out(self, *args: object, **kwargs: object) -> None:
        pass

    async def settled(self, *args: object) -> None:
        pass


def watch_cost(appends: int) -> None:
    rng = random.Random(1)
    state = random_play.new_table(rng)
    now, version = 1000.0, 100
    batches = []
    for _ in range(appends):
        hand = state.hand
        if hand is None or hand.phase == "settled":
            now = max(now, state.deadline)
            command: cmd.TableCommand = cmd.Tick(now=now, seed=rng.randbytes(32))
        else:
            command = random_play.random_command(state, rng, now)
        events = decide(state, command)
        for event in events:
            state = evolve(state, event)
        batches.append((version + 1, events, state))
        version += len(events)
        now += 0.5
    jobs = _Jobs()
    watch = TableWatch(_Tables(), jobs, jobs, jobs)  # type: ignore[arg-type]
    started = [0]

    def spawn(job: Coroutine[Any, Any, None]) -> None:
        started[0] += 1
        job.close()

    watch._spawn = spawn  # type: ignore[method-assign]
    began = time.perf_counter()
    for first, events, after in batches:
        watch("t1", first, events, after)
    took = time.perf_counter() - began
    print(f"observer: {took / len(batches) * 1e6:.1f} us per append "
          f"({len(batches)} appends, {started[0]} jobs started)")


async def redis_costs(url: str, n: int) -> None:
    client = Redis.from_url(url)
    kv = RedisKeyValue(client)
    namespace = f"benchbot{uuid.uuid4().hex[:8]}:"
    presence = Presence(kv, namespace=namespace)
    try:
        began = time.perf_counter()
        tokens = [await presence.opened(f"t{i % 50}", i) for i in range(n)]
        opened = time.perf_counter() - began
        began = time.perf_counter()
        for i in range(n):
            await presence.watching(f"t{i % 50}", i)
        looked = time.perf_counter() - began
        began = time.perf_counter()
        await presence.refresh()
        refreshed = time.perf_counter() - began
        began = time.perf_counter()
        for i in range(n):
            await kv.claim(f"{namespace}claim{i}", 60)
        claimed = time.perf_counter() - began
        for token in tokens:
            await presence.closed(token)
        per = 1e3 / n
        print(f"redis: presence open {opened * per:.3f} ms, look {looked * per:.3f} ms, "
              f"claim {claimed * per:.3f} ms each; refresh of {n} sockets {refreshed * 1e3:.0f} ms")
    finally:
        keys = [key async for key in client.scan_iter(match=f"*{namespace}*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--appends", type=int, default=20_000)
    parser.add_argument("--sockets", type=int, default=2_000)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    args = parser.parse_args()
    watch_cost(args.appends)
    asyncio.run(redis_costs(args.redis_url, args.sockets))


if __name__ == "__main__":
    main()
