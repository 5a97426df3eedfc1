"""Soak: 50 tables playing and 500 spectator sockets churning against one `svara serve` for
a long run (30 minutes by default), on loopback, with its own Redis.

    python bench/bench_soak.py                        # 30 minutes
    python bench/bench_soak.py --minutes 3 --sample 10

Measured:
- the server's RSS and Redis's `used_memory` every `--sample` seconds; after the warm-up
  (the first fifth of the run) their growth per hour (least squares over the samples), per
  finished hand and per closed socket (the goal is about 0);
- the event-loop lag p99 after the warm-up (`svara_event_loop_lag_seconds` from /metrics);
- the players' broadcast latency p99 (action -> both other players' sockets) and errors;
- every spectator's frames: versions without gaps or repeats over each socket's life;
- at the end every player leaves, the tables close, and the keys a closed table keeps in Redis
  (`MEMORY USAGE` summed over the keys that name it): what a closed table costs;
- the bare-stack yardstick (its CPU per action over a short closed-loop phase) from the same
  run, so the figures can be set beside the other benchmarks'.

The Redis is a fresh `redis-server` on `--redis-port` (no persistence), so its memory is this
run's alone; it is shut down at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
from redis.asyncio import Redis

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_api as api  # the server start/stop, the HTTP client, the playing tables

from service.api.auth import sign_init_data

JSON = dict[str, Any]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def slope_per_hour(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, value) points, in value per hour."""
    if len(points) < 2:
        return float("nan")
    n = len(points)
    mx = sum(t for t, _ in points) / n
    my = sum(v for _, v in points) / n
    var = sum((t - mx) ** 2 for t, _ in points)
    if var == 0:
        return float("nan")
    return 3600 * sum((t - mx) * (v - my) for t, v in points) / var


class Spectators:
    """`count` sockets, each watching a random table for 5-30 s, then closing and opening
    again; every socket's versions must run on without a gap or a repeat."""

    def __init__(self, url: str, tables: list[str], count: int) -> None:
        self.url, self.tables, self.count = url, tables, count
        self.closed = 0
        self.broken = 0  # a gap or a repeat in a socket's versions
        self.errors: dict[str, int] = {}

    async def run(self, going: Any) -> None:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
            await asyncio.gather(*(self._one(session, i, going) for i in range(self.count)))

    async def _one(self, session: aiohttp.ClientSession, i: int, going: Any) -> None:
        init = sign_init_data(api.TOKEN, user_id=9 * 10**11 + i, name=f"watcher {i}")
        await asyncio.sleep(random.random() * 5)
        while going():
            table = random.choice(self.tables)
            lifetime = random.uniform(5, 30)
            try:
                async with session.ws_connect(f"{self.url}/api/tables/{table}/ws") as ws:
                    await ws.send_json({"type": "auth", "init_data": init})
                    ready = await ws.receive_json(timeout=10)
                    last = int(ready["version"])
                    await ws.send_json({"type": "resume", "after": last})
                    end = time.monotonic() + lifetime
                    while time.monotonic() < end and going():
                        with contextlib.suppress(TimeoutError):
                            msg = await ws.receive(timeout=min(1.0, end - time.monotonic()))
                            if msg.type != aiohttp.WSMsgType.TEXT:
                                self._error(f"closed {ws.close_code}")
                                break
                            frame = json.loads(msg.data)
                            if frame.get("type") == "event":
                                if int(frame["version"]) != last + 1:
                                    self.broken += 1
                                last = int(frame["version"])
                self.closed += 1
            except (aiohttp.ClientError, OSError, TimeoutError) as exc:
                self._error(type(exc).__name__)
                await asyncio.sleep(0.5)

    def _error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


async def hands_finished(http: api.HttpPool, seat: api.Seat, tables: list[api.Table]) -> int:
    total = 0
    for t in tables:
        status, view = await seat.req("GET", f"/api/tables/{t.id}")
        if status == 200 and view.get("hand"):
            number = int(view["hand"]["number"])
            total += number - (0 if view["hand"]["phase"] == "settled" else 1)
    return total


async def loop_lag(url: str) -> dict[float, float]:
    """The lag histogram's cumulative bucket counts from /metrics."""
    from prometheus_client.parser import text_string_to_metric_families

    async with aiohttp.ClientSession() as s, s.get(f"{url}/metrics") as r:
        text = await r.text()
    buckets: dict[float, float] = {}
    for family in text_string_to_metric_families(text):
        if family.name == "svara_event_loop_lag_seconds":
            for sample in family.samples:
                if sample.name.endswith("_bucket"):
                    buckets[float(sample.labels["le"])] = sample.value
    return buckets


def p99_between(before: dict[float, float], after: dict[float, float]) -> float:
    """The upper bound (ms) of the bucket holding the 99th percentile of the samples taken
    between two scrapes."""
    bounds = sorted(after)
    counts = [after[b] - before.get(b, 0.0) for b in bounds]
    if not counts or counts[-1] <= 0:
        return float("nan")
    for bound, count in zip(bounds, counts, strict=True):
        if count >= 0.99 * counts[-1]:
            return bound * 1000
    return float("inf")


async def closed_table_cost(redis: Redis, tables: list[str]) -> JSON:
    sizes = []
    kinds: dict[str, int] = {}
    for table in tables:
        total = 0
        async for key in redis.scan_iter(match=f"*{table}*", count=1000):
            size = int(await redis.memory_usage(key, samples=0) or 0)
            total += size
            kind = key.decode().split(table)[0].rsplit(":", 2)[-2] if b":" in key else "?"
            kinds[kind] = kinds.get(kind, 0) + size
        sizes.append(total)
    return {"bytes_per_table": sum(sizes) / max(1, len(sizes)),
            "by_key_kind": {k: v // max(1, len(tables)) for k, v in sorted(kinds.items())}}


async def bare_yardstick(redis_url: str, port: int, seconds: float) -> JSON:
    proc = api.start([sys.executable, str(api.BARE), str(port)], {"REDIS_URL": redis_url},
                     f"http://127.0.0.1:{port}/act")
    http = api.HttpPool("127.0.0.1", port, 64)
    try:
        async def loops(interval: float | None) -> list[Any]:
            return await api.bare_loops(http, 50, interval)
        return await api.throughput("bare stack", loops, seconds, proc.pid)
    finally:
        http.close()
        api.stop(proc)
        await api.drop_keys(redis_url)  # the bare stack's streams: the shared Redis keeps none


async def soak(args: argparse.Namespace, redis_url: str) -> JSON:
    yard = await bare_yardstick(redis_url, args.port + 1, 10)
    url = f"http://127.0.0.1:{args.port}"
    server = api.start(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(args.port)],
        {"REDIS_URL": redis_url, "BOT_TOKEN": api.TOKEN, "BOT_MODE": "off",
         "SVARA_NAMESPACE": "soak", "WORKERS": "1", "LOG_LEVEL": "WARNING",
         "IDLE_CLOSE_SECONDS": "2",
         "RATE_LIMIT_PER_SECOND": "1000", "RATE_LIMIT_BURST": "1000"},
        f"{url}/api/health", within=180)  # a loaded machine imports aiogram slowly
    redis = Redis.from_url(redis_url)
    http = api.HttpPool("127.0.0.1", args.port, 64)
    samples: list[JSON] = []
    try:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as ws:
            tables = await api.svara_tables(http, ws, url, args.tables)
            watchers = Spectators(url, [t.id for t in tables], args.sockets)
            stats = api.Stats()
            end = time.monotonic() + args.minutes * 60
            warm_until = time.monotonic() + args.minutes * 12  # the first fifth
            lag_at_warm: dict[float, float] = {}

            def going() -> bool:
                return time.monotonic() < end

            async def sampler() -> None:
                nonlocal lag_at_warm
                t0 = time.monotonic()
                while going():
                    info = await redis.info("memory")
                    samples.append({
                        "t": time.monotonic() - t0, "rss_mb": rss_mb(server.pid),
                        "redis_mb": int(info["used_memory"]) / 2**20,
                        "hands": await hands_finished(http, tables[0].seats[0], tables),
                        "closed": watchers.closed, "load": os.getloadavg()[0],
                    })
                    s = samples[-1]
                    print(f"  {s['t']:6.0f} s  rss {s['rss_mb']:6.1f} MB  redis "
                          f"{s['redis_mb']:6.1f} MB  hands {s['hands']}  sockets closed "
                          f"{s['closed']}", flush=True)
                    if not lag_at_warm and time.monotonic() >= warm_until:
                        lag_at_warm = await loop_lag(url)
                    await asyncio.sleep(args.sample)

            loops = api.svara_loops(tables, 1.0)

            await asyncio.gather(watchers.run(going), sampler(),
                                 *(loop(stats, going) for loop in loops))
            lag_end = await loop_lag(url)
            print("every player leaves; waiting for the tables to close ...", flush=True)
            for t in tables:  # everybody leaves: the tables close
                for seat in t.seats:
                    await seat.req("POST", f"/api/tables/{t.id}/leave")
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                _, lobby = await tables[0].seats[0].req("GET", "/api/tables")
                ids = {row["table_id"] for row in lobby.get("tables", [])}
                if not ids.intersection(t.id for t in tables):
                    break
                await asyncio.sleep(1)
            print("measuring what a closed table keeps ...", flush=True)
            cost = await closed_table_cost(redis, [t.id for t in tables])
            warm = [s for s in samples if s["t"] >= args.minutes * 12]
            hands = warm[-1]["hands"] - warm[0]["hands"] if len(warm) > 1 else 0
            closed = warm[-1]["closed"] - warm[0]["closed"] if len(warm) > 1 else 0
            rss_h = slope_per_hour([(s["t"], s["rss_mb"]) for s in warm])
            redis_h = slope_per_hour([(s["t"], s["redis_mb"]) for s in warm])
            hours = (warm[-1]["t"] - warm[0]["t"]) / 3600 if len(warm) > 1 else 0
            return {
                "minutes": args.minutes, "tables": args.tables, "sockets": args.sockets,
                "samples": samples, "rss_mb_per_hour": rss_h, "redis_mb_per_hour": redis_h,
                "rss_kb_per_hand": 1024 * rss_h * hours / max(1, hands),
                "rss_kb_per_closed_socket": 1024 * rss_h * hours / max(1, closed),
                "hands_after_warmup": hands, "sockets_closed_after_warmup": closed,
                "loop_lag_p99_ms": p99_between(lag_at_warm, lag_end),
                "broadcast_p99_ms": api.pct(stats.latencies, 0.99), "actions": stats.actions,
                "lost": stats.lost, "errors": stats.errors, "spectator_breaks": watchers.broken,
                "spectator_errors": watchers.errors, "closed_table": cost,
                "bare_cpu_ms_per_action": yard["server_cpu_ms_per_action"],
                "bare_actions_per_s": yard["actions_per_s"],
            }
    finally:
        http.close()
        api.stop(server)
        await redis.aclose()


def report(r: JSON) -> str:
    first, last = r["samples"][0], r["samples"][-1]
    return "\n".join([
        f"soak: {r['tables']} tables playing, {r['sockets']} spectator sockets churning, "
        f"{r['minutes']} min",
        f"  RSS {first['rss_mb']:.1f} -> {last['rss_mb']:.1f} MB; after warm-up "
        f"{r['rss_mb_per_hour']:+.2f} MB/h ({r['rss_kb_per_hand']:+.3f} KB per hand, "
        f"{r['rss_kb_per_closed_socket']:+.3f} KB per closed socket)",
        f"  Redis {first['redis_mb']:.1f} -> {last['redis_mb']:.1f} MB; after warm-up "
        f"{r['redis_mb_per_hour']:+.2f} MB/h (the tables' history grows: it is kept)",
        f"  hands after warm-up {r['hands_after_warmup']}, sockets closed "
        f"{r['sockets_closed_after_warmup']}, actions {r['actions']}",
        f"  event-loop lag p99 {r['loop_lag_p99_ms']:.1f} ms (bucket bound); broadcast p99 "
        f"{r['broadcast_p99_ms']:.1f} ms; lost {r['lost']}; errors {r['errors']}",
        f"  spectators: {r['spectator_breaks']} gaps or repeats; errors {r['spectator_errors']}",
        f"  a closed table keeps {r['closed_table']['bytes_per_table'] / 1024:.1f} KB in Redis "
        f"({r['closed_table']['by_key_kind']})",
        f"  machine load average {min(s['load'] for s in r['samples']):.1f}-"
        f"{max(s['load'] for s in r['samples']):.1f} over the run",
        f"  bare stack (same run): {r['bare_cpu_ms_per_action']:.3f} ms CPU per action, "
        f"{r['bare_actions_per_s']:.0f} actions/s",
    ])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--sockets", type=int, default=500)
    parser.add_argument("--sample", type=float, default=30, help="seconds between samples")
    parser.add_argument("--port", type=int, default=18470)
    parser.add_argument("--redis-port", type=int, default=18479)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        redis_proc = subprocess.Popen(
            ["redis-server", "--port", str(args.redis_port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--dir", tmp],
            stdout=subprocess.DEVNULL)
        try:
            for _ in range(100):  # until it answers
                done = subprocess.run(["redis-cli", "-p", str(args.redis_port), "ping"],
                                      capture_output=True, check=False)
                if done.stdout.strip() == b"PONG":
                    break
                time.sleep(0.05)
            result = asyncio.run(soak(args, f"redis://127.0.0.1:{args.redis_port}/0"))
        finally:
            redis_proc.terminate()
            redis_proc.wait(10)
    print(report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
