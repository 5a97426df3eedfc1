"""The Tournaments tab and a tournament's screen, inside Telegram with its own script:
registering and unregistering move the seat count and the wallet, a refusal says why in the
player's language and changes nothing, a full tournament starts and its table opens (to
play, and to watch), a finished one shows its standings and its audit, and the create form
shows the server's refusal of its settings, then creates one whose ante rises by minutes
("Ante rises every 10 minutes")."""

from __future__ import annotations

import re

import aiohttp
import pytest

from tests.support.browser import Contexts
from tests.support.http_player import HttpPlayer
from tests.support.serve import DEV_TOKEN, Server
from tests.support.telegram import open_in_telegram, receive, sign, wait_sent
from tests.webapp.tables import new_user_id
from tests.webapp.tourneys import create, play_out, register, telegram_person, tournament

pytestmark = pytest.mark.asyncio(loop_scope="session")


def row(tid: str) -> str:
    return f".t-row[data-tournament='{tid}']"


async def test_register_then_unregister_moves_the_count_and_the_chips(
    server: Server, browser: Contexts
) -> None:
    async with aiohttp.ClientSession() as http:
        maker = await HttpPlayer.login(http, server.url, new_user_id(), "Maker")
        tid = await create(maker, seats=3, name="Count me")
        page, uid = await telegram_person(browser, server.url, "?screen=tournaments", name="Reg")
        me = await HttpPlayer.login(http, server.url, uid, "Reg")
        before = (await me.me())["balance"]
        await page.wait_for_selector(f"{row(tid)} .t-seats[data-registered='0']")
        assert "0/3" in await page.inner_text(f"{row(tid)} .t-seats")
        await page.click(f"{row(tid)} [data-action=register]")
        await page.wait_for_selector(f"{row(tid)} .t-seats[data-registered='1']")
        await page.wait_for_selector(f"{row(tid)} [data-action=unregister]")
        assert (await me.me())["balance"] == before - 100
        assert [p["user_id"] for p in (await tournament(me, tid))["players"]] == [uid]
        await page.click(f"{row(tid)} [data-action=unregister]")
        await page.wait_for_selector(f"{row(tid)} .t-seats[data-registered='0']")
        await page.wait_for_selector(f"{row(tid)} [data-action=register]")
        assert (await me.me())["balance"] == before
        assert page.errors == []  # type: ignore[attr-defined]


async def test_too_few_chips_says_so_in_russian_and_reserves_nothing(
    server: Server, browser: Contexts
) -> None:
    async with aiohttp.ClientSession() as http:
        maker = await HttpPlayer.login(http, server.url, new_user_id(), "Maker")
        tid = await create(maker, seats=3, buy_in=5000, name="Dear")
        page, uid = await telegram_person(browser, server.url, "?screen=tournaments", name="Poor",
                                          language="ru")
        me = await HttpPlayer.login(http, server.url, uid, "Poor")
        before = await me.me()
        await page.click(f"{row(tid)} [data-action=register]")
        toast = page.locator("#toast")
        await toast.wait_for()
        text = await toast.inner_text()
        assert "Не хватает фишек" in text and "Ничего не списано" in text, text
        await page.wait_for_selector(f"{row(tid)} [data-action=register]:not([disabled])")
        after = await me.me()
        assert after["balance"] == before["balance"]
        assert after["tables"] == before["tables"]  # no pool opened in the wallet
        assert (await tournament(me, tid))["players"] == []
        assert "0/3" in await page.inner_text(f"{row(tid)} .t-seats")


async def test_the_last_seat_starts_it_the_player_opens_it_and_a_spectator_watches(
    server: Server, browser: Contexts
) -> None:
    async with aiohttp.ClientSession() as http:
        other = await HttpPlayer.login(http, server.url, new_user_id(), "Other")
        tid = await create(other, name="Full house")
        await register(other, tid)
        page, _ = await telegram_person(browser, server.url,
                                        f"?screen=tournament&id={tid}", name="Last")
        await page.click("[data-action=register]")
        # the last seat starts it: the screen offers the player's own table
        await page.wait_for_selector(".t-status[data-status=running]")
        await page.click("[data-action=open]")
        await page.wait_for_selector("#t-strip")
        assert "1" in await page.inner_text("#t-strip .t-level")
        await page.wait_for_selector(".felt .seat.me")
        leave = page.locator(".tools [data-action=leave]")
        assert await leave.inner_text() == "Forfeit"
        await leave.click()  # a forfeit asks twice, even between hands
        assert await leave.inner_text() == "Forfeit the tournament?"
        assert await page.locator("#rebuy").count() == 0

        watcher, _ = await telegram_person(browser, server.url, "?screen=tournaments",
                                           name="Watcher")
        await watcher.click(f"#t-running {row(tid)} [data-action=watch]")
        await watcher.wait_for_selector("#t-strip")
        await watcher.wait_for_selector("#t-note[data-why=watching]")
        assert await watcher.locator(".action-bar [data-action=seat]").count() == 0
        assert await watcher.locator(".felt .seat").count() == 2
        assert watcher.errors == [] and page.errors == []  # type: ignore[attr-defined]


async def test_finished_shows_standings_prizes_and_the_audit(
    server: Server, browser: Contexts
) -> None:
    async with aiohttp.ClientSession() as http:
        a = await HttpPlayer.login(http, server.url, new_user_id(), "Winner")
        b = await HttpPlayer.login(http, server.url, new_user_id(), "Loser")
        tid = await create(a, name="Decided")
        for p in (a, b):
            await register(p, tid)
        done = await play_out([a, b], tid, loser=b.user_id)
        places = {p["user_id"]: (p["place"], p["prize"]) for p in done["players"]}
        assert places == {a.user_id: (1, 200), b.user_id: (2, 0)}
        page, _ = await telegram_person(browser, server.url, "?screen=tournaments", name="Fan")
        await page.wait_for_selector(f"#t-finished {row(tid)} .standing")
        await page.click(f"{row(tid)} [data-action=details]")
        await page.wait_for_selector(".t-status[data-status=finished]")
        lines = await page.locator("#t-players .standing").all_inner_texts()
        assert len(lines) == 2
        assert "Winner" in lines[0] and "+200" in lines[0], lines
        assert "Loser" in lines[1], lines
        await page.wait_for_selector("#t-audit[data-verified=true]")
        assert await page.locator("#t-audit .checks li.ok").count() == 5  # levels too
        prizes = await page.locator("#t-prizes tr").all_inner_texts()
        assert len(prizes) == 1 and "100%" in prizes[0] and "200" in prizes[0], prizes


async def test_create_form_shows_the_servers_refusal_and_creates_nothing(
    server: Server, browser: Contexts
) -> None:
    page, uid = await telegram_person(browser, server.url, "?screen=tournaments", name="Host")
    async with aiohttp.ClientSession() as http:
        me = await HttpPlayer.login(http, server.url, uid, "Host")
        listed = len((await me.ok("GET", "/api/tournaments?limit=100"))["tournaments"])
        await page.click("[data-action=create-open]")
        await page.fill(".t-create input[name=stack]", "50")
        await page.fill(".t-create input[name=antes]", "10, 100")  # 100 > the stack
        await page.click("[data-action=create-tournament]")
        error = page.locator(".t-create .form-error")
        await error.wait_for()
        assert await error.inner_text() == "Every ante must be from 1 to the starting stack."
        await page.fill(".t-create input[name=seats]", "11")
        await page.fill(".t-create input[name=antes]", "10, 20")
        await page.click("[data-action=create-tournament]")
        await page.wait_for_function(
            "document.querySelector('.t-create .form-error').textContent.startsWith('Seats:')")
        assert "from 2 to 10" in await error.inner_text()
        assert len((await me.ok("GET", "/api/tournaments?limit=100"))["tournaments"]) == listed
        await page.fill(".t-create input[name=seats]", "3")
        await page.fill(".t-create input[name=name]", "Made here")
        await page.select_option(".t-create select[name=schedule]", "minutes")
        await page.fill(".t-create input[name=every]", "10")
        await page.click("[data-action=create-tournament]")
        await page.wait_for_selector(".t-status[data-status=registering]")
        assert "Made here" in await page.inner_text(".t-head h2")
        assert await page.inner_text(".t-head .t-schedule") == "Ante rises every 10 minutes"
        mine = [t for t in (await me.ok("GET", "/api/tournaments?limit=100"))["tournaments"]
                if t["name"] == "Made here"]
        made = await me.ok("GET", f"/api/tournaments/{mine[0]['tournament_id']}")
        assert (made["settings"]["minutes_per_level"], made["settings"]["hands_per_level"]) == (
            10, 0)


async def test_a_tournament_link_opens_its_screen_and_back_leads_to_the_lobby(
    server: Server, browser: Contexts
) -> None:
    async with aiohttp.ClientSession() as http:
        maker = await HttpPlayer.login(http, server.url, new_user_id(), "Maker")
        tid = await create(maker, seats=4, name="Linked")
    user = {"id": new_user_id(), "first_name": "Linkee", "language_code": "en"}
    init_data = await sign(DEV_TOKEN, user, start_param=f"tournament_{tid}")
    page = await open_in_telegram(browser, f"{server.url}/", init_data)
    await page.wait_for_selector(".t-status[data-status=registering]")
    assert "Linked" in await page.inner_text(".t-head h2")
    await wait_sent(page, "web_app_setup_back_button", {"is_visible": True})
    await receive(page, "back_button_pressed")  # Telegram's own back button
    await page.wait_for_selector(".tabs [data-tab=tables][aria-selected=true]")


async def test_a_filling_tournament_shows_the_prizes_it_will_pay(
    server: Server, browser: Contexts
) -> None:
    """Six seats, one taken: the screen shows the 65/35 the server will pay (not 100% for
    the one entry so far) of every seat's buy-in, as its note says (606: 394 and 212, the
    odd chip to the winner), not of the buy-ins taken so far."""
    async with aiohttp.ClientSession() as http:
        maker = await HttpPlayer.login(http, server.url, new_user_id(), "Maker")
        tid = await create(maker, seats=6, buy_in=101, name="Six")
        await register(maker, tid)
        assert (await tournament(maker, tid))["pool"] == 101
        page, _ = await telegram_person(browser, server.url, f"?screen=tournament&id={tid}",
                                        name="Looker")
        await page.wait_for_selector("#t-prizes tr")
        cells = await page.locator("#t-prizes td").all_inner_texts()
        assert [re.sub(r"\D", "", c) for c in cells] == ["65", "394", "35", "212"], cells
        assert page.errors == []  # type: ignore[attr-defined]
