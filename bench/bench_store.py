"""Event store benchmarks, each printed beside raw `redis-benchmark` XADD from the same run.

    python3 bench/bench_store.py [--redis-url redis://127.0.0.1:6379/0] [--events 100000]

Measures (on the Redis at --redis-url; keys are uuid-named and deleted afterwards):
- version-checked appends/s: one writer on one table; 64 tables appended concurrently;
- replay: XRANGE + decode + evolve of a 100,000-event table (target >= 300,000 events/s);
- load time of that table through its snapshot (target <= 5 ms).
Replay uses the real table codec and fold (`events.codec.decode_table_event`,
`service.game.evolve.evolve`) when they import, else a trivial fold; it prints which.
Not a test: it measures. Keep it brief on shared machines (about 20 s).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from events.store.base import StoredEvent
from events.store.factory import open_redis_store
from events.store.redis_store import RedisEventStore
from tests.support.fast_replay import load_state, read_pages

PAYLOAD = b'{"type":"raised","seat":3,"user_id":1234567,"amount":40,"to":120,"pot":360,"at":1.7e9}'


# -- a realistic table, or a trivial stand-in ------------------------------------------------


class Fold:
    """How replay turns bytes into state: the real game, or a trivial stand-in."""

    def __init__(self) -> None:
        self.name = "trivial fold (count + length)"
        self.initial: Callable[[], Any] = lambda: (0, 0)
        self.apply: Callable[[Any, StoredEvent], Any] = lambda s, e: (s[0] + 1, s[1] + len(e.data))
        self.encode_state: Callable[[Any], bytes] = lambda s: f"{s[0]},{s[1]}".encode()
        self.decode_state: Callable[[bytes], Any] = lambda b: tuple(int(x) for x in b.split(b","))
        self.events: Callable[[int], list[bytes]] = lambda n: [PAYLOAD] * n
        # replay's fast path: fold a page of event bytes at once (fast_replay.read_pages)
        self.fold_page: Callable[[Any, list[bytes]], Any] = lambda s, datas: (
            s[0] + len(datas),
            s[1] + sum(map(len, datas)),
        )
        try:
            self._use_game()
        except Exception as exc:  # the game may not be importable yet: say so and go on
            print(f"(real codec/fold unavailable: {exc!r})")

    def _use_game(self) -> None:
        from events.codec import decode_table_event, decode_table_events, encode_table_event
        from service.game import commands as cmd
        from service.game.decider import decide
        from service.game.evolve import evolve, fold
        from service.game.state import decode_state, encode_state
        from tests.support import random_play  # the same random legal play as the game bench

        def play(n: int) -> list[bytes]:
            """Random legal play by 3 players until `n` events exist."""
            rng = random.Random(1)
            out: list[bytes] = []
            state: Any = None
            now = 1_000.0

            def run(command: Any) -> None:
                nonlocal state
                for event in decide(state, command):
                    state = evolve(state, event)
                    out.append(encode_table_event(event))

            for command in random_play.setup_commands(rng, now):
                run(command)
            while len(out) < n:
                hand = state.hand
                if hand is None or hand.phase == "settled":
                    now = max(now, state.deadline)
                    run(cmd.Tick(now=now, seed=rng.randbytes(32)))
                    continue
                run(random_play.random_command(state, rng, now))
            return out[:n]

        self.events = play
        self.initial = lambda: None
        self.apply = lambda s, e: evolve(s, decode_table_event(e.data))
        self.fold_page = lambda s, datas: fold(decode_table_events(datas), s)
        self.encode_state = encode_state
        self.decode_state = decode_state
        self.name = "real codec + fold (events.codec.decode_table_event, service.game evolve)"


# -- raw redis-benchmark --------------------------------------------------------------------


def redis_benchmark(url: str, clients: int, requests: int) -> str:
    exe = shutil.which("redis-benchmark")
    if exe is None:
        return "redis-benchmark not installed"
    parts = urlsplit(url)
    key = f"bench:{{{uuid.uuid4().hex}}}:xadd"
    args = [exe, "-h", parts.hostname or "127.0.0.1", "-p", str(parts.port or 6379)]
    args += ["-n", str(requests), "-c", str(clients), "-q", "XADD", key, "*", "d", PAYLOAD.decode()]
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)
        line = [
            x for x in out.stdout.replace("\r", "\n").splitlines() if "requests per second" in x
        ]
        rate = line[-1].rsplit(":", 1)[-1] if line else out.stdout.strip()[-200:]
        return rate.split(",")[0].strip()
    finally:
        subprocess.run([*args[:5], "DEL", key], capture_output=True, timeout=10, check=False)


# -- the measurements -----------------------------------------------------------------------


async def appends_one_writer(store: RedisEventStore, n: int) -> float:
    s = f"bench:{uuid.uuid4().hex[:12]}"
    await store.append(s, [PAYLOAD], expected_version=0)  # warm: functions loaded, head cached
    start = time.perf_counter()
    for v in range(1, n + 1):
        result = await store.append(s, [PAYLOAD], expected_version=v, action_id=f"a{v}")
        assert result.status == "appended"
    elapsed = time.perf_counter() - start
    await drop(store, s)
    return n / elapsed


async def raw_xadd_python(store: RedisEventStore, n: int) -> float:
    """The client-library ceiling: plain XADD from redis-py, no script, no version check."""
    key = f"bench:{{{uuid.uuid4().hex}}}:raw"
    start = time.perf_counter()
    for _ in range(n):
        await store.client.xadd(key, {"d": PAYLOAD})
    elapsed = time.perf_counter() - start
    await store.client.delete(key)
    return n / elapsed


async def appends_many_tables(store: RedisEventStore, tables: int, per_table: int) -> float:
    streams = [f"bench:{uuid.uuid4().hex[:12]}" for _ in range(tables)]
    await asyncio.gather(*(store.append(s, [PAYLOAD], expected_version=0) for s in streams))

    async def writer(s: str) -> None:
        for v in range(1, per_table + 1):
            result = await store.append(s, [PAYLOAD], expected_version=v, action_id=f"a{v}")
            assert result.status == "appended"

    start = time.perf_counter()
    await asyncio.gather(*(writer(s) for s in streams))
    elapsed = time.perf_counter() - start
    for s in streams:
        await drop(store, s)
    return tables * per_table / elapsed


async def drop(store: RedisEventStore, stream: str) -> None:
    await store.client.delete(
        *(f"svara:{{{stream}}}:{k}" for k in ("events", "actions", "snapshot"))
    )


async def fill(store: RedisEventStore, stream: str, datas: list[bytes]) -> None:
    version = 0
    for i in range(0, len(datas), 1000):
        result = await store.append(stream, datas[i : i + 1000], expected_version=version)
        version = result.version


async def replay(
    store: RedisEventStore, stream: str, fold: Fold
) -> tuple[float, float, float, Any]:
    """Generic path (`read`, then apply each StoredEvent): (events/s end to end, events/s
    XRANGE only, events/s decode+evolve only, state)."""
    start = time.perf_counter()
    events = await store.read(stream)
    read_done = time.perf_counter()
    state = fold.initial()
    for event in events:
        state = fold.apply(state, event)
    end = time.perf_counter()
    n = len(events)
    return n / (end - start), n / (read_done - start), n / (end - read_done), state


async def replay_pages(store: RedisEventStore, stream: str, fold: Fold) -> tuple[float, Any]:
    """Replay's fast path (`read_pages`: bytes only, next page fetched while this one folds):
    (events/s end to end, state)."""
    start = time.perf_counter()
    state, last = fold.initial(), 0
    async for version, datas in read_pages(store, stream):
        state = fold.fold_page(state, datas)
        last = version
    return last / (time.perf_counter() - start), state


async def snapshot_load(store: RedisEventStore, stream: str, fold: Fold, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        await load_state(
            store, stream, initial=fold.initial, apply=fold.apply, decode_snapshot=fold.decode_state
        )
        times.append((time.perf_counter() - start) * 1000)
    return times


async def main(url: str, n_events: int) -> None:
    store = open_redis_store(url)
    loop = type(asyncio.get_running_loop()).__module__
    print(f"Redis {url}; Python {sys.version.split()[0]}; event loop {loop}; {os.cpu_count()} CPUs")
    fold = Fold()
    try:
        print("\n== Version-checked appends (one event each, with action_id) ==")
        one = await appends_one_writer(store, 3000)
        print(f"  store, one writer, one table:   {one:10,.0f} appends/s")
        print(f"  redis-benchmark XADD -c 1:      {redis_benchmark(url, 1, 20000)}")
        raw = await raw_xadd_python(store, 3000)
        print(f"  redis-py plain XADD, one task:  {raw:10,.0f} XADD/s")
        many = await appends_many_tables(store, 64, 100)
        print(f"  store, 64 tables concurrently:  {many:10,.0f} appends/s")
        print(f"  redis-benchmark XADD -c 64:     {redis_benchmark(url, 64, 100000)}")

        print(f"\n== Replay of a {n_events:,}-event table: {fold.name} ==")
        tail = 20
        datas = fold.events(n_events + tail)
        avg = sum(map(len, datas)) / len(datas)
        stream = f"bench:{uuid.uuid4().hex[:12]}"
        await fill(store, stream, datas[:n_events])
        best = None
        fast = 0.0
        for _ in range(3):
            result = await replay(store, stream, fold)
            if best is None or result[0] > best[0]:
                best = result
            rate, state = await replay_pages(store, stream, fold)
            assert state == result[3], "read_pages folds to a different state than read"
            fast = max(fast, rate)
        assert best is not None
        total, xrange_only, fold_only, state = best
        print(f"  event size {avg:.0f} B; best of 3")
        print("  XRANGE + decode + evolve, read_pages (replay's fast path):")
        print(f"                                  {fast:10,.0f} events/s  (target >= 300,000)")
        print("  the same through read() + one apply per StoredEvent:")
        print(f"                                  {total:10,.0f} events/s")
        print(f"    XRANGE + parse only:          {xrange_only:10,.0f} events/s")
        print(f"    decode + evolve only:         {fold_only:10,.0f} events/s")

        print(f"\n== Load of that table through its snapshot (at version {n_events:,}) ==")
        await store.save_snapshot(stream, n_events, fold.encode_state(state))
        await store.append(stream, datas[n_events:], expected_version=n_events)  # a short tail
        times = sorted(await snapshot_load(store, stream, fold, 200))
        p50, p99 = statistics.median(times), times[int(len(times) * 0.99) - 1]
        print(f"  snapshot + {tail}-event tail:       p50 {p50:.2f} ms, p99 {p99:.2f} ms"
              "  (target <= 5 ms)")  # fmt: skip
        await drop(store, stream)
    finally:
        await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    parser.add_argument("--events", type=int, default=100_000)
    ns = parser.parse_args()
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    asyncio.run(main(ns.redis_url, ns.events))
