"""The web app as Telegram opens it: signed initData in the URL fragment, the table from a
start_param, Telegram's script present (faked here) or unreachable (offline: the game must
still start). The initData is signed by the dev-mode server, which checks it like Telegram's.
"""

from __future__ import annotations

import json
from urllib.parse import quote

import aiohttp
import pytest
from playwright.async_api import Page, Route

from tests.webapp.browser import Contexts
from tests.webapp.server import Server

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
    await page.wait_for_selector("[data-action=seat]")  # the table, watched: no login form
    assert asked, "inside Telegram the page tries Telegram's script"
    assert await page.locator("input[name=name]").count() == 0
    await page.click("[data-action=seat]")
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
    await page.wait_for_selector(f".table-head strong[title='{table_id}']")
    calls = await page.evaluate("window.telegramCalls")
    assert calls[:2] == ["ready", "expand"] and calls[-1] == "back:show"
    assert await page.evaluate("document.documentElement.classList.contains('telegram')")
    # Telegram's own back button leads to the lobby and hides itself there.
    await page.evaluate("Telegram.WebApp.BackButton.fn()")
    await page.wait_for_selector("#balance")
    assert (await page.evaluate("window.telegramCalls"))[-1] == "back:hide"
    assert await page.inner_text("#who") == "Tg"
