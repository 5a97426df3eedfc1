"""What `bench_storm.py` measures beside the storm: the bare-stack yardstick of the same run
(the machine's speed and load at that hour) and the server's garbage-collector pauses
(`svara_gc_pause_seconds` from its /metrics)."""

from __future__ import annotations

import re
import sys
import time
import urllib.request
from typing import Any

import bench_api as api

JSON = dict[str, Any]
_LINE = re.compile(r'svara_gc_pause_seconds_(count|sum|bucket)\{(?:le="([^"]+)",)?'
                   r'generation="(\d)"(?:,le="([^"]+)")?\} ([0-9.e+-]+)')


async def yardstick(redis_url: str, port: int, tables: int = 50, seconds: float = 8.0) -> JSON:
    """The bare stack (one aiohttp process, one Lua XADD per POST): closed loop over 200
    tables, then `tables` tables at one action a second, as the storm's players act."""
    proc = api.start([sys.executable, str(api.BARE), str(port)], {"REDIS_URL": redis_url},
                     f"http://127.0.0.1:{port}/act")
    http = api.HttpPool("127.0.0.1", port, 64)
    try:
        async def loops(interval: float | None) -> list[Any]:
            return await api.bare_loops(http, tables if interval else 200, interval)
        result = await api.throughput("bare stack", loops, seconds, proc.pid)
        await api.paced(result, loops, seconds, [1.0])
    finally:
        http.close()
        api.stop(proc)
        await api.drop_keys(redis_url)  # the bare stack's streams: the shared Redis keeps none
    return result


def yardstick_line(r: JSON) -> str:
    p50, p99, rate = r["paced"][1.0]
    return (f"- bare-stack yardstick, same run: {r['actions_per_s']:.0f} actions/s closed loop "
            f"at {r['server_cpu_ms_per_action']:.2f} ms of CPU per action; POST p50 / p99 "
            f"{p50:.1f} / {p99:.1f} ms at one action per table a second ({rate:.0f} actions/s)")


def gc_pauses(url: str) -> dict[str, list[float]]:
    """generation -> [collections, seconds in them, collections over 50 ms] (one scrape:
    with several workers, of whichever answered)."""
    out: dict[str, list[float]] = {}
    try:
        with urllib.request.urlopen(f"{url}/metrics", timeout=60) as resp:
            text = resp.read().decode()
    except OSError:
        return {}
    for kind, le1, gen, le2, value in _LINE.findall(text):
        row = out.setdefault(gen, [0.0, 0.0, 0.0, 0.0])
        if kind == "count":
            row[0] = float(value)
        elif kind == "sum":
            row[1] = float(value)
        elif (le1 or le2) == "0.05":
            row[3] = float(value)  # at most 50 ms
    return {g: [r[0], r[1], r[0] - r[3]] for g, r in out.items()}


def gc_delta(before: dict[str, list[float]], after: dict[str, list[float]]) -> str:
    parts = []
    for gen in sorted(after):
        b = before.get(gen, [0.0, 0.0, 0.0])
        n, s, slow = (after[gen][i] - b[i] for i in range(3))
        parts.append(f"gen {gen}: {n:.0f} collections, {1000 * s:.0f} ms, {slow:.0f} over 50 ms")
    return "; ".join(parts) or "no GC pauses recorded"


def now() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
