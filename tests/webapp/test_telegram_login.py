"""Logging in as Telegram does, against a server with a real BOT_TOKEN (the bot itself off):
initData signed by Telegram's own library is accepted, one changed character or an expired
auth_date is refused; and a refused login in the web app is a screen of its own that stays,
in the player's language, whose one button closes the Mini App (so Telegram opens it afresh
with a new login) and after which nothing is sent again with the refused initData.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
from playwright.async_api import Page, Request

from tests.support.browser import Contexts
from tests.support.serve import APP_ENV, Server
from tests.support.telegram import DARK, launch, receive, sign, snap_as_is, telegram_page, wait_sent
from tests.webapp.catalogs import catalog
from tests.webapp.tables import new_user_id

# The browser (a session fixture) lives in the session's event loop.
pytestmark = pytest.mark.asyncio(loop_scope="session")

TOKEN = "7312204455:AAH-webapp-login-tests-not-a-real-bot"
DAY = 86400  # the server's default AUTH_MAX_AGE


@pytest.fixture(scope="module")
def bot_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`svara serve` as deployed: a BOT_TOKEN, so no dev mode (BOT_MODE off: no Telegram)."""
    srv = Server({**APP_ENV, "BOT_TOKEN": TOKEN, "BOT_MODE": "off"},
                 log=tmp_path_factory.mktemp("bot-serve") / "serve.log").spawn()
    try:
        srv.wait_ready()
        yield srv
    finally:
        srv.stop()


def changed_one_character(init_data: str) -> str:
    """The same initData with one character of the user's first name changed."""
    at = init_data.index("first_name%22%3A%22") + len("first_name%22%3A%22")
    swapped = "B" if init_data[at] != "B" else "C"
    return init_data[:at] + swapped + init_data[at + 1:]


async def me(http: aiohttp.ClientSession, server: Server, init_data: str) -> tuple[int, dict]:
    async with http.get(f"{server.url}/api/me",
                        headers={"Authorization": f"tma {init_data}"}) as resp:
        return resp.status, await resp.json()


async def test_initdata_signed_by_telegrams_library_is_accepted_and_a_changed_one_is_not(
    bot_server: Server,
) -> None:
    user_id = new_user_id()
    user = {"id": user_id, "first_name": "Ana", "last_name": "Lib", "language_code": "bg"}
    good = await sign(TOKEN, user, query_id="AAF-test-query", chat_type="private")
    async with aiohttp.ClientSession() as http:
        status, body = await me(http, bot_server, good)
        assert status == 200, body
        assert (body["user"]["id"], body["user"]["name"]) == (user_id, "Ana Lib")
        assert body["language"] == "bg"
        for bad in (changed_one_character(good), good[:-1] + ("0" if good[-1] != "0" else "1"),
                    await sign("7312204455:AAH-some-other-bot", user)):
            status, body = await me(http, bot_server, bad)
            assert (status, body["error"]["code"]) == (401, "invalid_init_data"), (bad, body)
        old = await sign(TOKEN, user, auth_date=int(time.time()) - DAY - 120)
        status, body = await me(http, bot_server, old)
        assert (status, body["error"]["code"]) == (401, "expired_init_data"), body
        # no dev-mode signing on a server with a bot
        async with http.get(f"{bot_server.url}/dev/init-data",
                            params={"user_id": "1"}) as resp:
            assert resp.status == 404


def api_log(page: Page, init_data: str) -> list[str]:
    """Every request of the page to /api/ that carries `init_data` (header or socket URL)."""
    carried: list[str] = []

    def seen(request: Request) -> None:
        if "/api/" in request.url and init_data in request.headers.get("authorization", ""):
            carried.append(request.url)

    page.on("request", seen)
    return carried


async def barrier(page: Page, server: Server) -> None:
    """Every request the page started before now has been seen: the page's requests reach
    the test in order, so once a request started after them has been answered they have."""
    async with page.expect_response(lambda r: r.url.endswith("/api/health?barrier")):
        await page.evaluate("(url) => fetch(url)", f"{server.url}/api/health?barrier")


@pytest.mark.parametrize(("lang", "why"), [("ru", "forged"), ("ar", "expired"),
                                           ("en", "forged"), ("de", "expired")])
async def test_a_refused_login_is_a_screen_that_stays_and_closes_the_app(
    bot_server: Server, browser: Contexts, shots: Path, lang: str, why: str
) -> None:
    user = {"id": new_user_id(), "first_name": "Mira", "language_code": lang}
    if why == "forged":
        init_data = changed_one_character(await sign(TOKEN, user))
    else:
        init_data = await sign(TOKEN, user, auth_date=int(time.time()) - 2 * DAY)
    words = catalog(lang)
    page = await telegram_page(browser)
    carried = api_log(page, init_data)
    await page.clock.install()  # to let a minute pass at once, later
    await launch(page, f"{bot_server.url}/", init_data)
    screen = page.locator("#refused")
    await screen.wait_for()
    text = await screen.inner_text()
    assert words["refused.title"] in text and words["refused.reopen"] in text
    assert words["refused.invalid" if why == "forged" else "refused.expired"] in text
    assert await page.evaluate("[document.documentElement.lang, document.documentElement.dir]") \
        == [lang, "rtl" if lang == "ar" else "ltr"]
    assert await page.evaluate("document.body.dataset.connection") == "refused"
    assert await page.get_attribute("#dot", "data-state") == "refused"
    assert await page.get_attribute("#dot", "aria-label") == words["net.refused"]
    assert await page.locator("#net").is_hidden()
    assert await page.locator("#settings-link").is_hidden()  # no settings without a login
    assert len(carried) == 1, carried  # the one /api/me that was refused
    if lang in ("ru", "ar"):
        await snap_as_is(page, shots, f"refused-{why}-{lang}-light")
    # A minute later (the lobby's timer would have asked seven times), back from the
    # background, after Telegram's back button: the same screen, and nothing sent again.
    await page.clock.run_for(60_000)
    await receive(page, "visibility_changed", {"is_visible": False})
    await receive(page, "visibility_changed", {"is_visible": True})
    await receive(page, "back_button_pressed")
    await receive(page, "theme_changed", {"theme_params": DARK})
    await page.wait_for_function("document.documentElement.dataset.theme === 'dark'")
    await barrier(page, bot_server)
    assert len(carried) == 1, carried
    assert await screen.is_visible() and await page.locator("#toast").is_hidden()
    assert await page.evaluate("document.body.dataset.screen") == "refused"
    if lang in ("ru", "ar"):
        await snap_as_is(page, shots, f"refused-{why}-{lang}-dark")
    # Its button closes the Mini App: Telegram opens it afresh, with a new login.
    button = screen.locator("[data-action=close]")
    assert await button.inner_text() == words["refused.close"]
    await button.click()
    await wait_sent(page, "web_app_close")
    assert not page.errors  # type: ignore[attr-defined]


async def test_a_login_that_expires_at_the_table_ends_on_the_refused_screen(
    bot_server: Server, browser: Contexts
) -> None:
    """The app stays open past the login's age (the socket is refused when it reconnects):
    the refused screen, not a table that keeps reconnecting."""
    async with aiohttp.ClientSession() as http:
        host = await sign(TOKEN, {"id": new_user_id(), "first_name": "Host"})
        async with http.post(f"{bot_server.url}/api/tables", json={"ante": 5, "max_seats": 3},
                             headers={"Authorization": f"tma {host}"}) as resp:
            assert resp.status == 201, await resp.text()
            table = (await resp.json())["table_id"]
        user = {"id": new_user_id(), "first_name": "Late", "language_code": "en"}
        # old enough to expire in about 10 s: time for a loaded machine to open the table first
        init_data = await sign(TOKEN, user, auth_date=int(time.time()) - DAY + 10)
        page = await telegram_page(browser)
        await launch(page, f"{bot_server.url}/?table={table}", init_data)
        await page.wait_for_selector(".action-bar [data-action=seat]")
        await page.wait_for_function("document.body.dataset.connection === 'live'")
        # Until the server refuses this initData (its age passes AUTH_MAX_AGE in a few s).
        async with asyncio.timeout(25):
            while (await me(http, bot_server, init_data))[0] != 401:  # noqa: ASYNC110 (the
                await asyncio.sleep(0.25)  # condition is the server's answer: polled)
        await page.context.set_offline(True)  # the socket goes, and comes back refused
        await page.wait_for_function("document.body.dataset.connection === 'offline'")
        await page.context.set_offline(False)
        await page.locator("#refused").wait_for()
        assert catalog("en")["refused.expired"] in await page.inner_text("#refused")
        assert await page.evaluate("document.body.dataset.connection") == "refused"
        assert not page.errors  # type: ignore[attr-defined]
