"""Driving a table through the public API by following `legal`, with invariant checks."""

from __future__ import annotations

import asyncio
import random
import secrets
from typing import Any

from tests.support.http_player import PLAY_TYPES, HttpPlayer, check_view_privacy, choose
from tests.support.redis import RUN_MARK

JSON = dict[str, Any]
TOKEN = "4242:e2e-token"


def server_env(redis_url: str, *, namespace: str | None = None, **extra: str) -> dict[str, str]:
    """Signed test users (a known BOT_TOKEN, bot off) on the real Redis, in a fresh namespace
    (the shared Redis holds every run's tables; the timer driver scans only its namespace's).
    Servers meant to share tables must be given the same `namespace`."""
    return {"REDIS_URL": redis_url, "BOT_TOKEN": TOKEN, "BOT_MODE": "off",
            "RATE_LIMIT_PER_SECOND": "200", "RATE_LIMIT_BURST": "400",
            "SVARA_NAMESPACE": namespace or f"apitest-{RUN_MARK}{secrets.token_hex(6)}", **extra}


def user_ids(n: int) -> list[int]:
    """Fresh user ids (wallets live in the shared Redis, so never reuse one across runs)."""
    base = secrets.randbelow(10**12) + 10**12
    return [base + i for i in range(n)]


async def new_table(owner: HttpPlayer, players: list[HttpPlayer], *, buy_in: int = 200,
                    **settings: Any) -> str:
    status, body = await owner.call("POST", "/api/tables", {"ante": 10, **settings})
    assert status == 201, body
    table = str(body["table_id"])
    for p in players:
        view = await p.ok("POST", f"/api/tables/{table}/seat", {"buy_in": buy_in})
        assert view["you"]["seat"] is not None
    return table


def hands_done(view: JSON) -> int:
    hand = view["hand"]
    if hand is None:
        return 0
    return int(hand["number"]) - (0 if hand["phase"] == "settled" else 1)


def chips_on_table(view: JSON) -> int:
    pot = view["hand"]["pot"] if view["hand"] else 0
    return sum(int(s["stack"]) for s in view["seats"]) + int(pot)


async def step(players: list[HttpPlayer], table: str, rng: random.Random, total: int) -> JSON:
    """Read every view, check it, make one legal move (or probe one illegal one)."""
    views = await asyncio.gather(*(p.view(table) for p in players))
    for v in views:
        check_view_privacy(v)
        assert chips_on_table(v) == total, v
    for p, v in zip(players, views, strict=True):
        hand = v["hand"]
        if hand and hand["phase"] in ("blind", "betting") and rng.random() < 0.1:
            await probe_illegal(p, table, v, rng)
        move = choose(v, rng)
        if move is None:
            continue
        status, body = await p.act(table, *move, expected_version=v["version"])
        assert status == 200 or (status == 409 and body["error"]["code"] == "version_conflict"), \
            (move, status, body, v)
        return v
    await asyncio.sleep(0.05)
    return views[0]


async def probe_illegal(p: HttpPlayer, table: str, view: JSON, rng: random.Random) -> None:
    """`legal` is exact: an action it does not list is refused, and changes nothing."""
    legal = {a["type"]: a for a in view["you"]["legal"]}
    missing = [t for t in PLAY_TYPES if t not in legal]
    if "raise" in legal and "max" in legal["raise"]:
        status, body = await p.act(table, "raise", int(legal["raise"]["max"]) + 1)
        assert status == 422, body
    if missing:
        t = rng.choice(missing)
        status, body = await p.act(table, t, 10**6 if t in ("blind", "raise") else None)
        assert status in (403, 422), (t, status, body, view)
    assert (await p.view(table))["version"] == view["version"]


async def play(players: list[HttpPlayer], table: str, *, hands: int, seed: int,
               budget: float = 60.0) -> JSON:
    """Play by `legal` until `hands` hands are settled; fail fast, with the view, if stuck."""
    rng = random.Random(seed)
    total = chips_on_table(await players[0].view(table))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + budget
    last_change, last_version = loop.time(), -1
    while True:
        view = await step(players, table, rng, total)
        if hands_done(view) >= hands:
            return view
        if view["version"] != last_version:
            last_change, last_version = loop.time(), view["version"]
        assert loop.time() - last_change < 10, f"nothing happened for 10 s: {view}"
        assert loop.time() < deadline, f"{hands} hands not done in {budget} s: {view}"
