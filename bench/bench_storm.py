"""Reconnect storm: N WebSockets on 200 tables of one `svara serve` drop at once (a mobile
network going away) and come back within one second, resuming with `after`, while 50 of the
tables keep playing.

    python bench/bench_storm.py                          # 2,000 sockets, then 10,000
    python bench/bench_storm.py --sockets 2000 --idle-sockets 0

Measured, per scenario (a fresh server each):
- time until every socket has caught up again (from the drop; each socket reconnects at a
  random moment in the first `--spread` seconds), and how many came back at the first try;
- events lost or repeated over each socket's whole life (versions must run 1, 2, 3, ...
  across the reconnect; checked again at the end against each table's final version);
- sockets turned away: connect refused or timed out, closed by the server (1011, 4429, ...)
  or reset before catching up (each retried after 0.2 s until it is back);
- the players' action latency (POST -> the event on both other players' sockets, and the
  POST alone) before, during and after the storm, 50 tables at one action per table a second;
- the server's RSS: fresh, with the tables, with the sockets open, after the storm; per
  table and per socket.

The storm sockets are spectators on a lean client (a few hundred lines of asyncio, one
protocol object per socket: aiohttp's client would need more CPU than the server for 10,000
sockets on two shared cores); the players act over HTTP with their own aiohttp sockets (the
`bench_api.py` client), which stay up, in another process than the storm's (one process for
both measured the client's own work for the storm as the players' latency). Everything runs
in an own SVARA_NAMESPACE whose keys are deleted at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import secrets
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_api as api  # the HTTP client, server start/stop, the playing tables
import storm_probe as probe  # the yardstick and the server's GC pauses
from storm_crowd import StormClient  # the spectators, in a process of their own

JSON = dict[str, Any]


# -- the scenario ---------------------------------------------------------------------------

def rss_mb(pid: int) -> float:
    """The server's RSS, its workers' included (`--workers`)."""
    total = 0.0
    children = Path(f"/proc/{pid}/task/{pid}/children")
    for one in [pid, *map(int, children.read_text().split() if children.exists() else [])]:
        for line in Path(f"/proc/{one}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) / 1024
    return total


async def settle_rss(pid: int, seconds: float = 2.0) -> float:
    await asyncio.sleep(seconds)
    return rss_mb(pid)


async def idle_tables(http: api.HttpPool, n: int) -> list[str]:
    """Tables with three players seated, a hand dealt, nobody acting (turns of 600 s)."""
    base = secrets.randbelow(10**12) + 2 * 10**12

    async def one(i: int) -> str:
        seats = [api.Seat(http, "", base + 3 * i + k) for k in range(3)]
        status, body = await seats[0].req("POST", "/api/tables", {
            "ante": 1, "max_seats": 3, "turn_seconds": 600, "next_hand_seconds": 0,
            "min_buy_in": 100, "max_buy_in": 1000})
        assert status == 201, body
        for s in seats:
            status, answer = await s.req("POST", f"/api/tables/{body['table_id']}/seat",
                                         {"buy_in": 1000})
            assert status == 200, answer
        return str(body["table_id"])

    out: list[str] = []
    for chunk in range(0, n, 10):
        out += await asyncio.gather(*(one(i) for i in range(chunk, min(n, chunk + 10))))
    return out


def latency(stats: api.Stats) -> JSON:
    return {"actions": stats.actions, "p50": api.pct(stats.latencies, 0.5),
            "p99": api.pct(stats.latencies, 0.99), "post_p50": api.pct(stats.post_rtts, 0.5),
            "post_p99": api.pct(stats.post_rtts, 0.99), "lost": stats.lost,
            "errors": dict(stats.errors)}


async def scenario(args: argparse.Namespace, sockets: int,
                   alongside: Callable[[], Awaitable[Any]] | None = None) -> JSON:
    """One storm on a fresh server; `alongside` (if given) runs with the storm from the
    drop on (bench_cluster.py fails a Redis primary over there)."""
    port = args.port
    namespace = f"storm-{uuid.uuid4().hex[:10]}"
    env = {"REDIS_URL": args.redis_url, "BOT_TOKEN": api.TOKEN, "BOT_MODE": "off",
           "WORKERS": str(args.workers),
           "SVARA_NAMESPACE": namespace, "LOG_LEVEL": "WARNING",
           "RATE_LIMIT_PER_SECOND": "1000", "RATE_LIMIT_BURST": "1000"}
    if args.backlog:
        env["LISTEN_BACKLOG"] = str(args.backlog)
    url = f"http://127.0.0.1:{port}"
    proc = api.start([sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
                     env, f"{url}/api/health", cwd=args.server_root, within=120)
    result: JSON = {"sockets": sockets, "tables": args.tables, "playing": args.playing,
                    "workers": args.workers}
    http = api.HttpPool("127.0.0.1", port, 64)
    storm = StormClient("127.0.0.1", port)
    try:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
            rss = {"fresh": await settle_rss(proc.pid)}
            print(f"[{sockets}] opening {args.tables} tables ...", flush=True)
            playing = await api.svara_tables(http, session, url, args.playing)
            quiet = await idle_tables(http, args.tables - args.playing)
            table_ids = [t.id for t in playing] + quiet
            rss["tables"] = await settle_rss(proc.pid)

            print(f"[{sockets}] opening {sockets} sockets ...", flush=True)
            base = secrets.randbelow(10**12) + 3 * 10**12
            result |= await storm.ask("open", (table_ids, base, sockets))
            rss["sockets"] = await settle_rss(proc.pid)

            loops = api.svara_loops(playing, args.interval)
            print(f"[{sockets}] playing {args.playing} tables: before ({args.phase:.0f} s) ...",
                  flush=True)
            before, _ = await api.run_phase(loops, args.phase)
            result["before"] = latency(before)

            print(f"[{sockets}] storm: every socket drops, back within {args.spread} s ...",
                  flush=True)
            during = api.Stats()
            storm_done = asyncio.Event()
            play = asyncio.gather(*(loop(during, lambda: not storm_done.is_set())
                                    for loop in loops))
            await asyncio.sleep(0.5)
            spy = None
            if args.py_spy:  # the server's stacks during the storm, as collapsed stacks
                spy = subprocess.Popen(["py-spy", "record", "--pid", str(proc.pid), "--duration",  # noqa: ASYNC220
                                        "4", "--rate", "200", "--format", "raw", "--output",
                                        f"{args.py_spy}-{sockets}.txt"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            gc_before = await asyncio.to_thread(probe.gc_pauses, url)
            t0 = time.perf_counter()
            side = asyncio.create_task(alongside()) if alongside is not None else None
            result |= await storm.ask("storm", args.spread)
            if side is not None:
                result["during_storm"] = await side
            if spy is not None:
                await asyncio.to_thread(spy.wait)
            await asyncio.sleep(max(0.0, args.phase - (time.perf_counter() - t0)))
            storm_done.set()
            await play
            result["during"] = latency(during)
            result["gc"] = probe.gc_delta(gc_before,
                                          await asyncio.to_thread(probe.gc_pauses, url))
            rss["after_storm"] = await settle_rss(proc.pid)

            print(f"[{sockets}] after ({args.phase:.0f} s) ...", flush=True)
            after, _ = await api.run_phase(loops, args.phase)
            result["after"] = latency(after)

            # The final check: every socket has every version of its table, once, in order.
            await asyncio.sleep(1.0)
            finals = {}
            viewer = api.Seat(http, url, base - 1)
            for table in table_ids:
                status, view = await viewer.req("GET", f"/api/tables/{table}")
                assert status == 200, view
                finals[table] = int(view["version"])
            result |= await storm.ask("final", finals)
            result["rss"] = rss
            result["rss_per_table_kb"] = 1024 * (rss["tables"] - rss["fresh"]) / args.tables
            result["rss_per_socket_kb"] = 1024 * (rss["sockets"] - rss["tables"]) / sockets
            await storm.close()
            for t in playing:
                for s in t.seats:
                    if s.ws is not None:
                        await s.ws.close()
    finally:
        await storm.close()
        http.close()
        api.stop(proc)
        await delete_namespace(args.redis_url, namespace)
    return result


async def delete_namespace(redis_url: str, namespace: str) -> None:
    from redis.asyncio import Redis, RedisCluster

    cluster = redis_url.startswith("redis+cluster://")
    client: Any = (RedisCluster.from_url(redis_url.replace("redis+cluster://", "redis://", 1))
                   if cluster else Redis.from_url(redis_url))
    try:
        # one key at a time on a cluster: a DELETE of several keys must stay in one slot; the
        # namespace's streams, and its index, stats and marker keys (`svara:{#ix}:ix:<ns>:...`)
        async for key in client.scan_iter(match=f"svara:*{namespace}:*", count=1000):
            await client.delete(key)
    finally:
        await client.aclose()


def report(r: JSON) -> str:
    def lat(p: JSON) -> str:
        errors = f", errors {p['errors']}" if p["errors"] else ""
        return (f"{p['p50']:.1f} / {p['p99']:.1f} ms (POST {p['post_p50']:.1f} / "
                f"{p['post_p99']:.1f}; {p['actions']} actions{errors})")

    turned = sum(r["turned_away"].values())
    return "\n".join([
        f"## {r['sockets']} sockets on {r['tables']} tables, {r['playing']} playing, "
        f"{r['workers']} worker(s), {probe.now()}, load {os.getloadavg()[0]:.1f}",
        f"- GC pauses from the drop to the end of the storm phase: {r['gc']}",
        f"- opened in {r['open_seconds']:.1f} s (refused while opening: "
        f"{sum(r['refused_while_opening'].values())} {r['refused_while_opening'] or ''})",
        f"- storm: every socket back in {r['back_max_s']:.2f} s (p50 {r['back_p50_s']:.2f}, "
        f"p99 {r['back_p99_s']:.2f}; each socket's own reconnect p99 {r['own_p99_s']:.2f} s); "
        f"back at the first try: {r['first_try']} of {r['sockets']}",
        f"- turned away: {turned} {r['turned_away'] or ''}; closed later: {r['later_closed']};"
        f" listen queue overflows (kernel, whole machine): {r['listen_overflows']}",
        f"- events lost: {r['lost']}, repeated: {r['repeated']} "
        f"({r['events_per_socket']:.1f} events per socket; sockets behind their table's "
        f"final version 10 s after play stopped: {r['behind']})",
        f"- action -> other players' sockets, p50 / p99: before {lat(r['before'])}; "
        f"during {lat(r['during'])}; after {lat(r['after'])}",
        f"- RSS MB: {', '.join(f'{k} {v:.0f}' for k, v in r['rss'].items())}; "
        f"{r['rss_per_table_kb']:.0f} kB per table, {r['rss_per_socket_kb']:.1f} kB per socket",
    ])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sockets", type=int, default=2000)
    parser.add_argument("--idle-sockets", type=int, default=10000,
                        help="a second scenario with this many sockets (0: none)")
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--playing", type=int, default=50)
    parser.add_argument("--interval", type=float, default=1.0,
                        help="seconds between a playing table's actions")
    parser.add_argument("--spread", type=float, default=1.0,
                        help="the sockets reconnect within this many seconds of the drop")
    parser.add_argument("--phase", type=float, default=8.0, help="seconds per phase")
    parser.add_argument("--port", type=int, default=8731)
    parser.add_argument("--workers", type=int, default=1, help="svara serve --workers")
    parser.add_argument("--server-root", type=Path, default=api.REPO,
                        help="serve this checkout (e.g. `git archive` of an older commit)")
    parser.add_argument("--no-yardstick", dest="yardstick", action="store_false",
                        help="skip the bare-stack yardstick run before the scenarios")
    parser.add_argument("--backlog", type=int, default=0, help="LISTEN_BACKLOG (0: default)")
    parser.add_argument("--py-spy", default="",
                        help="record the server with py-spy for 4 s from the drop to PREFIX-N.txt")
    parser.add_argument("--redis-url",
                        default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = 2 * max(args.sockets, args.idle_sockets) + 2000
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(need, soft)), hard))
    with contextlib.suppress(ImportError):
        import uvloop

        uvloop.install()
    somaxconn = Path("/proc/sys/net/core/somaxconn").read_text().strip()
    print(f"bench_storm {time.strftime('%Y-%m-%d')}: somaxconn {somaxconn}, open files "
          f"{resource.getrlimit(resource.RLIMIT_NOFILE)[0]}, load {os.getloadavg()[0]:.1f}",
          flush=True)
    if args.yardstick:
        print(probe.yardstick_line(asyncio.run(probe.yardstick(args.redis_url, args.port + 1))),
              flush=True)
    for n in [args.sockets, *([args.idle_sockets] if args.idle_sockets else [])]:
        result = asyncio.run(scenario(args, n))
        print(report(result), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
