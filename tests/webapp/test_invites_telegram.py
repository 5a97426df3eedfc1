"""Invites and write access inside Telegram, with Telegram's own telegram-web-app.js (see
tests/support/telegram.py): the invite sheet hands the bot's prepared card to shareMessage
(the server's bot talks to the fake Bot API), an older client opens Telegram's share sheet
instead, a friend opens the private table from `startapp=table_<id>_<invite>` and sits down;
and requestWriteAccess is asked once, when the player sits down, never at load nor again."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp
import pytest
import pytest_asyncio
from playwright.async_api import Page

from tests.support.browser import Contexts
from tests.support.fake_bot_api import FakeBotAPI
from tests.support.http_player import HttpPlayer
from tests.support.serve import DEV_TOKEN, Server
from tests.support.telegram import (
    DARK,
    LIGHT,
    fragment,
    open_in_telegram,
    receive,
    sent,
    sign,
    snap_as_is,
    telegram_page,
    wait_sent,
)
from tests.webapp.bot_server import APP, BOT, TOKEN, serving_with_bot
from tests.webapp.catalogs import catalog
from tests.webapp.tables import new_user_id

pytestmark = pytest.mark.asyncio(loop_scope="session")

@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def with_bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[
        tuple[Server, FakeBotAPI]]:
    async with serving_with_bot(tmp_path_factory.mktemp("invites-bot") / "serve.log") as both:
        yield both


async def call(server: Server, init_data: str, method: str, path: str,
               body: Any = None) -> Any:
    async with aiohttp.ClientSession() as http, http.request(
            method, server.url + path, json=body,
            headers={"Authorization": f"tma {init_data}"}) as resp:
        assert resp.status < 300, await resp.text()
        return await resp.json()


async def invite_link(page: Page) -> str:
    await page.wait_for_function(
        "document.querySelector('#invite-link')?.textContent.startsWith('http')")
    return await page.inner_text("#invite-link")


async def test_share_hands_the_prepared_card_to_telegram_and_the_link_seats_a_friend(
    with_bot: tuple[Server, FakeBotAPI], browser: Contexts, shots: Path
) -> None:
    server, fake = with_bot
    host = await sign(TOKEN, {"id": new_user_id(), "first_name": "Hosta", "language_code": "ru"})
    made = await call(server, host, "POST", "/api/tables",
                      {"ante": 10, "private": True, "name": "Свои"})
    table, invite = made["table_id"], made["invite"]
    page = await open_in_telegram(browser, f"{server.url}/?table={table}", host)
    await page.click("[data-action=invite]")
    link = await invite_link(page)
    assert link == f"https://t.me/{BOT}/{APP}?startapp=table_{table}_{invite}"
    [prepared] = fake.calls_of("savePreparedInlineMessage")
    await page.click("#invite [data-action=share-invite]")
    await wait_sent(page, "web_app_send_prepared_message", {"id": prepared.result["id"]})
    await receive(page, "prepared_message_sent")
    assert await sent(page, "web_app_open_tg_link") == []
    assert not page.errors  # type: ignore[attr-defined]

    # A client older than Bot API 8.0 has no shareMessage: Telegram's share sheet instead.
    guest = await sign(TOKEN, {"id": new_user_id(), "first_name": "Gulnar",
                               "language_code": "ar"}, start_param=f"table_{table}_{invite}")
    old = await telegram_page(browser, theme=DARK)
    await old.goto(f"{server.url}/" + fragment(guest, theme=DARK, version="7.10"))
    await old.wait_for_selector(".action-bar [data-action=seat]")  # the link's table, watched
    await old.click(".action-bar [data-action=seat]")
    await old.wait_for_selector(".felt .seat.me")
    await old.click("[data-action=invite]")
    assert await invite_link(old) == link  # the friend's copy of the same invite
    await snap_as_is(old, shots, "invite-sheet-ar-dark")
    await old.click("#invite [data-action=share-invite]")
    await wait_sent(old, "web_app_open_tg_link")
    [opened] = await sent(old, "web_app_open_tg_link")
    assert opened["data"]["path_full"].startswith(f"/share/url?url={quote(link, safe='')}&text=")
    assert await sent(old, "web_app_send_prepared_message") == []
    assert not old.errors  # type: ignore[attr-defined]

    light = await open_in_telegram(browser, f"{server.url}/?table={table}", guest, theme=LIGHT)
    await light.click("[data-action=invite]")
    await invite_link(light)
    await snap_as_is(light, shots, "invite-sheet-ar-light")
    assert await light.inner_text("#invite h2") == catalog("ar")["invite.title"]


async def seated_and_asked(page: Page, answer: str | None = None) -> list[dict[str, Any]]:
    """Sit down from the bar; what the app asked Telegram for once it had decided (`answer`:
    the status Telegram answers the question with, when the app asks)."""
    await page.click(".action-bar [data-action=seat]")
    await page.wait_for_selector(".felt .seat.me")
    await page.wait_for_function("window.svara.asking !== undefined")
    if answer is not None:
        await wait_sent(page, "web_app_request_write_access")
        await receive(page, "write_access_requested", {"status": answer})
    # bounded: a question nobody answers would hold the promise forever (and shows in `sent`)
    await page.evaluate(
        "Promise.race([window.svara.asking, new Promise((r) => setTimeout(r, 8000))])")
    return await sent(page, "web_app_request_write_access")


async def test_write_access_is_asked_once_at_sit_down_and_a_grant_reaches_the_server(
    server: Server, browser: Contexts
) -> None:
    async with aiohttp.ClientSession() as http:
        other = await HttpPlayer.login(http, server.url, new_user_id(), "Other")
        tables = [await other.create(ante=5, max_seats=4) for _ in range(3)]
    user = {"id": new_user_id(), "first_name": "Wanda", "allows_write_to_pm": False}
    init_data = await sign(DEV_TOKEN, user)
    assert (await call(server, init_data, "GET", "/api/me"))["can_ping"] is False
    page = await open_in_telegram(browser, f"{server.url}/?table={tables[0]}", init_data)
    await page.wait_for_selector(".action-bar [data-action=seat]")
    assert await sent(page, "web_app_request_write_access") == []  # not at load
    assert len(await seated_and_asked(page, "allowed")) == 1  # at sit-down
    await page.wait_for_function("window.svara.me?.can_ping === true")
    assert (await call(server, init_data, "GET", "/api/me"))["can_ping"] is True
    await page.wait_for_selector(f"#toast >> text={catalog('en')['access.granted']}")

    # Opened again (a reload) and sitting down elsewhere: not asked again.
    await page.reload()
    await page.goto(f"{server.url}/?table={tables[1]}" + fragment(init_data, theme=LIGHT))
    await page.wait_for_selector(".action-bar [data-action=seat]")
    assert await seated_and_asked(page) == []
    # Another device (nothing remembered there): the server's can_ping says it already.
    fresh = await open_in_telegram(browser, f"{server.url}/?table={tables[2]}", init_data)
    await fresh.wait_for_selector(".action-bar [data-action=seat]")
    assert await seated_and_asked(fresh) == []
    assert not page.errors and not fresh.errors  # type: ignore[attr-defined]


async def test_a_refusal_is_remembered_on_the_device_and_a_signed_grant_is_never_asked(
    server: Server, browser: Contexts
) -> None:
    async with aiohttp.ClientSession() as http:
        other = await HttpPlayer.login(http, server.url, new_user_id(), "Other")
        tables = [await other.create(ante=5, max_seats=4) for _ in range(3)]
    no = await sign(DEV_TOKEN, {"id": new_user_id(), "first_name": "Nadia"})
    page = await open_in_telegram(browser, f"{server.url}/?table={tables[0]}", no)
    assert len(await seated_and_asked(page, "cancelled")) == 1
    await page.goto(f"{server.url}/?table={tables[1]}" + fragment(no, theme=LIGHT))
    await page.reload()
    await page.wait_for_selector(".action-bar [data-action=seat]")
    assert await seated_and_asked(page) == []  # declined once: not asked again here
    assert (await call(server, no, "GET", "/api/me"))["can_ping"] is False

    yes = await sign(DEV_TOKEN, {"id": new_user_id(), "first_name": "Yara",
                                 "allows_write_to_pm": True})
    signed = await open_in_telegram(browser, f"{server.url}/?table={tables[2]}", yes)
    assert await seated_and_asked(signed) == []  # Telegram's signed initData says so already
