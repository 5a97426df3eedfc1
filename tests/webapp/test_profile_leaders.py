"""A player's profile and the leaders, inside Telegram with its own script, against the real
stats endpoints: tapping a seat opens that player's profile (all time and the last 7 days),
and the leaders show your own rank, this week and all time, a row opening its profile."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import pytest

from tests.support.browser import Contexts
from tests.support.http_player import JSON, HttpPlayer
from tests.support.serve import Server
from tests.webapp.tables import drive, new_user_id, play_on
from tests.webapp.tourneys import telegram_person

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def one_hand(a: HttpPlayer, b: HttpPlayer, *, loser: HttpPlayer) -> str:
    """`a` and `b` sit down and play a hand `loser` folds; until both are counted."""
    table = await a.create(ante=10, max_seats=2, next_hand_seconds=60, turn_seconds=60)
    for p in (a, b):
        await p.seat(table, 200)
    await drive(table, [a, b], play_on(folder=loser.user_id),
                until=lambda v: bool(v["hand"]) and v["hand"]["phase"] == "settled")
    for p in (a, b):
        await counted(p, p.user_id)
    return table


async def counted(asker: HttpPlayer, user_id: int, within: float = 20) -> JSON:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        status, stats = await asker.call("GET", f"/api/players/{user_id}/stats")
        if status == 200 and stats["all"]["hands"] >= 1:
            return dict(stats)
        await asyncio.sleep(0.1)
    raise AssertionError(f"player {user_id}'s hand was not counted")


async def test_tapping_a_seat_opens_that_players_profile(server: Server, browser: Contexts) -> None:
    async with aiohttp.ClientSession() as http:
        ana = await HttpPlayer.login(http, server.url, new_user_id(), "Ana Stats")
        boris = await HttpPlayer.login(http, server.url, new_user_id(), "Boris Stats")
        table = await one_hand(ana, boris, loser=boris)
        stats = await counted(ana, ana.user_id)
        page, _ = await telegram_person(browser, server.url, f"?table={table}", name="Fan")
        seat = next(s["seat"] for s in (await ana.view(table))["seats"]
                    if s["user_id"] == ana.user_id)
        await page.click(f".felt .seat[data-seat='{seat}']")
        await page.wait_for_selector(f".profile-head[data-user='{ana.user_id}']")
        assert await page.inner_text(".profile-name") == "Ana Stats"
        cell = "#profile-stats tr[data-stat={}] td[data-period={}]"
        assert await page.inner_text("#profile-stats thead th:nth-child(3)") == "Last 7 days"
        assert stats["week"] == stats["last_7_days"]  # the API's deprecated alias
        for period in ("all", "last_7_days"):
            figures = stats[period]
            assert await page.inner_text(cell.format("hands", period)) == str(figures["hands"])
            assert await page.inner_text(cell.format("won", period)) == f"{figures['won']:g}"
        rate = round(100 * stats["all"]["won"] / stats["all"]["hands"])
        assert await page.inner_text(cell.format("win_rate", "all")) == f"{rate}%"
        assert await page.locator(".profile-head .badge.mine").count() == 0  # not yours
        await page.click("#back")
        await page.wait_for_selector(".felt .seat")
        assert page.errors == []  # type: ignore[attr-defined]


async def test_leaders_show_your_own_rank_and_a_row_opens_the_profile(
    server: Server, browser: Contexts
) -> None:
    uid = new_user_id()
    async with aiohttp.ClientSession() as http:
        me = await HttpPlayer.login(http, server.url, uid, "Lea Top")
        other = await HttpPlayer.login(http, server.url, new_user_id(), "Other Low")
        await one_hand(me, other, loser=other)
        page, _ = await telegram_person(browser, server.url, "", name="Lea Top", user_id=uid)
        await page.click(".tabs [data-tab=leaders]")
        for period in ("week", "all"):
            if period == "all":
                await page.click(".period [data-period=all]")
                await page.wait_for_function("location.search.includes('period=all')")
            board = await me.ok("GET", f"/api/leaderboard?period={period}")
            assert board["you"] is not None, board
            mine = page.locator(f".leader.you[data-user='{uid}']")
            await mine.first.wait_for()
            assert await mine.first.get_attribute("data-rank") == str(board["you"]["rank"])
            assert await page.locator(".leader.you").count() == 1
            assert await page.locator(".period button[aria-checked=true]").get_attribute(
                "data-period") == period
        first = board["entries"][0]
        await page.click(f"#leaders-list .leader[data-user='{first['user_id']}'] button")
        await page.wait_for_selector(f".profile-head[data-user='{first['user_id']}']")
        await page.click("#back")
        await page.wait_for_selector("#leaders-list")
        # the header opens your own profile
        await page.click("#profile-link")
        await page.wait_for_selector(f".profile-head[data-user='{uid}'] .badge.mine")
        # a chat's board you have not played in: empty, and you are told you are not on it
        await page.goto(page.url.replace(page.url[page.url.index("?"):page.url.index("#")],
                                         "?screen=leaders&group=-100777"))
        await page.wait_for_selector("#leaders-empty")
        assert await page.inner_text("#leaders-you") == "You are not on the board yet: play a hand."
        assert await page.inner_text(".leaders h2") == "Leaders of this chat"
        assert page.errors == []  # type: ignore[attr-defined]
