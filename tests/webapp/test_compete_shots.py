"""The competition screens in Russian and Arabic (right to left), Telegram's light and dark
themes, at 390x844: the Tournaments tab and its create form (the ante by minutes chosen), a
finished tournament (standings, prizes, audit), one filling whose ante rises by minutes, a
profile and the leaders. Each is laid out for a phone (no sideways scrolling, tap targets
and names big enough) and photographed (`SVARA_SHOTS` keeps the pictures)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
import pytest
from playwright.async_api import Page

from tests.support.browser import Contexts, check_layout
from tests.support.http_player import HttpPlayer
from tests.support.serve import Server
from tests.support.telegram import snap_as_is
from tests.webapp.tables import drive, new_user_id, play_on
from tests.webapp.tourneys import create, play_out, register, telegram_person, tournament

pytestmark = pytest.mark.asyncio(loop_scope="session")
SCENE: dict[str, Any] = {}  # built once for the four runs: the same tournaments and players


async def scene(server: Server) -> dict[str, Any]:
    if SCENE:
        return SCENE
    async with aiohttp.ClientSession() as http:
        ids = [new_user_id() for _ in range(3)]
        me, a, b = [await HttpPlayer.login(http, server.url, u, n)
                    for u, n in zip(ids, ("Мария Ж.", "Ahmed", "Boris"), strict=True)]
        table = await me.create(ante=10, max_seats=2, next_hand_seconds=60, turn_seconds=60)
        for p in (me, a):
            await p.seat(table, 200)
        await drive(table, [me, a], play_on(folder=a.user_id),
                    until=lambda v: bool(v["hand"]) and v["hand"]["phase"] == "settled")
        done = await create(a, name="Friday Sit & Go")
        for p in (a, b):
            await register(p, done)
        await play_out([a, b], done, loser=b.user_id)
        filling = await create(b, seats=6, buy_in=50, name="Weekend 6-max",
                               hands_per_level=None, minutes_per_level=10)
        await register(b, filling)
        await register(me, filling)
        running = await create(b, name="Heads-up")
        await register(b, running)
        await register(me, running)
        seat_at = (await tournament(me, running))["table_id"]
        SCENE.update(me=me.user_id, done=done, filling=filling, table=seat_at)
    return SCENE


async def laid_out(page: Page, lang: str) -> None:
    assert await page.evaluate("document.documentElement.dir") == ("rtl" if lang == "ar" else "ltr")
    await check_layout(page, bar=False)


@pytest.mark.parametrize("lang", ["ru", "ar"])
@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
async def test_competition_screens(server: Server, browser: Contexts, shots: Path, lang: str,
                                   dark: bool) -> None:
    s = await scene(server)
    theme = "dark" if dark else "light"
    page, _ = await telegram_person(browser, server.url, "?screen=tournaments", name="Мария Ж.",
                                    language=lang, dark=dark, user_id=s["me"])
    await page.wait_for_selector("#t-finished .standing")
    await laid_out(page, lang)
    await snap_as_is(page, shots, f"tournaments-{lang}-{theme}")
    await page.click("[data-action=create-open]")
    await page.select_option(".t-create select[name=schedule]", "minutes")
    await page.locator(".t-create select[name=schedule]").scroll_into_view_if_needed()
    await laid_out(page, lang)
    await snap_as_is(page, shots, f"tournament-create-{lang}-{theme}")
    await page.click(f".t-row[data-tournament='{s['done']}'] [data-action=details]")
    await page.wait_for_selector("#t-audit[data-verified=true]")
    await laid_out(page, lang)
    await snap_as_is(page, shots, f"tournament-{lang}-{theme}")
    await page.click("#profile-link")
    await page.wait_for_selector("#profile-stats")
    await laid_out(page, lang)
    await snap_as_is(page, shots, f"profile-{lang}-{theme}")
    await page.click("[data-action=leaders]")
    await page.wait_for_selector(".leader.you")
    await laid_out(page, lang)
    await snap_as_is(page, shots, f"leaders-{lang}-{theme}")
    await page.click(".tabs [data-tab=tables]")
    await page.wait_for_selector(".lobby .wallet")
    await laid_out(page, lang)
    await snap_as_is(page, shots, f"lobby-{lang}-{theme}")
    await page.goto(f"{server.url}/?table={s['table']}" + page.url[page.url.index("#"):])
    await page.wait_for_selector("#t-strip")
    await page.wait_for_selector(".felt .seat.me")
    await snap_as_is(page, shots, f"tourney-table-{lang}-{theme}")
    await page.goto(f"{server.url}/?screen=tournament&id={s['filling']}"
                    + page.url[page.url.index("#"):])
    await page.wait_for_selector(".t-schedule")
    await laid_out(page, lang)
    await snap_as_is(page, shots, f"tournament-by-minutes-{lang}-{theme}")
    assert page.errors == []  # type: ignore[attr-defined]
