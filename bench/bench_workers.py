"""Workers benchmark: `svara serve --workers 1` against `--workers 2` on one port, with the
bare stack (../shared/bench/bare_stack.py, one process) as the yardstick of the same run.

The three servers run side by side (the ones not measured idle), each svara one in its own
SVARA_NAMESPACE with `--tables` tables of three players (a WebSocket each), driven by
`bench_api.py`'s client from this process, which serves nothing (the load generator is a
process of its own; its CPU share is reported). The closed-loop phases alternate between the
servers `--rounds` times (this machine's speed drifts over minutes); then one paced phase per
server at one action per table every `--interval` seconds. With two workers the kernel
spreads the client's connections (HTTP and WebSocket) over both processes, so most actions
reach sockets held by the other worker too: through Redis, as between replicas.

Reported: actions/s (closed loop) of each round and the median round; the server's CPU per
action (utime + stime of the parent and its workers); p50 / p99 from an action's POST to its
event on both other players' sockets, at full load and paced.

    REDIS_URL=redis://127.0.0.1:6379/0 python bench/bench_workers.py --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import bench_api as api

JSON = dict[str, Any]


def tree_cpu(pid: int) -> float:
    """utime + stime of a process and its live children (the workers)."""
    total = api_cpu(pid)
    children = Path(f"/proc/{pid}/task/{pid}/children")
    for child in children.read_text().split() if children.exists() else ():
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            total += api_cpu(int(child))
    return total


api_cpu = api.cpu_seconds
# `bench_api.throughput` measures the server's CPU with `cpu_seconds(pid)`: here it sums the
# parent and its workers.
api.cpu_seconds = tree_cpu


def namespace(workers: int) -> str:
    return f"bench-{api.BENCH_ID}-w{workers}"


async def start_svara(workers: int, port: int, args: argparse.Namespace,
                      session: aiohttp.ClientSession
                      ) -> tuple[subprocess.Popen[bytes], api.HttpPool, list[api.Table]]:
    url = f"http://127.0.0.1:{port}"
    # Off the event loop: the sockets of the servers already opened must keep answering.
    proc = await asyncio.to_thread(
        api.start,
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port),
         "--workers", str(workers)],
        {"REDIS_URL": args.redis_url, "BOT_TOKEN": api.TOKEN, "BOT_MODE": "off",
         "SVARA_NAMESPACE": namespace(workers), "LOG_LEVEL": "WARNING",
         "RATE_LIMIT_PER_SECOND": "1000", "RATE_LIMIT_BURST": "1000"},
        f"{url}/api/health", cwd=args.server_root, within=120)
    if workers > 1:  # every worker up (the health check answered from one of them)
        await asyncio.sleep(0.5)
        deadline = time.monotonic() + 60
        while (len(workers_of(proc.pid)) < workers
               or not await asyncio.to_thread(all_serving, url, workers)):
            assert time.monotonic() < deadline, "the workers did not start"
            await asyncio.sleep(0.5)
    http = api.HttpPool("127.0.0.1", port, args.connections)
    print(f"svara x{workers}: opening {args.tables} tables, {3 * args.tables} sockets ...",
          flush=True)
    return proc, http, await api.svara_tables(http, session, url, args.tables)


def workers_of(pid: int) -> list[str]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return path.read_text().split() if path.exists() else []


def all_serving(url: str, workers: int) -> bool:
    """Fresh connections reach `workers` distinct pids (svara_worker_info)."""
    import re
    import urllib.request

    seen = set()
    for _ in range(50 * workers):
        with urllib.request.urlopen(f"{url}/metrics", timeout=5) as resp:
            found = re.search(r'svara_worker_info\{pid="(\d+)"', resp.read().decode())
        if found:
            seen.add(found[1])
        if len(seen) >= workers:
            return True
    return False


async def main_async(args: argparse.Namespace) -> list[JSON]:
    servers: list[tuple[str, Any, int]] = []
    procs: list[subprocess.Popen[bytes]] = []
    pools: list[api.HttpPool] = []
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        try:
            procs.append(api.start([sys.executable, str(api.BARE), str(args.port)],
                                   {"REDIS_URL": args.redis_url},
                                   f"http://127.0.0.1:{args.port}/act"))
            bare_http = api.HttpPool("127.0.0.1", args.port, args.connections)
            pools.append(bare_http)

            async def bare(interval: float | None) -> list[Any]:
                return await api.bare_loops(bare_http, args.tables, interval)
            servers.append(("bare stack", bare, procs[-1].pid))
            for k, workers in enumerate(args.workers):
                proc, http, tables = await start_svara(workers, args.port + 1 + k, args,
                                                       session)
                procs.append(proc)
                pools.append(http)

                def loops(tables: list[api.Table]) -> Any:
                    async def make(interval: float | None) -> list[Any]:
                        return api.svara_loops(tables, interval)
                    return make
                servers.append((f"svara x{workers}", loops(tables), proc.pid))
            rounds: dict[str, list[JSON]] = {name: [] for name, _, _ in servers}
            for r in range(args.rounds):
                for name, make, pid in servers:
                    rounds[name].append(await api.throughput(
                        name, make, args.seconds, pid, f" {r + 1}/{args.rounds}"))
            results = []
            for name, make, _ in servers:
                ranked = sorted(rounds[name], key=lambda x: x["actions_per_s"])
                result = ranked[len(ranked) // 2]
                result["rounds"] = [x["actions_per_s"] for x in rounds[name]]
                result["round_cpu"] = [x["server_cpu_ms_per_action"] for x in rounds[name]]
                result["round_client"] = [x["client_cpu_share"] for x in rounds[name]]
                await api.paced(result, make, args.seconds, [args.interval])
                results.append(result)
            return results
        finally:
            for pool in pools:
                pool.close()
            for proc in procs:
                api.stop(proc)


async def drop_keys(redis_url: str) -> None:
    from redis.asyncio import Redis

    await api.drop_keys(redis_url)  # the bare stack's
    client = Redis.from_url(redis_url)
    try:
        batch = [key async for key in
                 client.scan_iter(match=f"svara:*bench-{api.BENCH_ID}-w*", count=2000)]
        for i in range(0, len(batch), 1000):
            await client.unlink(*batch[i:i + 1000])
    finally:
        await client.aclose()


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def report(results: list[JSON], args: argparse.Namespace) -> str:
    lines = [
        f"bench_workers {time.strftime('%Y-%m-%d %H:%M')} UTC: {args.tables} tables per server, "
        f"{args.seconds:.0f} s per phase, {args.rounds} alternating rounds, at most "
        f"{args.connections} HTTP requests in flight, {os.cpu_count()} CPUs, load average "
        f"{args.load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end",
        "",
        "| server | actions/s, median round (rounds) | server CPU per action (rounds) | "
        "client CPU | p50 / p99 at full load | p50 / p99 paced |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        (p50, p99, rate), = r["paced"].values()
        lines.append(
            f"| {r['name']} | {r['actions_per_s']:.0f} ("
            + ", ".join(f"{x:.0f}" for x in r["rounds"]) + ") | "
            f"{r['server_cpu_ms_per_action']:.2f} ms ("
            + ", ".join(f"{x:.2f}" for x in r["round_cpu"]) + ") | "
            f"{100 * median(r['round_client']):.0f}% | "
            f"{r['tput_p50']:.1f} / {r['tput_p99']:.1f} ms | "
            f"{p50:.1f} / {p99:.1f} ms ({rate:.0f}/s) |")
    by_name = {r["name"]: r for r in results}
    one, two = by_name.get("svara x1"), by_name.get("svara x2")
    if one is not None and two is not None:
        speed = [b / a for a, b in zip(one["rounds"], two["rounds"], strict=True)]
        cpu = [b / a for a, b in zip(one["round_cpu"], two["round_cpu"], strict=True)]
        p99 = next(iter(two["paced"].values()))[1]
        lines += ["", "x2 / x1 per round: actions/s " + ", ".join(f"{x:.2f}" for x in speed)
                  + f" (median {median(speed):.2f}; goal >= 1.3: "
                  f"{'met' if median(speed) >= 1.3 else 'NOT met'}); CPU per action "
                  + ", ".join(f"{x:.2f}" for x in cpu) + f" (median {median(cpu):.2f}; goal "
                  f"<= 1.10: {'met' if median(cpu) <= 1.10 else 'NOT met'}); x2 p99 at one "
                  f"action per table every {args.interval:g} s: {p99:.1f} ms (goal <= 50 ms: "
                  f"{'met' if p99 <= 50 else 'NOT met'}). Lost broadcasts x1 {one['lost']}, "
                  f"x2 {two['lost']}; errors x1 {one['errors'] or 'none'}, "
                  f"x2 {two['errors'] or 'none'}."]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--port", type=int, default=8160)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--redis-url",
                        default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    args = parser.parse_args()
    args.server_root = api.REPO
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    args.load_before = os.getloadavg()[0]
    os.environ["REDIS_URL"] = args.redis_url  # bench_api's key clean-up reads it
    try:
        results = asyncio.run(main_async(args))
    finally:
        asyncio.run(drop_keys(args.redis_url))
    print(report(results, args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
