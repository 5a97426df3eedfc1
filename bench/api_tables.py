"""The clients the API benchmark drives a server with: the bare stack's tables (one POST per
action) and svara's (three signed players with a WebSocket each, acting on the views their
sockets bring)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import time
import uuid
from collections.abc import Callable
from typing import Any

import aiohttp
import msgspec
from api_http import HttpError, HttpPool
from api_run import BENCH_ID, JSON, TOKEN, Stats

from service.api.auth import sign_init_data

# Both servers get the same client: bodies encoded and answers decoded by msgspec.
_encode = msgspec.json.Encoder().encode


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
