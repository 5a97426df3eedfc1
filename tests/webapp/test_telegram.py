"""The web app as Telegram opens it: signed initData in the URL fragment, the table from a
start_param, Telegram's script present (faked here) or unreachable (offline: the game must
still start). The initData is signed by the dev-mode server, which checks it like Telegram's.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import aiohttp
import pytest
from playwright.async_api import Page, Route

from tests.webapp.api import ApiPlayer
from tests.webapp.browser import Contexts, snap
from tests.webapp.server import Server
from tests.webapp.tables import new_user_id

# The browser (a session fixture) lives in the session's event loop.
pytestmark = pytest.mark.asyncio(loop_scope="session")

FAKE_TELEGRAM_JS = """
window.telegramCalls = [];
window.Telegram = { WebApp: {
  initData: %(init_data)s,
  initDataUnsafe: { start_param: %(start_param)s, user: { id: 4242, first_name: "Tg" } },
  ready() { telegramCalls.push("ready"); },
  expand() { telegramCalls.push("expand"); },
  BackButton: {
    onClick(fn) { this.fn = fn; }, show() { telegramCalls.push("back:show"); },
    hide() { telegramCalls.push("back:hide"); },
  },
  HapticFeedback: { impactOccurred() {} },
} };
"""


async def signed_user(server: Server, user_id: int, name: str) -> str:
    async with aiohttp.ClientSession() as http, http.get(
        f"{server.url}/dev/init-data", params={"user_id": user_id, "name": name}
    ) as resp:
        data = await resp.json()
        return str(data["init_data"])


async def new_table(server: Server, init_data: str) -> str:
    async with aiohttp.ClientSession() as http, http.post(
        f"{server.url}/api/tables", json={"ante": 5, "max_seats": 3},
        headers={"Authorization": f"tma {init_data}"},
    ) as resp:
        assert resp.status == 201, await resp.text()
        return str((await resp.json())["table_id"])


async def new_page(browser: Contexts) -> Page:
    context = await browser.new_context(viewport={"width": 390, "height": 844})
    page = await context.new_page()
    page.set_default_timeout(10_000)
    return page


async def test_offline_telegram_script_falls_back_to_the_fragment(
    server: Server, browser: Contexts
) -> None:
    init_data = await signed_user(server, 4241, "Frag")
    table_id = await new_table(server, init_data)
    page = await new_page(browser)
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


async def test_telegram_web_app_object_start_param_and_back_button(
    server: Server, browser: Contexts
) -> None:
    init_data = await signed_user(server, 4242, "Tg")
    table_id = await new_table(server, init_data)
    page = await new_page(browser)
    script = FAKE_TELEGRAM_JS % {"init_data": json.dumps(init_data),
                                 "start_param": json.dumps(f"table_{table_id}")}

    async def fake_telegram(route: Route) -> None:
        await route.fulfill(status=200, content_type="text/javascript", body=script)

    await page.route("https://telegram.org/js/telegram-web-app.js", fake_telegram)
    # Telegram passes initData in the fragment too; no ?table= here: start_param decides.
    await page.goto(f"{server.url}/#tgWebAppData={quote(init_data, safe='')}")
    await page.wait_for_function(f"window.svara.current?.tableId === '{table_id}'"
                                 " && document.body.dataset.screen === 'table'")
    calls = await page.evaluate("window.telegramCalls")
    assert calls[:2] == ["ready", "expand"] and calls[-1] == "back:show"
    assert await page.evaluate("document.documentElement.classList.contains('telegram')")
    # Telegram's own back button leads to the lobby and hides itself there.
    await page.evaluate("Telegram.WebApp.BackButton.fn()")
    await page.wait_for_selector("#balance")
    assert (await page.evaluate("window.telegramCalls"))[-1] == "back:hide"
    assert await page.inner_text(".wallet-who .name") == "Tg"


THEMED_TELEGRAM_JS = """
window.telegramCalls = [];
window.telegramHandlers = {};
const record = (name) => telegramCalls.push(name);
window.Telegram = { WebApp: {
  initData: %(init_data)s,
  initDataUnsafe: { user: { id: %(user_id)s, first_name: "Tess" } },
  colorScheme: "dark",
  themeParams: { bg_color: "#17212b", secondary_bg_color: "#232e3c", text_color: "#f5f5f5",
                 hint_color: "#708499", button_color: "#5288c1", button_text_color: "#ffffff",
                 link_color: "#6ab3f3" },
  safeAreaInset: { top: 44, bottom: 34, left: 0, right: 0 },
  contentSafeAreaInset: { top: 46, bottom: 0, left: 0, right: 0 },
  viewportStableHeight: 700,
  ready() { record("ready"); }, expand() { record("expand"); },
  disableVerticalSwipes() { record("swipes:off"); },
  onEvent(name, fn) { telegramHandlers[name] = fn; },
  enableClosingConfirmation() { record("closing:on"); },
  disableClosingConfirmation() { record("closing:off"); },
  BackButton: { onClick(fn) { this.fn = fn; }, show() {}, hide() {} },
  HapticFeedback: {
    impactOccurred(style) { record("impact:" + style); },
    notificationOccurred(kind) { record("notification:" + kind); },
    selectionChanged() { record("selection"); },
  },
} };
"""


async def test_telegram_theme_safe_areas_closing_confirmation_and_haptics(
    server: Server, browser: Contexts, shots: Path
) -> None:
    init_data = await signed_user(server, 4243, "Tess")
    async with aiohttp.ClientSession() as http:
        boris = await ApiPlayer.login(http, server.url, new_user_id(), "Boris")
        table = await boris.create(ante=10, max_seats=2, turn_seconds=60)
        await boris.seat(table, 500)
        page = await new_page(browser)
        script = THEMED_TELEGRAM_JS % {"init_data": json.dumps(init_data), "user_id": 4243}

        async def fake_telegram(route: Route) -> None:
            await route.fulfill(status=200, content_type="text/javascript", body=script)

        await page.route("https://telegram.org/js/telegram-web-app.js", fake_telegram)
        await page.goto(f"{server.url}/?table={table}#tgWebAppData={quote(init_data, safe='')}")
        await page.wait_for_selector(".action-bar [data-action=seat]")
        # Telegram's colours and its dark scheme; its safe areas; its stable viewport height.
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
        await page.click(".action-bar [data-action=seat]")
        await page.wait_for_selector(".felt .seat.me")
        # Seated in a hand: closing asks first. Tess acts first (Boris deals): a haptic says so.
        await page.wait_for_function("telegramCalls.includes('closing:on')")
        await page.wait_for_function("telegramCalls.includes('impact:medium')")
        await snap(page, shots, "telegram-dark", dark=False)
        # A refusal buzzes as an error.
        async def refuse(route: Route) -> None:
            body = {"error": {"code": "not_your_turn", "message": "not your turn"}}
            await route.fulfill(status=403, content_type="application/json",
                                body=json.dumps(body))

        await page.route(f"{server.url}/api/tables/{table}/actions", refuse)
        await page.click(".action-bar [data-action=pass]")
        await page.wait_for_function("telegramCalls.includes('notification:error')")
        await page.unroute(f"{server.url}/api/tables/{table}/actions")
        # Telegram switches to its light theme: the page follows.
        await page.evaluate("""Telegram.WebApp.colorScheme = 'light';
          Telegram.WebApp.themeParams = {bg_color: '#ffffff', secondary_bg_color: '#f1f1f4',
            text_color: '#000000', button_color: '#2481cc', button_text_color: '#ffffff'};
          telegramHandlers.themeChanged()""")
        assert await page.evaluate("document.documentElement.dataset.theme") == "light"
        # Leaving the table: no more question on closing.
        await page.click(".tools [data-action=leave]")
        await page.click(".tools [data-action=leave]")  # mid-hand: the second tap folds
        await page.wait_for_selector(".action-bar [data-action=seat]")
        calls = await page.evaluate("window.telegramCalls")
        assert calls[-1] == "closing:off" or "closing:off" in calls[calls.index("closing:on"):]
