"""The web app as Telegram opens it, with Telegram's own telegram-web-app.js (see
tests/support/telegram.py): initData signed by Telegram's library in the URL fragment, the table
from its start_param, Telegram's theme, safe areas, back button, haptics and closing
confirmation through the events the script exchanges with Telegram; and with telegram.org
unreachable (offline: the game must still start from the fragment alone).
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import aiohttp
import pytest
from playwright.async_api import Route

from tests.support.browser import Contexts
from tests.support.http_player import HttpPlayer
from tests.support.serve import DEV_TOKEN, Server
from tests.support.telegram import (
    DARK,
    LIGHT,
    open_in_telegram,
    receive,
    sent,
    sign,
    snap_as_is,
    wait_sent,
)
from tests.webapp.tables import new_user_id

# The browser (a session fixture) lives in the session's event loop.
pytestmark = pytest.mark.asyncio(loop_scope="session")


async def new_table(server: Server, init_data: str) -> str:
    async with aiohttp.ClientSession() as http, http.post(
        f"{server.url}/api/tables", json={"ante": 5, "max_seats": 3},
        headers={"Authorization": f"tma {init_data}"},
    ) as resp:
        assert resp.status == 201, await resp.text()
        return str((await resp.json())["table_id"])


async def test_offline_telegram_script_falls_back_to_the_fragment(
    server: Server, browser: Contexts
) -> None:
    init_data = await sign(DEV_TOKEN, {"id": new_user_id(), "first_name": "Frag"})
    table_id = await new_table(server, init_data)
    context = await browser.new_context(viewport={"width": 390, "height": 844})
    page = await context.new_page()
    page.set_default_timeout(10_000)
    asked: list[str] = []

    async def unreachable(route: Route) -> None:
        asked.append(route.request.url)
        await route.abort("internetdisconnected")

    await page.route("https://telegram.org/**", unreachable)
    fragment = f"#tgWebAppData={quote(init_data, safe='')}&tgWebAppVersion=8.0"
    await page.goto(f"{server.url}/?table={table_id}{fragment}")
    await page.wait_for_selector(".action-bar [data-action=seat]")  # watched: no login form
    assert asked, "inside Telegram the page tries Telegram's script"
    assert await page.locator("input[name=name]").count() == 0
    await page.click(".action-bar [data-action=seat]")
    await page.wait_for_selector(".felt .seat.me >> text=Frag")


async def test_start_param_opens_the_table_and_telegrams_back_button_leads_out(
    server: Server, browser: Contexts
) -> None:
    user = {"id": new_user_id(), "first_name": "Tg"}
    table_id = await new_table(server, await sign(DEV_TOKEN, user))
    # Telegram puts the start_param inside the signed initData; no ?table= in the URL.
    init_data = await sign(DEV_TOKEN, user, start_param=f"table_{table_id}")
    page = await open_in_telegram(browser, f"{server.url}/", init_data)
    await page.wait_for_function(f"window.svara.current?.tableId === '{table_id}'"
                                 " && document.body.dataset.screen === 'table'")
    await wait_sent(page, "web_app_setup_back_button", {"is_visible": True})
    kinds = [e["type"] for e in await sent(page)]
    assert kinds.index("web_app_ready") < kinds.index("web_app_expand")
    assert await page.evaluate("document.documentElement.classList.contains('telegram')")
    # Telegram's own back button leads to the lobby and hides itself there.
    await receive(page, "back_button_pressed")
    await page.wait_for_selector("#balance")
    backs = await sent(page, "web_app_setup_back_button")
    assert backs[-1]["data"] == {"is_visible": False}
    assert await page.inner_text(".wallet-who .name") == "Tg"
    assert not page.errors  # type: ignore[attr-defined]


async def test_telegram_theme_safe_areas_closing_confirmation_and_haptics(
    server: Server, browser: Contexts, shots: Path
) -> None:
    async with aiohttp.ClientSession() as http:
        boris = await HttpPlayer.login(http, server.url, new_user_id(), "Boris")
        table = await boris.create(ante=10, max_seats=2, turn_seconds=60)
        await boris.seat(table, 500)
        init_data = await sign(DEV_TOKEN, {"id": new_user_id(), "first_name": "Tess"})
        # Telegram answers the script's requests: its dark theme, the notch and its own
        # buttons (safe areas), and a visible area 700 px high.
        page = await open_in_telegram(
            browser, f"{server.url}/?table={table}", init_data, theme=DARK, height=700,
            safe_area={"top": 44, "bottom": 34, "left": 0, "right": 0},
            content_safe_area={"top": 46, "bottom": 0, "left": 0, "right": 0})
        await page.wait_for_selector(".action-bar [data-action=seat]")
        await page.wait_for_function("Telegram.WebApp.viewportStableHeight === 700"
                                     " && Telegram.WebApp.contentSafeAreaInset.top === 46")
        looks = await page.evaluate("""() => ({
          theme: document.documentElement.dataset.theme,
          bg: getComputedStyle(document.documentElement).backgroundColor,
          button: getComputedStyle(document.querySelector('.action-bar [data-action=seat]'))
            .backgroundColor,
          barPad: parseFloat(getComputedStyle(document.querySelector('.action-bar')).paddingBottom),
          headPad: parseFloat(getComputedStyle(document.querySelector('.bar')).paddingTop),
          minHeight: getComputedStyle(document.body).minHeight })""")
        assert looks["theme"] == "dark"
        assert looks["bg"] == "rgb(35, 46, 60)" and looks["button"] == "rgb(82, 136, 193)"
        assert looks["barPad"] >= 34 and looks["headPad"] >= 44 + 46
        assert looks["minHeight"] == "700px"
        await wait_sent(page, "web_app_setup_swipe_behavior", {"allow_vertical_swipe": False})
        await page.click(".action-bar [data-action=seat]")
        await page.wait_for_selector(".felt .seat.me")
        # Seated in a hand: closing asks first. Tess acts first (Boris deals): a haptic says so.
        await wait_sent(page, "web_app_setup_closing_behavior", {"need_confirmation": True})
        await wait_sent(page, "web_app_trigger_haptic_feedback",
                        {"type": "impact", "impact_style": "medium"})
        await snap_as_is(page, shots, "telegram-dark")

        # A refusal buzzes as an error.
        async def refuse(route: Route) -> None:
            body = {"error": {"code": "not_your_turn", "message": "not your turn"}}
            await route.fulfill(status=403, content_type="application/json",
                                body=json.dumps(body))

        await page.route(f"{server.url}/api/tables/{table}/actions", refuse)
        await page.click(".action-bar [data-action=pass]")
        await wait_sent(page, "web_app_trigger_haptic_feedback",
                        {"type": "notification", "notification_type": "error"})
        await page.unroute(f"{server.url}/api/tables/{table}/actions")
        # Telegram switches to its light theme: the page follows.
        await receive(page, "theme_changed", {"theme_params": LIGHT})
        await page.wait_for_function("document.documentElement.dataset.theme === 'light'")
        assert await page.evaluate(
            "getComputedStyle(document.documentElement).backgroundColor") == "rgb(239, 239, 244)"
        # Leaving the table: no more question on closing.
        await page.click(".tools [data-action=leave]")
        await page.click(".tools [data-action=leave]")  # mid-hand: the second tap folds
        await page.wait_for_selector(".action-bar [data-action=seat]")
        await wait_sent(page, "web_app_setup_closing_behavior", {"need_confirmation": False})
        closing = await sent(page, "web_app_setup_closing_behavior")
        assert closing[-1]["data"] == {"need_confirmation": False}
        assert not page.errors  # type: ignore[attr-defined]


async def test_back_from_the_background_the_lobby_is_current_again(
    server: Server, browser: Contexts
) -> None:
    """Telegram hides the Mini App and shows it again (`visibility_changed`: the script's
    "deactivated" and "activated"): the lobby asks the server at once, not at its next tick."""
    init_data = await sign(DEV_TOKEN, {"id": new_user_id(), "first_name": "Vera"})
    page = await open_in_telegram(browser, f"{server.url}/", init_data)
    await page.wait_for_selector("#balance")
    await receive(page, "visibility_changed", {"is_visible": False})
    assert await page.evaluate("Telegram.WebApp.isActive") is False
    async with page.expect_request(lambda r: r.url.endswith("/api/me"), timeout=3_000):
        await receive(page, "visibility_changed", {"is_visible": True})
    assert await page.evaluate("Telegram.WebApp.isActive") is True
