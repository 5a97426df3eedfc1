"""API benchmark: the bare stack (../shared/bench/bare_stack.py) and `svara serve`, one server
process each on loopback, driven the same way by N tables of clients.

Two phases per server:
- throughput: every table acts as fast as its answers come back (closed loop); actions/s;
- latency: every table acts once per `--interval` seconds (paced, below saturation); p50/p99
  from an action's POST to its event reaching every *other* player's WebSocket. The bare stack
  has no sockets, so its figure is the POST round trip (the least an action can cost).

svara tables: 3 signed players each, one WebSocket per player, opened with
`{"type": "resume", "after": N, "views": true}`, so every event frame carries that player's view
(for `legal`); the player on turn POSTs one legal action from the view its socket last brought:
one HTTP request per action, like the bare stack (a GET only when a frame had no view). Both
servers get the same HTTP client (`HttpPool`: keep-alive HTTP/1.1, at most `--connections`
requests in flight).

    REDIS_URL=redis://127.0.0.1:6379/0 python bench/bench_api.py --tables 200 --seconds 10
    python bench/bench_api.py --rounds 5 --compiled --update-readme   # as in docs/PERFORMANCE.md

`--rounds N` keeps both servers up and alternates their closed-loop phases N times; the ratio
is the median of the rounds' ratios (the machine's speed drifts over minutes).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp

# Its parts beside it (this file runs as a script, or is imported by the other benchmarks).
sys.path.insert(0, str(Path(__file__).resolve().parent))
from api_http import HttpError, HttpPool
from api_report import report, update_readme
from api_run import (
    BARE,
    BENCH_ID,
    JSON,
    REPO,
    TOKEN,
    Stats,
    pct,
    run_phase,
    start,
    stop,
)
from api_tables import Seat, Table, bare_loops, policy, svara_loops, svara_tables

# What the other benchmarks take from here (`import bench_api as api`).
__all__ = ["BARE", "BENCH_ID", "JSON", "REPO", "TOKEN", "HttpError", "HttpPool", "Seat", "Stats",
           "Table", "bare_loops", "cpu_seconds", "drop_keys", "paced", "pct", "policy",
           "run_phase", "start", "stop", "svara_loops", "svara_tables", "throughput"]


# -- main -------------------------------------------------------------------------------------

def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (Linux), to report server CPU per action."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def throughput(name: str, loops_for: Callable[[float | None], Awaitable[list[Any]]],
                     seconds: float, pid: int, label: str = "") -> JSON:
    """One closed-loop phase: actions/s, server CPU per action, latencies at full load."""
    print(f"{name}: throughput phase{label} ({seconds:.0f} s) ...", flush=True)
    cpu0, own0 = cpu_seconds(pid), time.process_time()
    tput, took = await run_phase(await loops_for(None), seconds)
    cpu, own = cpu_seconds(pid) - cpu0, time.process_time() - own0
    await asyncio.sleep(1)
    return {"name": name, "actions_per_s": tput.actions / took,
            "tput_p50": pct(tput.latencies, 0.5), "tput_p99": pct(tput.latencies, 0.99),
            "paced": {}, "lost": tput.lost,
            "server_cpu_ms_per_action": 1000 * cpu / max(1, tput.actions),
            "server_cpu_share": cpu / took, "client_cpu_share": own / took,
            "errors": dict(tput.errors), "post_p50": pct(tput.post_rtts, 0.5),
            "post_p99": pct(tput.post_rtts, 0.99), "idle": tput.idle,
            "views_per_action": tput.views / max(1, tput.actions)}


async def paced(result: JSON, loops_for: Callable[[float | None], Awaitable[list[Any]]],
                seconds: float, intervals: list[float]) -> None:
    """The latency phases (below saturation), added to `result`."""
    for interval in intervals:
        print(f"{result['name']}: latency phase ({seconds:.0f} s, one action per table every "
              f"{interval} s) ...", flush=True)
        phase, took = await run_phase(await loops_for(interval), seconds)
        await asyncio.sleep(1)
        result["paced"][interval] = (pct(phase.latencies, 0.5), pct(phase.latencies, 0.99),
                                     phase.actions / took)
        result["lost"] += phase.lost
        for k, v in phase.errors.items():
            result["errors"][k] = result["errors"].get(k, 0) + v


Loops = Callable[[float | None], Awaitable[list[Any]]]


async def main_async(args: argparse.Namespace) -> list[JSON]:
    """Both servers run side by side (the one not measured idles); the closed-loop phase runs
    `--rounds` times, alternating bare and svara, so each svara round is compared with the
    bare round next to it (this machine's speed drifts by 10-20% over minutes)."""
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    servers: list[tuple[str, Loops, int]] = []
    procs: list[subprocess.Popen[bytes]] = []
    pools: list[HttpPool] = []
    # HTTP: at most --connections requests in flight against either server (the bare stack's
    # redis-py pool refuses more than 100 at once), through the same lean client (HttpPool);
    # the svara sockets get their own aiohttp session.
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as ws_session:
        try:
            if args.only in ("both", "bare"):
                bare_url = f"http://127.0.0.1:{args.port}"
                procs.append(start([sys.executable, str(BARE), str(args.port)],
                                   {"REDIS_URL": redis_url}, f"{bare_url}/act"))
                bare_http = HttpPool("127.0.0.1", args.port, args.connections)
                pools.append(bare_http)

                async def bare(interval: float | None) -> list[Any]:
                    return await bare_loops(bare_http, args.tables, interval)
                servers.append(("bare stack", bare, procs[-1].pid))
            if args.only in ("both", "svara"):
                url = f"http://127.0.0.1:{args.port + 1}"
                # `python -m` puts the working directory first on the path: the server runs
                # the copy there (the compiled one with --compiled, as the Dockerfile ships it).
                procs.append(start(
                    [sys.executable, "-m", "service.cli", "serve", "--port", str(args.port + 1)],
                    {"REDIS_URL": redis_url, "BOT_TOKEN": TOKEN, "BOT_MODE": "off",
                     "WORKERS": "1", "SVARA_NAMESPACE": f"bench-{BENCH_ID}", "LOG_LEVEL": "WARNING",
                     "RATE_LIMIT_PER_SECOND": "1000", "RATE_LIMIT_BURST": "1000"},
                    f"{url}/api/health", cwd=args.server_root))
                http = HttpPool("127.0.0.1", args.port + 1, args.connections)
                pools.append(http)
                print(f"svara: opening {args.tables} tables, {3 * args.tables} sockets ...",
                      flush=True)
                tables = await svara_tables(http, ws_session, url, args.tables)

                async def svara(interval: float | None) -> list[Any]:
                    return svara_loops(tables, interval)
                servers.append(("svara serve", svara, procs[-1].pid))
            rounds: dict[str, list[JSON]] = {name: [] for name, _, _ in servers}
            for r in range(args.rounds):
                label = f" {r + 1}/{args.rounds}" if args.rounds > 1 else ""
                for name, loops, pid in servers:
                    rounds[name].append(await throughput(name, loops, args.seconds, pid, label))
            results = []
            for name, loops, _ in servers:
                ranked = sorted(rounds[name], key=lambda x: x["actions_per_s"])
                result = ranked[len(ranked) // 2]  # the median round (the upper one of two)
                result["rounds"] = [x["actions_per_s"] for x in rounds[name]]
                result["round_cpu"] = [x["server_cpu_ms_per_action"] for x in rounds[name]]
                await paced(result, loops, args.seconds, args.interval)
                results.append(result)
            return results
        finally:
            for pool in pools:
                pool.close()
            for proc in procs:
                stop(proc)


async def drop_keys(redis_url: str) -> int:
    """Delete this run's keys (both servers'), so runs do not pile data up in the shared
    Redis and each starts from the same state."""
    from redis.asyncio import Redis

    client = Redis.from_url(redis_url)
    gone = 0
    try:
        # (svara's: the namespace's streams and its index, stats and marker keys)
        for pattern in (f"bare:{{bench-{BENCH_ID}-*", f"svara:*bench-{BENCH_ID}:*"):
            batch = []
            async for key in client.scan_iter(match=pattern, count=2000):
                batch.append(key)
                if len(batch) >= 1000:
                    gone += await client.unlink(*batch)
                    batch = []
            if batch:
                gone += await client.unlink(*batch)
    finally:
        await client.aclose()
    return gone


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--interval", type=float, nargs="+", default=[1.0, 2.0],
                        help="paced phases: seconds between one table's actions")
    parser.add_argument("--port", type=int, default=8190)
    parser.add_argument("--connections", type=int, default=64,
                        help="HTTP requests in flight at most, for both servers")
    parser.add_argument("--update-readme", action="store_true")
    parser.add_argument("--only", choices=("both", "bare", "svara"), default="both")
    parser.add_argument("--rounds", type=int, default=1,
                        help="closed-loop phases per server, alternating bare and svara "
                             "(the ratio is the median of the rounds' ratios)")
    parser.add_argument("--compiled", action="store_true",
                        help="serve svara with the game core compiled by mypyc, as the "
                             "Dockerfile ships it (built first in a scratch dir; needs mypy)")
    parser.add_argument("--compiled-in", type=Path, metavar="DIR",
                        help="like --compiled, with a copy `python -m tests.support.compiled DIR` "
                             "built before (for repeated runs; rebuild it after changes)")
    args = parser.parse_args()
    args.server_root = REPO
    scratch = None
    if args.compiled_in is not None:
        args.compiled = True
        args.server_root = args.compiled_in.resolve()
    elif args.compiled:
        sys.path.append(str(REPO))  # last: the scratch build is served, not this tree
        from tests.support.compiled import build

        scratch = tempfile.TemporaryDirectory(prefix="svara-compiled-")
        print("building the compiled game core (mypyc, about half a minute) ...", flush=True)
        args.server_root = build(Path(scratch.name))
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    args.load_before = os.getloadavg()[0]
    try:
        results = asyncio.run(main_async(args))
    finally:
        asyncio.run(drop_keys(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")))
        if scratch is not None:
            scratch.cleanup()
    if len(results) < 2:
        print(results)
        return 0
    text = report(results, args)
    print(text)
    if args.update_readme:
        update_readme(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
