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
import multiprocessing
import os
import random
import resource
import secrets
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import aiohttp
import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_api as api  # the HTTP client, server start/stop, the playing tables
import storm_probe as probe  # the yardstick and the server's GC pauses

from service.api.auth import sign_init_data

JSON = dict[str, Any]
_encode = msgspec.json.Encoder().encode


class _Frame(msgspec.Struct):
    type: str
    version: int = 0
    status: int = 0


_decode = msgspec.json.Decoder(_Frame).decode
_KEY = b"dGhlIHNhbXBsZSBub25jZQ=="


def client_frame(payload: bytes, opcode: int = 0x1) -> bytes:
    """A final, masked client frame (mask key 0: the payload goes as it is)."""
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    else:
        head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
    return head + b"\0\0\0\0" + payload


# -- one spectator socket, over its whole life (reconnects included) --------------------------

@dataclass
class Watcher:
    table: str
    init: str
    last: int = 0  # the newest version received
    lost: int = 0
    repeated: int = 0
    ready_version: int = -1
    caught_up_at: float | None = None
    started_at: float = 0.0
    attempts: int = 0
    refusals: dict[str, int] = field(default_factory=dict)
    back: asyncio.Event = field(default_factory=asyncio.Event)
    transport: asyncio.Transport | None = None

    def refused(self, why: str) -> None:
        self.refusals[why] = self.refusals.get(why, 0) + 1

    def on_event(self, version: int, now: float) -> None:
        if version <= self.last:
            self.repeated += 1
            return
        if version != self.last + 1:
            self.lost += version - self.last - 1
        self.last = version
        self._check(now)

    def on_ready(self, version: int, now: float) -> None:
        self.ready_version = version
        self._check(now)

    def _check(self, now: float) -> None:
        if self.caught_up_at is None and 0 <= self.ready_version <= self.last:
            self.caught_up_at = now
            self.back.set()


class WsProtocol(asyncio.Protocol):
    """HTTP upgrade, then server frames parsed as they come (unmasked, RFC 6455)."""

    def __init__(self, watcher: Watcher, request: bytes) -> None:
        self.w = watcher
        self.request = request
        self.buf = bytearray()
        self.upgraded = False
        self.transport: asyncio.Transport | None = None
        self.done: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        assert self.transport is not None
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        self.buf += data
        if not self.upgraded:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(self.buf[:12])
            del self.buf[: end + 4]
            if not status.startswith(b"HTTP/1.1 101"):
                self._finish(f"http {status[9:12].decode()}")
                return
            self.upgraded = True
            assert self.transport is not None
            self.transport.write(
                client_frame(_encode({"type": "auth", "init_data": self.w.init}))
                + client_frame(_encode({"type": "resume", "after": self.w.last})))
        self._frames()

    def _frames(self) -> None:
        buf = self.buf
        now = time.perf_counter()
        while len(buf) >= 2:
            opcode = buf[0] & 0x0F
            n = buf[1] & 0x7F
            at = 2
            if n == 126:
                if len(buf) < 4:
                    return
                n, at = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    return
                n, at = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < at + n:
                return
            payload = bytes(buf[at : at + n])
            del buf[: at + n]
            if opcode == 0x1:
                frame = _decode(payload)
                if frame.type == "event":
                    self.w.on_event(frame.version, now)
                elif frame.type == "ready":
                    self.w.on_ready(frame.version, now)
                elif frame.type == "error":
                    self.w.refused(f"error {frame.status}")
            elif opcode == 0x9 and self.transport is not None:  # ping -> pong
                self.transport.write(client_frame(payload, 0xA))
            elif opcode == 0x8:
                code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                self._finish(f"closed {code}")
                if self.transport is not None:
                    self.transport.close()
                return

    def connection_lost(self, exc: Exception | None) -> None:
        self._finish("reset" if exc else "eof")

    def _finish(self, why: str) -> None:
        if not self.done.done():
            self.done.set_result(why)


class Storm:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.protocols: dict[int, WsProtocol] = {}
        self.reconnects: set[asyncio.Future[None]] = set()

    async def connect(self, w: Watcher, *, retry_until: float) -> None:
        """Connect and resume; on refusal try again every 0.2 s until back or `retry_until`."""
        loop = asyncio.get_running_loop()
        request = (f"GET /api/tables/{w.table}/ws HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                   "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
                   f"{_KEY.decode()}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()
        while True:
            w.attempts += 1
            w.back.clear()
            w.caught_up_at, w.ready_version = None, -1
            try:
                async with asyncio.timeout(10):
                    _, proto = await loop.create_connection(
                        lambda: WsProtocol(w, request), self.host, self.port)
            except (OSError, TimeoutError) as exc:
                w.refused(f"connect {type(exc).__name__}")
            else:
                self.protocols[id(w)] = proto
                w.transport = proto.transport
                back = asyncio.ensure_future(w.back.wait())
                await asyncio.wait([back, proto.done], timeout=30,
                                   return_when=asyncio.FIRST_COMPLETED)
                if w.back.is_set():
                    back.cancel()
                    proto.done.add_done_callback(lambda f, w=w: self._later(w, f))
                    return
                back.cancel()
                w.refused(proto.done.result() if proto.done.done() else "timeout")
                if proto.transport is not None:
                    proto.transport.abort()
            if time.perf_counter() > retry_until:
                return
            await asyncio.sleep(0.2)

    def _later(self, w: Watcher, done: asyncio.Future[str]) -> None:
        """A socket that was back and then closed or reset by the server (not by us): counted,
        and it reconnects and resumes, as the web app does."""
        if done.cancelled():
            return  # dropped by us (the storm)
        w.refused(f"later {done.result()}")
        task = asyncio.ensure_future(self.connect(w, retry_until=time.perf_counter() + 60))
        self.reconnects.add(task)
        task.add_done_callback(self.reconnects.discard)

    def drop_all(self) -> None:
        for proto in self.protocols.values():
            proto.done.cancel()  # our own drop: not counted as the server's doing
            if proto.transport is not None:
                proto.transport.abort()
        self.protocols = {}


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
                                sign_init_data(api.TOKEN, user_id=base + i, name=f"w{i}"))
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


# -- the scenario ---------------------------------------------------------------------------

def reasons(watchers: list[Watcher]) -> dict[str, int]:
    out: dict[str, int] = {}
    for w in watchers:
        for why, n in w.refusals.items():
            out[why] = out.get(why, 0) + n
    return out


def listen_overflows() -> int:
    """The kernel's count of connections dropped because an accept queue was full (the whole
    machine: TcpExtListenOverflows)."""
    lines = Path("/proc/net/netstat").read_text().splitlines()
    for names, values in zip(lines[::2], lines[1::2], strict=False):
        if names.startswith("TcpExt:"):
            fields = dict(zip(names.split()[1:], values.split()[1:], strict=True))
            return int(fields.get("ListenOverflows", 0))
    return 0


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
                   during: Callable[[], Awaitable[Any]] | None = None) -> JSON:
    """One storm on a fresh server; `during` (if given) runs alongside the storm from the
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
            side = asyncio.create_task(during()) if during is not None else None
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
    from redis.asyncio import Redis

    client = Redis.from_url(redis_url)
    try:
        batch: list[bytes] = []
        async for key in client.scan_iter(match=f"svara:{{{namespace}:*", count=1000):
            batch.append(key)
            if len(batch) >= 1000:
                await client.delete(*batch)
                batch = []
        if batch:
            await client.delete(*batch)
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
