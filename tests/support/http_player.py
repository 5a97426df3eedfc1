"""A test user driving the public API over HTTP and one WebSocket (signed by the test with the
bot token, or by a dev-mode server's /dev/init-data), plus the checks the end-to-end tests
share (privacy, feed integrity)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
import uuid
from collections.abc import Callable
from typing import Any

import aiohttp

from service.api.auth import sign_init_data
from tests.support.oracle import settings_score
from tests.support.privacy import DERIVED_KEY

JSON = dict[str, Any]
CARD = re.compile(r"^[789TJQKA][cdhs]$")
HEX64 = re.compile(r"^[0-9a-fA-F]{64}$")
PLAY_TYPES = ("blind", "pass", "call", "raise", "fold", "join_svara", "skip_svara", "sit_in")


class HttpPlayer:
    """One user: `token` signs its initData here (or `init_data` is one the server signed)."""

    def __init__(self, session: aiohttp.ClientSession, base: str, user_id: int, token: str = "",
                 name: str = "", *, init_data: str = "") -> None:
        self.session = session
        self.base = base
        self.user_id = user_id
        self.name = name or f"Player {user_id}"
        self.init_data = init_data or sign_init_data(token, user_id=user_id, name=self.name)
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

    @classmethod
    async def login(cls, session: aiohttp.ClientSession, base: str, user_id: int, name: str,
                    language: str = "") -> HttpPlayer:
        """A dev-mode user, its initData signed by the server's /dev/init-data."""
        params = {"user_id": str(user_id), "name": name}
        if language:
            params["language"] = language
        async with session.get(f"{base}/dev/init-data", params=params) as resp:
            assert resp.status == 200, await resp.text()
            init_data = str((await resp.json())["init_data"])
        return cls(session, base, user_id, name=name, init_data=init_data)

    async def ok(self, method: str, path: str, body: Any = None) -> Any:
        status, data = await self.call(method, path, body)
        assert 200 <= status < 300, (method, path, body, status, data)
        return data

    async def me(self) -> JSON:
        return dict(await self.ok("GET", "/api/me"))

    async def create(self, **settings: Any) -> str:
        data = await self.ok("POST", "/api/tables", settings)
        return str(data["table_id"])

    async def seat(self, table: str, buy_in: int) -> JSON:
        return dict(await self.ok("POST", f"/api/tables/{table}/seat", {"buy_in": buy_in}))

    async def events(self, table: str, after: int = 0) -> list[JSON]:
        data = await self.ok("GET", f"/api/tables/{table}/events?after={after}")
        return list(data["events"])

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
    """Other players' cards only after a showdown; one's own only after looking; no card
    anywhere else. Whatever is derived from cards (a score, a rank) only beside the cards it
    comes from, and equal to their score under the table's options; no deal's seed before
    the hand is settled."""
    hand = view["hand"]
    phase = hand["phase"] if hand is not None else None
    you = view["you"]
    visible: set[str] = set()
    for seat in view["seats"]:
        if seat["cards"] is None:
            continue
        if not (seat["seat"] == you["seat"] and seat["looked"]):
            assert phase in ("settled", "svara_join"), (seat, hand)
        visible |= set(seat["cards"])
    own = next((seat for seat in view["seats"] if seat["seat"] == you["seat"]), None)
    if you.get("cards") is not None:
        assert own is not None and you["cards"] == own["cards"], (you, own)
    leaked = cards_in(view) - visible
    assert not leaked, (leaked, view)
    check_derived(view, view["settings"])
    check_seeds_hidden(view, settled=phase == "settled")


def check_derived(value: Any, settings: JSON | None) -> None:
    """Every value under a key that names something derived from cards (score, rank ...)
    sits beside exactly three cards, and (when the table's settings are known) equals their
    score: a score without its cards is a hidden hand's."""
    for obj in _objects(value):
        for key, derived in obj.items():
            if derived is None or not DERIVED_KEY.search(str(key)):
                continue
            cards = obj.get("cards")
            assert isinstance(cards, list) and len(cards) == 3, (key, obj)
            if settings is not None:
                assert derived == settings_score(cards, settings), (key, obj)


def check_seeds_hidden(value: Any, settled: bool) -> None:
    """A seed is a hex string whose sha256 is a commitment shown beside it; neither one nor
    a `seed` field may be shown before the hand is settled."""
    hexes = {s.lower() for s in _strings(value) if HEX64.match(s)}
    for h in hexes:
        if hashlib.sha256(bytes.fromhex(h)).hexdigest() in hexes:
            assert settled, f"the seed {h} of a commitment shown before settlement"
    if not settled:
        for obj in _objects(value):
            for key in ("seed", "seeds"):
                assert not obj.get(key), (key, obj)


def _objects(value: Any) -> list[JSON]:
    if isinstance(value, dict):
        return [value, *(o for v in value.values() for o in _objects(v))]
    if isinstance(value, list):
        return [o for v in value for o in _objects(v)]
    return []


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [*value, *(s for v in value.values() for s in _strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def check_feed(events: list[JSON], first: int = 1) -> None:
    """Versions first, first+1, ... with no gap or repeat."""
    versions = [e["version"] for e in events]
    assert versions == list(range(first, first + len(versions))), versions


def check_event_privacy(events: list[JSON], own_seat: int, audits: dict[int, JSON]) -> None:
    """What a player's feed may name of the cards: their own, in their own `looked` event,
    and the shown hands in a `showdown`; nothing else, ever (not another's card, not one
    still in the deck). A score only beside the cards it comes from (and, when the feed
    starts with `table_created`, equal to their score under the table's options). No deal's
    seed before its hand's `hand_settled`, even inside another string.

    `audits` maps hand number → its audit (the full record of the cards each seat got).
    """
    settings = next((e["data"]["settings"] for e in events if e["type"] == "table_created"), None)
    hand = deal = 0
    settled: set[int] = set()
    for e in events:
        t, data = e["type"], e["data"]
        if t == "hand_started":
            hand, deal = data.get("number", hand + 1), 1
        elif t == "svara_deal_started":
            deal = data["deal"]
        elif t == "hand_settled":
            settled.add(data.get("number", hand))
        dealt: dict[str, list[str]] = {}
        if hand in audits:
            dealt = {d["deal"]: d["cards"] for d in audits[hand]["deals"]}.get(deal, {})
        named = cards_in(data)
        if t == "looked" and named:
            assert data["seat"] == own_seat, e
            if dealt:
                assert data["cards"] == dealt[str(own_seat)], (e, dealt)
        elif t == "showdown":
            shown = {c for h in data["hands"].values() for c in h["cards"]}
            assert named == shown, e
            for seat, h in data["hands"].items():
                if dealt:
                    assert h["cards"] == dealt[str(seat)], (e, dealt)
        else:
            assert not named, (e, named)
        check_derived(data, settings)
        if t in ("hand_started", "svara_deal_started"):
            assert "seed" not in data, e
        if t != "hand_settled":
            text = json.dumps(data).lower()
            for n, audit in audits.items():
                if n not in settled:
                    for d in audit["deals"]:
                        assert d["seed"].lower() not in text, (e, n, d["deal"])


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


def seat_of(view: JSON, user_id: int) -> JSON | None:
    return next((s for s in view["seats"] if s["user_id"] == user_id), None)


def legal(view: JSON) -> dict[str, JSON]:
    return {a["type"]: a for a in view["you"]["legal"]}
