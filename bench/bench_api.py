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
import contextlib
import os
import random
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import msgspec

REPO = Path(__file__).resolve().parents[1]
# Beside the repository (a checkout in a worktree directory: one level further up).
BARE = next((p for p in (REPO.parent / "shared" / "bench" / "bare_stack.py",
                         REPO.parent.parent / "shared" / "bench" / "bare_stack.py")
             if p.exists()), REPO.parent / "shared" / "bench" / "bare_stack.py")
sys.path.insert(0, str(REPO))

from service.api.auth import sign_init_data  # noqa: E402

TOKEN = "4242:bench-token"
BENCH_ID = uuid.uuid4().hex[:10]  # names this run's keys, which it deletes at the end
JSON = dict[str, Any]
# Both servers get the same client: bodies encoded and answers decoded by msgspec.
_encode = msgspec.json.Encoder().encode


# -- processes ------------------------------------------------------------------------------

def start(cmd: list[str], env: dict[str, str], health: str,
          cwd: Path = REPO, within: float = 30.0) -> subprocess.Popen[bytes]:
    """Start a server (its output goes to a temp file: a full pipe would stall it)."""
    log = tempfile.NamedTemporaryFile(prefix="bench-api-", suffix=".log", delete=False)  # noqa: SIM115
    proc = subprocess.Popen(cmd, cwd=cwd, env={**os.environ, **env},
                            stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{cmd} exited: {Path(log.name).read_text()[-2000:]}")
        try:
            import urllib.request

            with urllib.request.urlopen(health, timeout=1):
                return proc
        except Exception as exc:  # 404/405 from the bare stack also means "up"
            if getattr(exc, "code", None):
                return proc
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{cmd} did not start")


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()


# -- measuring --------------------------------------------------------------------------------

class Stats:
    def __init__(self) -> None:
        self.actions = 0
        self.latencies: list[float] = []
        self.lost = 0
        self.errors: dict[str, int] = {}
        self.post_rtts: list[float] = []
        self.idle = 0  # a table loop found nobody to act (between hands)
        self.views = 0

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def run_phase(loops: list[Callable[[Stats, Callable[[], bool]], Awaitable[None]]],
                    seconds: float) -> tuple[Stats, float]:
    stats = Stats()
    end = time.monotonic() + seconds
    started = time.monotonic()
    await asyncio.gather(*(loop(stats, lambda: time.monotonic() < end) for loop in loops))
    return stats, time.monotonic() - started


# -- the HTTP client both servers get ----------------------------------------------------------

class HttpError(Exception):
    """The connection broke or the answer was not HTTP/1.1 with a Content-Length."""


class _HttpConn(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection: one request at a time, the answer parsed as it
    arrives (status line, Content-Length, body), no task per request."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buf = b""
        self.waiter: asyncio.Future[tuple[int, bytes]] | None = None
        self.reusable = True

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        self.buf += data
        end = self.buf.find(b"\r\n\r\n")
        if end < 0 or self.waiter is None:
            return
        head = self.buf[:end].decode("latin-1").split("\r\n")
        fields = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:])}
        if "content-length" not in fields:
            self._fail(HttpError(f"no Content-Length in {head[0]!r}"))
            return
        length = int(fields["content-length"])
        if len(self.buf) < end + 4 + length:
            return
        body, self.buf = self.buf[end + 4 : end + 4 + length], self.buf[end + 4 + length :]
        if fields.get("connection", "").lower() == "close":
            self.reusable = False
        waiter, self.waiter = self.waiter, None
        if not waiter.done():
            waiter.set_result((int(head[0].split(" ", 2)[1]), body))

    def connection_lost(self, exc: Exception | None) -> None:
        self.reusable = False
        self._fail(HttpError(f"connection lost: {exc}"))

    def _fail(self, error: Exception) -> None:
        self.reusable = False
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(error)
        if self.transport is not None:
            self.transport.close()


class HttpPool:
    """At most `limit` requests in flight over keep-alive connections to one server: what
    aiohttp's client did here, at a fraction of its CPU per request (the client shares the
    machine's two cores with the server it measures)."""

    def __init__(self, host: str, port: int, limit: int, timeout: float = 20.0) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self.slots = asyncio.Semaphore(limit)
        self.idle: list[_HttpConn] = []

    async def request(self, method: str, path: str, body: bytes | None = None,
                      headers: bytes = b"") -> tuple[int, bytes]:
        data = body or b""
        head = (b"%s %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n%b\r\n" % (method.encode(), path.encode(),
                                                    self.host.encode(), self.port, len(data),
                                                    headers))
        async with self.slots, asyncio.timeout(self.timeout):
            conn = self.idle.pop() if self.idle else None
            if conn is None:
                _, conn = await asyncio.get_running_loop().create_connection(
                    _HttpConn, self.host, self.port)
            assert conn.transport is not None
            conn.waiter = asyncio.get_running_loop().create_future()
            try:
                conn.transport.write(head + data)
                answer = await conn.waiter
            except BaseException:
                conn.reusable = False
                conn.transport.close()
                raise
            if conn.reusable:
                self.idle.append(conn)
            return answer

    def close(self) -> None:
        for conn in self.idle:
            if conn.transport is not None:
                conn.transport.close()
        self.idle = []


# -- the bare stack ---------------------------------------------------------------------------

async def bare_loops(http: HttpPool, tables: int, interval: float | None) -> list[Any]:
    run = uuid.uuid4().hex[:8]

    def make(i: int) -> Any:
        async def loop(stats: Stats, going: Callable[[], bool]) -> None:
            if interval:
                await asyncio.sleep(random.random() * interval)
            body = {"table": f"bench-{BENCH_ID}-{run}-{i}", "type": "call", "amount": 10}
            while going():
                t0 = time.perf_counter()
                try:
                    status, _ = await http.request("POST", "/act", _encode(body))
                    if status != 200:
                        stats.error(str(status))
                        continue
                except (HttpError, OSError, TimeoutError) as exc:
                    stats.error(type(exc).__name__)
                    continue
                stats.actions += 1
                stats.latencies.append(time.perf_counter() - t0)
                if interval:
                    await asyncio.sleep(max(0.0, interval - (time.perf_counter() - t0)))
        return loop
    return [make(i) for i in range(tables)]


# -- svara ------------------------------------------------------------------------------------

class Seat:
    def __init__(self, http: HttpPool, url: str, user_id: int) -> None:
        self.http = http
        self.url = url
        self.user_id = user_id
        self.init = sign_init_data(TOKEN, user_id=user_id, name=f"bench {user_id}")
        self.headers = f"Authorization: tma {self.init}\r\n".encode()
        self.arrived: dict[int, float] = {}  # version -> when this player's socket got it
        self.turn_seat: int | None = None  # from the latest event that set the turn
        self.seat: int | None = None
        self.got = asyncio.Event()
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self._view: JSON | None = None  # the newest view a frame brought (decoded) ...
        self._view_raw: msgspec.Raw | None = None  # ... or its JSON, not decoded yet
        self.view_version = -1

    async def req(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else _encode(body)
        status, answer = await self.http.request(method, path, data, self.headers)
        return status, msgspec.json.decode(answer)

    async def listen(self, ws_session: aiohttp.ClientSession, table: str) -> None:
        ws_url = self.url.replace("http", "ws", 1) + f"/api/tables/{table}/ws"
        self.ws = await ws_session.ws_connect(ws_url)
        await self.ws.send_json({"type": "auth", "init_data": self.init})
        ready = await self.ws.receive_json()
        await self.ws.send_json({"type": "resume", "after": ready["version"], "views": True})
        asyncio.get_running_loop().create_task(self._read())

    async def reached(self, version: int, within: float = 1.0) -> None:
        """Wait (briefly) until this socket has seen `version`."""
        end = time.perf_counter() + within
        while version not in self.arrived and time.perf_counter() < end:
            self.got.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(end - time.perf_counter()):
                    await self.got.wait()

    @property
    def view(self) -> JSON | None:
        """The newest view a frame brought, decoded on first use and only as far as a move
        needs (its version and `you.legal`); a GET brings the whole view."""
        if self._view is None and self._view_raw is not None:
            lite = _decode_view(self._view_raw)
            self._view = {"version": lite.version, "you": {"legal": lite.you.legal}}
        return self._view

    async def _read(self) -> None:
        assert self.ws is not None
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            now = time.perf_counter()
            frame = _decode_frame(msg.data)
            if frame.type == "event":
                self.arrived[frame.version] = now
                if frame.view and frame.version > self.view_version:
                    self._view, self._view_raw = None, frame.view  # decoded when needed
                    self.view_version = frame.version
                self.got.set()
                event = frame.event
                if event is not None:
                    if event.type == "turn_deadline_set":
                        self.turn_seat = int(event.data.seat)
                    elif isinstance(event.data.turn, int):  # an action that handed it on
                        self.turn_seat = event.data.turn


class _Data(msgspec.Struct):
    seat: Any = None
    turn: Any = None


class _Event(msgspec.Struct):
    type: str
    data: _Data


class _Frame(msgspec.Struct):
    """What the client reads of a socket frame; the view stays raw JSON until it is used."""
    type: str
    version: int = 0
    event: _Event | None = None
    view: msgspec.Raw = msgspec.Raw()  # empty when the frame has no view


_decode_frame = msgspec.json.Decoder(_Frame).decode


class _You(msgspec.Struct):
    legal: list[dict[str, Any]]


class _View(msgspec.Struct):
    version: int
    you: _You


_decode_view = msgspec.json.Decoder(_View).decode


def policy(view: JSON) -> tuple[str, int | None] | None:
    """A cheap legal move: keep hands going (call/raise), never look, join svaras."""
    legal = {a["type"]: a for a in view["you"]["legal"]}
    for t in ("call", "pass", "join_svara", "sit_in"):
        if t in legal:
            return t, None
    for t in ("raise", "blind"):
        if t in legal:
            rule = legal[t]
            return t, int(rule.get("amount", rule.get("min", 0)))
    if "fold" in legal:
        return "fold", None
    return None


class Table:
    def __init__(self, seats: list[Seat], table_id: str, version: int) -> None:
        self.seats = seats
        self.id = table_id
        self.version = version  # the newest version this table's loop has caused

    def candidates(self) -> list[Seat]:
        """Whoever the newest views say may act, then the player the last turn event named."""
        turn = self.seats[0].turn_seat
        return sorted(self.seats, key=lambda s: (not (s.view and s.view["you"]["legal"]),
                                                  s.seat != turn))

    async def view_of(self, seat: Seat, stats: Stats) -> JSON | None:
        """The view the seat's socket brought for our newest version (a GET if none came)."""
        if seat.view_version < self.version:
            await seat.reached(self.version, within=0.2)
        if seat.view_version >= self.version:
            return seat.view
        status, view = await seat.req("GET", f"/api/tables/{self.id}")
        stats.views += 1
        if status != 200:
            stats.error(f"view {status}")
            return None
        return dict(view)

    async def act_once(self, stats: Stats) -> bool:
        """One action by whoever may act: a legal move from their view, one POST."""
        for seat in self.candidates():
            view = await self.view_of(seat, stats)
            if view is None:
                continue
            move = policy(view)
            if move is None:
                continue
            body: JSON = {"action_id": secrets.token_hex(8), "type": move[0],
                          "expected_version": view["version"]}
            if move[1] is not None:
                body["amount"] = move[1]
            t0 = time.perf_counter()
            status, answer = await seat.req("POST", f"/api/tables/{self.id}/actions", body)
            stats.post_rtts.append(time.perf_counter() - t0)
            if status != 200:
                stats.error(f"act {status} {answer.get('error', {}).get('code')}")
                return False
            stats.actions += 1
            others = [s for s in self.seats if s is not seat]
            version = int(answer["version"])
            self.version = max(self.version, version)
            asyncio.get_running_loop().create_task(self._broadcast(stats, others, version, t0))
            await self.seats[0].reached(version)  # so the next turn is known: one GET per action
            return True
        return False

    @staticmethod
    async def _broadcast(stats: Stats, others: list[Seat], version: int, t0: float) -> None:
        deadline = time.perf_counter() + 5
        while time.perf_counter() < deadline:
            times = [s.arrived.get(version) for s in others]
            if all(t is not None for t in times):
                stats.latencies.append(max(t for t in times if t is not None) - t0)
                return
            await asyncio.sleep(0.005)
        stats.lost += 1


async def svara_tables(http: HttpPool, ws_session: aiohttp.ClientSession,
                       url: str, n: int) -> list[Table]:
    base = secrets.randbelow(10**12) + 10**12

    async def one(i: int) -> Table:
        seats = [Seat(http, url, base + 3 * i + k) for k in range(3)]
        status, body = await seats[0].req("POST", "/api/tables", {
            "ante": 1, "max_seats": 3, "turn_seconds": 600, "next_hand_seconds": 0,
            "min_buy_in": 100, "max_buy_in": 1000})
        assert status == 201, body
        table = Table(seats, body["table_id"], 0)
        for s in seats:
            status, body = await s.req("POST", f"/api/tables/{table.id}/seat", {"buy_in": 1000})
            assert status == 200, body
            s.seat = body["you"]["seat"]
            table.version = max(table.version, int(body["version"]))
        for s in seats:
            await s.listen(ws_session, table.id)
        return table

    tables: list[Table] = []
    for chunk in range(0, n, 20):
        tables += await asyncio.gather(*(one(i) for i in range(chunk, min(n, chunk + 20))))
    return tables


def svara_loops(tables: list[Table], interval: float | None) -> list[Any]:
    def make(table: Table) -> Any:
        async def loop(stats: Stats, going: Callable[[], bool]) -> None:
            if interval:
                await asyncio.sleep(random.random() * interval)
            while going():
                t0 = time.perf_counter()
                try:
                    acted = await table.act_once(stats)
                except (HttpError, OSError, TimeoutError) as exc:
                    stats.error(type(exc).__name__)
                    acted = False
                if not acted:
                    stats.idle += 1
                    # Between hands (the next one starts by timer): wait for the next frame.
                    first = table.seats[0]
                    await first.reached(max(first.arrived, default=0) + 1, within=0.05)
                    continue
                if interval:
                    await asyncio.sleep(max(0.0, interval - (time.perf_counter() - t0)))
        return loop
    return [make(t) for t in tables]


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
        for pattern in (f"bare:{{bench-{BENCH_ID}-*", f"svara:{{bench-{BENCH_ID}:*"):
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


def report(results: list[JSON], args: argparse.Namespace) -> str:
    bare, svara = results
    paced_heads = "".join(f" p50 / p99, 1 action per table every {iv:g} s |"
                          for iv in args.interval)
    lines = [
        f"{args.tables} tables, {args.seconds:.0f} s per phase, at most {args.connections} HTTP "
        "requests in flight, one server process each, loopback, Redis 7 on the same 2-core "
        "machine, which the client and other people's work share (load average "
        f"{args.load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end). "
        "svara: "
        + ("compiled with mypyc, the game core and the fan-out's hot modules (`--compiled`, as "
           "the Dockerfile ships it)." if args.compiled
           else "pure Python (as `pip install -e .` installs it)."),
        "",
        "| server | actions/s (closed loop) | server CPU per action | p50 / p99 at full load |"
        + paced_heads,
        "|---|---|---|---|" + "---|" * len(args.interval),
    ]
    for r in results:
        paced = "".join(f" {p50:.1f} / {p99:.1f} ms ({rate:.0f}/s) |"
                        for p50, p99, rate in r["paced"].values())
        lines.append(f"| {r['name']} | {r['actions_per_s']:.0f} | "
                     f"{r['server_cpu_ms_per_action']:.2f} ms ({100 * r['server_cpu_share']:.0f}%"
                     f" of a core; client {100 * r['client_cpu_share']:.0f}%) | "
                     f"{r['tput_p50']:.1f} / {r['tput_p99']:.1f} ms |" + paced)
    p99s = ", ".join(f"{p99:.1f} ms at one action per table every {iv:g} s"
                     for iv, (_, p99, _) in svara["paced"].items())
    ratios = [sv / b for sv, b in zip(svara["rounds"], bare["rounds"], strict=True)]
    ratio = sorted(ratios)[len(ratios) // 2]
    worst = max(p99 for _, p99, _ in svara["paced"].values())
    if len(ratios) > 1:
        lines += ["", f"Closed-loop rounds, alternating ({args.seconds:.0f} s each; the table "
                  "shows each server's median round): bare "
                  + ", ".join(f"{x:.0f}" for x in bare["rounds"]) + " actions/s ("
                  + ", ".join(f"{x:.2f}" for x in bare["round_cpu"]) + " ms); svara "
                  + ", ".join(f"{x:.0f}" for x in svara["rounds"]) + " actions/s ("
                  + ", ".join(f"{x:.2f}" for x in svara["round_cpu"]) + " ms); ratio per "
                  "round " + ", ".join(f"{x:.2f}" for x in ratios) + "."]
    what = "median of the rounds' ratios" if len(ratios) > 1 else "one round"
    lines += ["", f"Ratio svara / bare actions/s: {ratio:.2f} ({what}; target ≥ 0.5: "
              f"{'met' if ratio >= 0.5 else 'NOT met'}). "
              f"svara p99 action→broadcast: {p99s} (target ≤ 50 ms: "
              f"{'met' if worst <= 50 else 'NOT met'}). "
              f"Lost broadcasts: {svara['lost']}; errors: {svara['errors'] or 'none'}; "
              f"GETs per action: {svara['views_per_action']:.2f}."]
    return "\n".join(lines)


ANALYSIS = """\
**What a svara action costs the server.** One HTTP request (auth from a cache, the rate
limiter, the body decoded by msgspec, errors shaped by a per-handler wrapper rather than an
aiohttp middleware), a decision on the cached state, and the append: a version-checked `FCALL`
on one pipelined connection per process (`events/store/pipe.py`). Then the fan-out, once per
process and table (`service/tables/live.py`): the process's own appends go to the table's
sockets straight from the append's reply (about 93% of them at full load; the rest, and other
replicas' appends, come through the process's one `XREAD` reader, which is told what the feed
holds already and drops it unwoken). An event is encoded once (a public projection straight
from the event's encoding); the newest event of a delivery carries each viewer's view, built
by `SharedViews` (settings, hand and seats encoded once, then each viewer's own seat and
`you`); each socket gets one transport write. At a table without a pause between hands the
action that settles a hand also deals the next (one append and one fan-out instead of two).
py-spy on the saturated server: aiohttp's own request handling about a quarter, the fan-out
(three socket writes, three views) a fifth, the append a seventh, the game core (compiled) a
tenth; nothing else above 5%.

**This round, step by step** (svara alone, server CPU per action, same machine): 0.74-0.76 ms
at the start; own appends handed to the sockets from the append's reply 0.70; the public
projection from the event's encoding 0.69; settings encoded once per table, error mapping
inline 0.67; handler wrapper instead of middleware 0.65-0.66; the fan-out's hot modules
compiled with the game core 0.625 against 0.664 (alternating A/B, three runs each); the next
hand dealt by the settling action 0.54-0.57. Tried and dropped, no difference measurable:
compiling the store's append path, the API's socket writer and the repo too; hashing with
copied sha256 states; packing the append's arguments by hand; reading the pipe's replies
straight from hiredis.

**How the ratio is measured.** This machine's speed drifts by 10-20% over minutes (the bare
stack's own CPU per action was 0.30-0.35 ms today), and a single phase per server put one to
two minutes between the two figures: single runs today gave 0.44-0.56x for the same build.
With `--rounds N` both servers stay up and the closed-loop phases alternate, so each svara
round is compared with the bare round beside it; the verdict is the median of the rounds'
ratios, and the table shows each server's median round. Within a run the rounds agree to a
few hundredths. The bare stack spends about half its CPU in redis-py's pooled `EVALSHA`
(about 0.15 ms; svara's pipelined append about 0.04 ms); what svara adds on top is the
decision, the chain hash, the fan-out to three sockets with a view each and the deal of each
new hand. The pure-Python build (no `--compiled`) measured the same day: ratio per round
0.63, 0.53, 0.59 (median 0.59; svara 0.52-0.58 ms per action): the compiled build is not what
meets the target. p99 action -> broadcast stays far inside its target.
Scaling out is by replicas (`docker-compose.yml` runs two), which share nothing but Redis;
every guarantee (idempotency, version checks, exactly-once timeouts, per-viewer privacy, gap-
free sockets with resume and 4408 for slow clients) is unchanged and tested."""


def update_readme(text: str) -> None:
    readme = REPO / "docs" / "PERFORMANCE.md"  # its "API benchmark" section
    body = readme.read_text()
    intro = textwrap.fill(
        "`python bench/bench_api.py --tables 200 --seconds 10 --rounds 5 [--compiled]` (needs "
        "`REDIS_URL`, default the local Redis; `--compiled` serves svara as the Dockerfile "
        "ships it, compiled with mypyc) starts `../shared/bench/bare_stack.py` and `svara "
        "serve`, one process each, and drives both from one client process with the same lean "
        "HTTP/1.1 client and connection limit, the closed-loop phases alternating between the "
        "two servers `--rounds` times; "
        "`--update-readme` rewrites this section. Each svara table has three signed players "
        "with a WebSocket each, resumed with `views: true`; the player on turn POSTs one legal "
        "action chosen from the view its socket last brought (a GET of the view only if no "
        "frame brought one within 0.2 s: the `GETs per action` figure), so an action is one "
        "HTTP request, as for the bare stack. Closed loop: each table acts again as soon as "
        "its previous action's event reached its first player. Latency is from the POST to "
        "the event reaching both other players' WebSockets; the bare stack has no sockets, so "
        "its latency is the POST round trip. Server CPU is the process's utime + stime over "
        "the closed-loop phase divided by its actions.", width=95)
    head, _, rest = text.partition("\n")
    section = ("## API benchmark\n\n" + intro + "\n\n" + textwrap.fill(head, width=95) + "\n"
               + rest + "\n\n" + ANALYSIS + "\n")
    pattern = re.compile(r"## API benchmark\n.*?(?=\n## |\Z)", re.S)
    body = pattern.sub(lambda _: section.rstrip("\n") + "\n", body) if pattern.search(body) \
        else body.rstrip("\n") + "\n\n" + section
    readme.write_text(body)


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
                        help="like --compiled, with a copy `python bench/compiled.py DIR` "
                             "built before (for repeated runs; rebuild it after changes)")
    args = parser.parse_args()
    args.server_root = REPO
    scratch = None
    if args.compiled_in is not None:
        args.compiled = True
        args.server_root = args.compiled_in.resolve()
    elif args.compiled:
        from compiled import build  # bench/compiled.py, beside this file

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
