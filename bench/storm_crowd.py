"""The reconnect storm's own process (bench_storm.py): its spectators open, drop and come
back there, commanded over a pipe."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import random
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from api_run import TOKEN
from storm_sockets import JSON, Storm, Watcher, reasons

from service.api.auth import sign_init_data

# -- the storm's own process --------------------------------------------------------------
#
# The spectators run in a process of their own, as 2,000 phones are not the players' phones:
# in one process, the client's work for the storm delayed the players' measured actions as
# much as the server did. The parent sends commands down a pipe; the child answers each.

def storm_process(conn: Connection, host: str, port: int) -> None:
    with contextlib.suppress(ImportError):
        import uvloop

        uvloop.install()
    asyncio.run(_storm_commands(conn, host, port))


async def _storm_commands(conn: Connection, host: str, port: int) -> None:
    storm = Storm(host, port)
    watchers: list[Watcher] = []
    while True:
        command, arg = await asyncio.to_thread(conn.recv)
        if command == "open":
            table_ids, base, sockets = arg
            watchers = [Watcher(table_ids[i % len(table_ids)],
                                sign_init_data(TOKEN, user_id=base + i, name=f"w{i}"))
                        for i in range(sockets)]
            opened = time.perf_counter()
            for chunk in range(0, sockets, 200):
                await asyncio.gather(*(storm.connect(w, retry_until=opened + 60)
                                       for w in watchers[chunk:chunk + 200]))
            conn.send({"open_seconds": time.perf_counter() - opened,
                       "refused_while_opening": reasons(watchers)})
        elif command == "storm":
            conn.send(await _storm(storm, watchers, spread=arg))
        elif command == "final":
            conn.send(await _final(watchers, finals=arg))
        else:
            storm.drop_all()
            conn.send({})
            return


async def _storm(storm: Storm, watchers: list[Watcher], *, spread: float) -> JSON:
    for w in watchers:
        w.refusals.clear()
        w.attempts = 0
    overflows = listen_overflows()
    t0 = time.perf_counter()
    storm.drop_all()

    async def back(w: Watcher) -> None:
        await asyncio.sleep(random.random() * spread)
        w.started_at = time.perf_counter()
        await storm.connect(w, retry_until=t0 + 60)

    await asyncio.gather(*(back(w) for w in watchers))
    result: JSON = {"all_back_s": time.perf_counter() - t0,
                    "listen_overflows": listen_overflows() - overflows}
    times = sorted((w.caught_up_at or float("inf")) - t0 for w in watchers)
    result["back_p50_s"] = times[len(times) // 2]
    result["back_p99_s"] = times[int(0.99 * (len(times) - 1))]
    result["back_max_s"] = times[-1]
    own = sorted((w.caught_up_at or float("inf")) - w.started_at for w in watchers)
    result["own_p99_s"] = own[int(0.99 * (len(own) - 1))]
    result["first_try"] = sum(1 for w in watchers if w.attempts == 1)
    result["turned_away"] = reasons(watchers)
    return result


async def _final(watchers: list[Watcher], *, finals: dict[str, int]) -> JSON:
    """Every socket has every version of its table, once, in order."""
    for _ in range(100):  # up to 10 s for the last frames in flight
        if all(w.last >= finals[w.table] for w in watchers):
            break
        await asyncio.sleep(0.1)
    return {
        "lost": sum(w.lost for w in watchers),  # gaps in what a socket got
        "behind": sum(1 for w in watchers if w.last < finals[w.table]),
        "repeated": sum(w.repeated for w in watchers),
        "events_per_socket": sum(w.last for w in watchers) / len(watchers),
        "later_closed": sum(1 for w in watchers
                            if any(k.startswith("later") for k in w.refusals)),
    }


class StormClient:
    """The parent's end of the pipe to `storm_process`."""

    def __init__(self, host: str, port: int) -> None:
        self.conn, child = multiprocessing.Pipe()
        self.process = multiprocessing.get_context("spawn").Process(
            target=storm_process, args=(child, host, port), daemon=True)
        self.process.start()

    async def ask(self, command: str, arg: Any = None) -> JSON:
        self.conn.send((command, arg))
        answer: JSON = await asyncio.to_thread(self.conn.recv)
        return answer

    async def close(self) -> None:
        if self.process.is_alive():
            with contextlib.suppress(OSError, EOFError):
                await asyncio.wait_for(self.ask("quit"), 10)
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()


def listen_overflows() -> int:
    """The kernel's count of connections dropped because an accept queue was full (the whole
    machine: TcpExtListenOverflows)."""
    lines = Path("/proc/net/netstat").read_text().splitlines()
    for names, values in zip(lines[::2], lines[1::2], strict=False):
        if names.startswith("TcpExt:"):
            fields = dict(zip(names.split()[1:], values.split()[1:], strict=True))
            return int(fields.get("ListenOverflows", 0))
    return 0
