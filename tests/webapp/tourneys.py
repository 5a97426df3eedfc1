"""Sit & Go tournaments for the browser tests: created and filled over the API, played to
the end by people driven over the API (one of them folding whenever it can), and the page's
own person opened inside Telegram (tests/support/telegram.py) in a language of its choosing."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from playwright.async_api import Page

from tests.support.browser import Contexts
from tests.support.http_player import JSON, HttpPlayer
from tests.support.serve import DEV_TOKEN
from tests.support.telegram import DARK, LIGHT, open_in_telegram, sign
from tests.webapp.tables import drive, new_user_id, play_on

# Short hands: a stack of two antes, so whoever folds every hand is out after two.
QUICK = {"seats": 2, "buy_in": 100, "stack": 20, "antes": [10], "hands_per_level": 50,
         "fill_seconds": 600, "turn_seconds": 30}


async def create(maker: HttpPlayer, **settings: Any) -> str:
    body = {**QUICK, **settings}
    return str((await maker.ok("POST", "/api/tournaments", body))["tournament_id"])


async def tournament(player: HttpPlayer, tid: str) -> JSON:
    return dict(await player.ok("GET", f"/api/tournaments/{tid}"))


async def register(player: HttpPlayer, tid: str) -> JSON:
    return dict(await player.ok("POST", f"/api/tournaments/{tid}/register"))


async def play_out(players: list[HttpPlayer], tid: str, *, loser: int, within: float = 60) -> JSON:
    """Play the (started) tournament until it is finished and paid; `loser` folds."""
    t = await tournament(players[0], tid)
    assert t["status"] == "running", t
    table = str(t["table_id"])
    await drive(table, players, play_on(folder=loser),
                # out of chips, and that hand over: a stack that paid all it had for the ante
                # is 0 while its hand is still being played
                until=lambda v: any(s["stack"] == 0 for s in v["seats"])
                and (v["hand"] is None or v["hand"]["phase"] == "settled"))
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        t = await tournament(players[0], tid)
        if t["status"] == "finished" and all(p["prize"] is not None for p in t["players"]):
            return t
        await asyncio.sleep(0.1)
    raise AssertionError(f"not finished: {t}")


async def telegram_person(browser: Contexts, base: str, query: str, *, name: str,
                          language: str = "en", dark: bool = False,
                          user_id: int | None = None) -> tuple[Page, int]:
    """The page's person, opening `query` (e.g. "?screen=tournaments") inside Telegram."""
    uid = user_id or new_user_id()
    user = {"id": uid, "first_name": name, "language_code": language}
    init_data = await sign(DEV_TOKEN, user)
    page = await open_in_telegram(browser, f"{base}/{query}", init_data,
                                  theme=DARK if dark else LIGHT)
    await page.wait_for_function("window.svara && window.svara.me")
    return page, uid
