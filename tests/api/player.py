"""A signed test user driving the public API over HTTP and one WebSocket, plus the checks the
end-to-end tests share (privacy, feed integrity)."""

from __future__ import annotations

import asyncio
import random
import re
import uuid
from collections.abc import Callable
from typing import Any

import aiohttp

from service.api.auth import sign_init_data

JSON = dict[str, Any]
CARD = re.compile(r"^[789TJQKA][cdhs]$")
PLAY_TYPES = ("blind", "pass", "call", "raise", "fold", "join_svara", "skip_svara", "sit_in")


class Player:
    def __init__(self, session: aiohttp.ClientSession, base: str, user_id: int, token: str,
                 name: str = "") -> None:
        self.session = session
        self.base = base
        self.user_id = user_id
        self.name = name or f"Player {user_id}"
        self.init_data = sign_init_data(token, user_id=user_id, name=self.name)
        self.headers = {"Authorization": f"tma {self.init_data}"}
        self.feed: Feed | None = None
        self.over_socket = False  # act through the WebSocket instead of POST

    async def call(self, method: str, path: str, body: Any = None,
                   raw: bytes | None = None) -> tuple[int, Any]:
        async with self.session.request(
            method, f"{self.base}{path}", headers=self.headers,
            json=body if raw is None else None, data=raw,
        ) as resp:
            data = await resp.json(content_type=None)
            return resp.status, data

    async def ok(self, method: str, path: str, body: Any = None) -> Any:
        status, data = await self.call(method, path, body)
        assert 200 <= status < 300, (method, path, body, status, data)
        return data

    async def view(self, table: str) -> JSON:
        return dict(await self.ok("GET", f"/api/tables/{table}"))

    async def act(self, table: str, type_: str, amount: int | None = None, *,
                  action_id: str | None = None,
                  expected_version: int | None = None) -> tuple[int, Any]:
        body: JSON = {"action_id": action_id or uuid.uuid4().hex, "type": type_}
        if amount is not None:
            body["amount"] = amount
        if expected_version is not None:
            body["expected_version"] = expected_version
        if self.over_socket and self.feed is not None:
            return await self.feed.act(body)
        return await self.call("POST", f"/api/tables/{table}/actions", body)

    async def listen(self, table: str, after: int = 0) -> Feed:
        ws_url = self.base.replace("http", "ws", 1) + f"/api/tables/{table}/ws"
        self.feed = Feed(await self.session.ws_connect(ws_url), self.init_data)
        await self.feed.start(after)
        return self.feed


class Feed:
    """One WebSocket: every event frame is kept, in arrival order."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, init_data: str) -> None:
        self.ws = ws
        self.init_data = init_data
        self.events: list[JSON] = []
        self.ready_version = -1
        self._task: asyncio.Task[None] | None = None
        self.changed = asyncio.Event()
        self.answers: dict[str, asyncio.Future[JSON]] = {}

    async def start(self, after: int) -> None:
        await self.ws.send_json({"type": "auth", "init_data": self.init_data})
        ready = await self.ws.receive_json(timeout=5)
        assert ready["type"] == "ready", ready
        self.ready_version = ready["version"]
        await self.ws.send_json({"type": "resume", "after": after})
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            frame = msg.json()
            if frame["type"] == "event":
                assert frame["version"] == frame["event"]["version"]
                self.events.append(frame["event"])
                self.changed.set()
            elif frame["type"] in ("ack", "error") and frame.get("action_id") in self.answers:
                self.answers.pop(frame["action_id"]).set_result(frame)

    async def act(self, body: JSON) -> tuple[int, Any]:
        """An action over the socket, answered like the POST: (status, body)."""
        answer = asyncio.get_running_loop().create_future()
        self.answers[body["action_id"]] = answer
        fields = {k: v for k, v in body.items() if k != "type"}
        await self.ws.send_json({**fields, "type": "action", "action": body["type"]})
        frame = await asyncio.wait_for(answer, 10)
        if frame["type"] == "ack":
            assert frame["action_id"] == body["action_id"]
            return 200, {"version": frame["version"]}
        error = frame["error"]
        extra = {k: v for k, v in error.items() if k not in ("code", "message")}
        return int(frame["status"]), {"error": error, **extra}

    @property
    def version(self) -> int:
        return self.events[-1]["version"] if self.events else 0

    async def wait_for(self, version: int, within: float = 10.0) -> None:
        async with asyncio.timeout(within):
            while self.version < version:
                self.changed.clear()
                await self.changed.wait()

    async def wait_until(self, match: Callable[[JSON], bool], within: float = 10.0) -> JSON:
        """The first event (already here or still to come) that matches."""
        async with asyncio.timeout(within):
            while True:
                for e in self.events:
                    if match(e):
                        return e
                self.changed.clear()
                await self.changed.wait()

    async def close(self) -> None:
        await self.ws.close()
        if self._task is not None:
            await asyncio.wait_for(self._task, 5)


def choose(view: JSON, rng: random.Random) -> tuple[str, int | None] | None:
    """A random legal move (None when the caller has nothing to do but maybe look)."""
    legal = {a["type"]: a for a in view["you"]["legal"]}
    if "look" in legal and rng.random() < 0.3:
        return "look", None
    moves = [t for t in PLAY_TYPES if t in legal]
    if not moves:
        return None
    weights = {"fold": 0.5, "raise": 2, "blind": 2, "call": 5, "pass": 3, "join_svara": 3,
               "skip_svara": 1, "sit_in": 5}
    type_ = rng.choices(moves, [weights[m] for m in moves])[0]
    rule = legal[type_]
    if "amount" in rule:
        return type_, int(rule["amount"])
    if "min" in rule:  # mostly the minimum, so three hands rarely break anyone
        low, high = int(rule["min"]), int(rule.get("max", rule["min"]))
        return type_, low if rng.random() < 0.8 else rng.randint(low, min(high, 3 * low))
    return type_, None


def cards_in(value: Any) -> set[str]:
    """Every card-shaped string anywhere in a JSON value."""
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def check_view_privacy(view: JSON) -> None:
    """Other players' cards only after a showdown; one's own only after looking."""
    hand = view["hand"]
    for seat in view["seats"]:
        if seat["cards"] is None:
            continue
        if seat["seat"] == view["you"]["seat"] and seat["looked"]:
            continue
        assert hand is not None and hand["phase"] in ("settled", "svara_join"), (seat, hand)


def check_feed(events: list[JSON], first: int = 1) -> None:
    """Versions first, first+1, ... with no gap or repeat."""
    versions = [e["version"] for e in events]
    assert versions == list(range(first, first + len(versions))), versions


def check_event_privacy(events: list[JSON], own_seat: int, audits: dict[int, JSON]) -> None:
    """Before a deal's showdown, no event a player got names a card dealt to anyone else.

    `audits` maps hand number → its audit (the full record of the cards each seat got).
    """
    hand = deal = 0
    shown = False
    for e in events:
        t, data = e["type"], e["data"]
        if t == "hand_started":
            hand, deal, shown = data.get("number", hand + 1), 1, False
        elif t == "svara_deal_started":
            deal, shown = data["deal"], False
        elif t in ("showdown", "hand_settled"):
            shown = True
        if shown or hand not in audits:
            continue
        dealt = {d["deal"]: d["cards"] for d in audits[hand]["deals"]}.get(deal, {})
        others = {c for seat, cs in dealt.items() if int(seat) != own_seat for c in cs}
        leaked = cards_in(data) & others
        assert not leaked, (e, leaked)


def strings_in(value: Any) -> set[str]:
    """Every string anywhere in a JSON value (keys too)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set(value) | set().union(*(strings_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(strings_in(v) for v in value)) if value else set()
    return set()


def check_seed_privacy(events: list[JSON], audits: dict[int, JSON]) -> None:
    """No server seed reaches a player before the settlement of the hand it dealt: not in
    `hand_started` or `svara_deal_started`, and not in the `seed_drawn` that holds a seed
    drawn in advance (the next hand's, or a declared svara's). `audits` maps hand number to
    its audit, whose deals name the seeds; the newest `seed_drawn` seen is for a hand not yet
    settled, so its seed can be checked only by its absence (every `seed_drawn` shows none)."""
    secret: dict[str, int] = {}  # seed -> the hand that reveals it
    for number, audit in audits.items():
        for deal in audit["deals"]:
            secret[deal["seed"]] = number
    settled: set[int] = set()
    for e in events:
        t, data = e["type"], e["data"]
        if t == "seed_drawn":
            assert set(data) == {"commitment"}, e
        if t == "hand_settled":
            settled.add(int(data["number"]))
        found = strings_in(data)
        leaked = {s for s in found & secret.keys() if secret[s] not in settled}
        assert not leaked, (e, leaked)


def check_hashes(events: list[JSON]) -> None:
    """Every event carries its chain hash (64 lowercase hex digits), each a different one."""
    hashes = [e["hash"] for e in events]
    assert all(isinstance(h, str) and re.fullmatch(r"[0-9a-f]{64}", h) for h in hashes), events
    assert len(set(hashes)) == len(hashes)
