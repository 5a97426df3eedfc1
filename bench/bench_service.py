"""In-process benchmark of the application layer: `python bench/bench_service.py`.

Two figures, on the Redis at REDIS_URL (default the local one), in a throw-away namespace:
- `act`: player actions through `TableService.act` (find_action + load tail + decide + append),
  from one task per table, reporting actions/s and latency percentiles;
- `bots`: tables of practice bots driven by the timer/bot worker with no think time, reporting
  appended events/s — what one process sustains when it only drives tables.
Run it briefly: the machine is shared.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time
import uuid

from events.store import open_store
from service.game.settings import TableSettings
from service.tables import bots
from service.tables.facade import User
from service.tables.service import TableService


class JumpClock:
    """Real time plus a jump, so next-hand pauses pass without sleeping."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


async def bench_act(url: str, tables: int, seconds: float) -> None:
    clock = JumpClock()
    service = TableService(open_store(url), clock=clock, namespace=f"bench{uuid.uuid4().hex[:8]}:")
    settings = TableSettings(ante=1, next_hand_seconds=0, max_buy_in=1000, min_buy_in=10)
    latencies: list[float] = []
    stop_at = time.perf_counter() + seconds

    async def play(n: int) -> None:
        users = [User(id=10**12 + n * 10 + i, name=f"p{i}") for i in range(3)]
        table_id = await service.create_table(users[0], settings)
        for user in users:
            await service.seat(user, table_id, 300)
        rng = random.Random(n)
        while time.perf_counter() < stop_at:
            acted = False
            for user in users:
                choice = bots.choose(await service.view(user, table_id), rng)
                if choice is None:
                    continue
                started = time.perf_counter()
                await service.act(
                    user, table_id, action_id=uuid.uuid4().hex, type=choice[0], amount=choice[1]
                )
                latencies.append(time.perf_counter() - started)
                acted = True
                break
            if not acted:
                state = (await service.repo.load(table_id)).state
                if state is None or state.deadline is None:
                    return  # someone is broke: this table is done
                clock.offset += max(0.0, state.deadline - clock())
                await service.driver.fire(table_id)

    began = time.perf_counter()
    await asyncio.gather(*(play(n) for n in range(tables)))
    elapsed = time.perf_counter() - began
    latencies.sort()

    def pct(p: float) -> float:
        return latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000

    print(
        f"act: {tables} tables, {len(latencies)} actions in {elapsed:.1f}s = "
        f"{len(latencies) / elapsed:.0f}/s; latency p50 {pct(0.5):.2f} ms, "
        f"p99 {pct(0.99):.2f} ms"
    )
    await service.store.close()


async def bench_bots(url: str, tables: int, seconds: float) -> None:
    clock = JumpClock()
    service = TableService(
        open_store(url),
        clock=clock,
        namespace=f"bench{uuid.uuid4().hex[:8]}:",
        think_seconds=0.0,
        poll_seconds=0.005,
        bots_play_alone=True,
    )
    settings = TableSettings(ante=1, next_hand_seconds=0, max_seats=4)
    creator = User(id=10**12, name="bench")
    ids = [await service.create_table(creator, settings, practice_bots=3) for _ in range(tables)]
    versions = [await service.store.version(service.streams.table(t)) for t in ids]
    await service.start()
    await asyncio.sleep(seconds)
    await service.stop()
    after = [await service.store.version(service.streams.table(t)) for t in ids]
    appended = sum(after) - sum(versions)
    print(
        f"bots: {tables} tables of 3 practice bots, {appended} events in {seconds:.0f}s = "
        f"{appended / seconds:.0f} events/s ({service.driver.fired} bot/timer firings)"
    )
    await service.store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--only", choices=["act", "bots"])
    args = parser.parse_args()
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # pragma: no cover - optional
        pass
    if args.only in (None, "act"):
        asyncio.run(bench_act(args.redis, args.tables, args.seconds))
    if args.only in (None, "bots"):
        asyncio.run(bench_bots(args.redis, args.tables, args.seconds))


if __name__ == "__main__":
    main()
