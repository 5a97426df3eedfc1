"""A hand's tools inside Telegram (Telegram's own script, tests/support/telegram.py) against a
server whose bot talks to the fake Bot API (tests/webapp/bot_server.py): Share sends the
prepared message the server stored (`web_app_send_prepared_message` with its id), an older
client gets Telegram's share-a-link sheet; the export and the transcript are saved by
Telegram (`web_app_request_file_download`) from links that really download as attachments;
and My hands: newest first across two tables (one closed), paged, a row opening its hand.
Screenshots of My hands and of a hand's controls, ru and ar, light and dark.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest
import pytest_asyncio
from playwright.async_api import Page

from tests.support.browser import Contexts
from tests.support.fake_bot_api import FakeBotAPI
from tests.support.http_player import JSON, HttpPlayer
from tests.support.serve import Server
from tests.support.telegram import DARK, LIGHT, launch, sent, sign, snap_as_is, telegram_page
from tests.webapp.bot_server import (
    APP,
    BOT,
    PUBLIC_URL,
    TOKEN,
    local,
    serving_with_bot,
    telegram_player,
)
from tests.webapp.tables import play_hands

# The browser (a session fixture) lives in the session's event loop.
pytestmark = pytest.mark.asyncio(loop_scope="session")


class Setting:
    """The module's server and fake Bot API, and two tables Ana and Boris played at: the
    first closed since (both left; IDLE_CLOSE_SECONDS=1 closes it), the second open."""

    def __init__(self, server: Server, api: FakeBotAPI, ana: HttpPlayer) -> None:
        self.server = server
        self.api = api
        self.ana = ana
        self.closed = ""
        self.table = ""


@pytest_asyncio.fixture(loop_scope="session", scope="module")
async def setting(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Setting]:
    log = tmp_path_factory.mktemp("bot-serve") / "serve.log"
    async with serving_with_bot(log, IDLE_CLOSE_SECONDS="1") as (server, api), \
            aiohttp.ClientSession() as http:
        s = Setting(server, api, await telegram_player(http, server, "Ana"))
        boris = await telegram_player(http, server, "Boris")
        s.closed = await s.ana.create(ante=5, max_seats=2, next_hand_seconds=0)
        s.table = await s.ana.create(ante=10, max_seats=2, next_hand_seconds=0)
        for table, hands in ((s.closed, 1), (s.table, 2)):
            await s.ana.seat(table, 200)
            await boris.seat(table, 200)
            await play_hands(table, [s.ana, boris], hands)
        for player in (s.ana, boris):  # the next hand was dealt: leaving folds it
            await player.ok("POST", f"/api/tables/{s.closed}/leave")
        for _ in range(400):  # nobody sits there now: it closes within a second or two
            if (await s.ana.view(s.closed))["phase"] == "closed":
                break
            await asyncio.sleep(0.05)
        assert (await s.ana.view(s.closed))["phase"] == "closed"
        yield s


async def ana_in_telegram(browser: Contexts, s: Setting, query: str, *, lang: str = "en",
                          version: str = "8.0", theme: dict[str, str] | None = None) -> Page:
    init_data = await sign(TOKEN, {"id": s.ana.user_id, "first_name": "Ana",
                                   "language_code": lang})
    page = await telegram_page(browser, theme=theme)
    await launch(page, f"{s.server.url}/{query}", init_data, version=version)
    return page


async def all_my_hands(s: Setting) -> list[JSON]:
    return list((await s.ana.ok("GET", "/api/me/hands?limit=100"))["hands"])


async def test_share_sends_the_prepared_message_the_server_stored(
    setting: Setting, browser: Contexts
) -> None:
    s = setting
    page = await ana_in_telegram(browser, s, f"?table={s.table}&screen=audit&hand=2")
    await page.wait_for_selector("#audit[data-verified=true]")
    await page.click("#share")
    await page.wait_for_function(
        "telegramEvents.some((e) => e.type === 'web_app_send_prepared_message')")
    [call] = s.api.calls_of("savePreparedInlineMessage")
    assert int(call.params["user_id"]) == s.ana.user_id
    [[button]] = call.params["result"]["reply_markup"]["inline_keyboard"]
    assert button["url"] == f"https://t.me/{BOT}/{APP}?startapp=hand_{s.table}_2"
    [shared] = await sent(page, "web_app_send_prepared_message")
    assert shared["data"] == {"id": call.result["id"]}
    assert not page.errors  # type: ignore[attr-defined]


async def test_the_replayer_shares_its_hand_through_telegram(
    setting: Setting, browser: Contexts
) -> None:
    s = setting
    page = await ana_in_telegram(browser, s, f"?hand={s.table}_2")  # a hand's own link
    await page.wait_for_selector("#replay #steps li")
    before = len(s.api.calls_of("savePreparedInlineMessage"))
    await page.click("#replay [data-action=share]")
    await page.wait_for_function(
        "telegramEvents.some((e) => e.type === 'web_app_send_prepared_message')")
    calls = s.api.calls_of("savePreparedInlineMessage")
    assert len(calls) == before + 1
    [[button]] = calls[-1].params["result"]["reply_markup"]["inline_keyboard"]
    assert button["url"] == f"https://t.me/{BOT}/{APP}?startapp=hand_{s.table}_2"
    [shared] = await sent(page, "web_app_send_prepared_message")
    assert shared["data"] == {"id": calls[-1].result["id"]}
    assert not page.errors  # type: ignore[attr-defined]


async def test_an_older_telegram_gets_the_share_a_link_sheet(
    setting: Setting, browser: Contexts
) -> None:
    s = setting
    page = await ana_in_telegram(browser, s, f"?table={s.table}&screen=audit&hand=1",
                                 version="7.10")
    await page.wait_for_selector("#audit[data-verified=true]")
    before = len(s.api.calls_of("savePreparedInlineMessage"))
    await page.click("#share")
    await page.wait_for_function("telegramEvents.some((e) => e.type === 'web_app_open_tg_link')")
    [opened] = await sent(page, "web_app_open_tg_link")
    link = urlsplit("https://t.me" + opened["data"]["path_full"])
    assert link.path == "/share/url"
    assert parse_qs(link.query)["url"] == [f"https://t.me/{BOT}/{APP}?startapp=hand_{s.table}_1"]
    assert not await sent(page, "web_app_send_prepared_message")
    assert len(s.api.calls_of("savePreparedInlineMessage")) == before + 1
    assert not page.errors  # type: ignore[attr-defined]


async def test_telegram_saves_the_export_and_the_transcript_from_links_that_download(
    setting: Setting, browser: Contexts
) -> None:
    s = setting
    page = await ana_in_telegram(browser, s, f"?table={s.table}&screen=audit&hand=1", lang="ru")
    await page.wait_for_selector("#audit[data-verified=true]")
    files = {}
    for button, kind, ext in (("#download", "export", "json"),
                              ("#download-transcript", "transcript", "txt")):
        await page.click(button)
        await page.wait_for_function(
            "(n) => telegramEvents.filter((e) => e.type === 'web_app_request_file_download')"
            ".length === n", arg=len(files) + 1)
        # Telegram answers when the person chose (here: to save): the next one may open.
        await page.evaluate("Telegram.WebView.receiveEvent('file_download_requested',"
                            " {status: 'downloading'})")
        asked = (await sent(page, "web_app_request_file_download"))[-1]["data"]
        name = f"svara-{s.table}-hand-1.{ext}"
        assert asked["file_name"] == name
        url = urlsplit(asked["url"])
        assert f"{url.scheme}://{url.netloc}" == PUBLIC_URL
        assert url.path == f"/api/tables/{s.table}/hands/1/{kind}"
        assert list(parse_qs(url.query)) == ["download"]
        async with aiohttp.ClientSession() as http, \
                http.get(local(s.server, asked["url"])) as resp:  # no Authorization header
            assert resp.status == 200
            assert resp.headers["Content-Disposition"] == f'attachment; filename="{name}"'
            files[kind] = await resp.text()
    direct = {}
    async with aiohttp.ClientSession(headers={"Authorization": f"tma {s.ana.init_data}"}) as http:
        for kind, query in (("export", ""), ("transcript", "?lang=ru")):
            url = f"{s.server.url}/api/tables/{s.table}/hands/1/{kind}{query}"
            async with http.get(url) as resp:
                direct[kind] = await resp.text()
    # the hand's file (its events as stored; the export's own time is the moment it is asked)
    assert json.loads(files["export"])["events"] == json.loads(direct["export"])["events"]
    assert files["transcript"] == direct["transcript"]  # hers, in her language
    assert not page.errors  # type: ignore[attr-defined]


async def test_my_hands_newest_first_across_tables_closed_too_paged_and_opening_a_hand(
    setting: Setting, browser: Contexts
) -> None:
    s = setting
    expected = await all_my_hands(s)
    tables = {h["table_id"] for h in expected}
    assert tables == {s.closed, s.table} and len(expected) >= 4
    times = [h["settled_at"] for h in expected]
    assert times == sorted(times, reverse=True)
    context_script = "window.svaraMyHandsPage = 2"
    init_data = await sign(TOKEN, {"id": s.ana.user_id, "first_name": "Ana"})
    page = await telegram_page(browser)
    await page.context.add_init_script(context_script)
    await launch(page, f"{s.server.url}/", init_data)
    await page.click("#my-hands-link")  # from the lobby
    await page.wait_for_selector("#my-hands .hand-row")
    rows = page.locator("#my-hands .hand-row")
    assert await rows.count() == 2
    while await page.locator("#myhands-more").count():
        shown = await rows.count()
        await page.click("#myhands-more")
        await page.wait_for_function(
            "(n) => document.querySelectorAll('#my-hands .hand-row').length > n", arg=shown)
    listed = await page.evaluate("""[...document.querySelectorAll('#my-hands .hand-row')]
      .map((r) => [r.dataset.table, Number(r.dataset.hand), r.dataset.result,
                   r.querySelector('.hand-table').textContent,
                   r.querySelector(".hand-about").textContent])""")
    assert [(t, n, r) for t, n, r, _, _ in listed] == [
        (h["table_id"], h["hand"], h["result"]) for h in expected]
    names = {t: (name, sub) for t, _, _, name, sub in listed}
    assert names[s.closed] == ("A table", "Ante 5 · closed")  # nobody sits there: no host
    assert names[s.table] == ("Ana's table", "Ante 10")
    # a row opens its hand in the replayer (app.routes.hand)
    last = expected[-1]
    await page.click(f"#my-hands .hand-row[data-table='{last['table_id']}']"
                     f"[data-hand='{last['hand']}'] .hand-open")
    await page.wait_for_function(
        "([t, n]) => document.body.dataset.screen === 'replay' && svara.current.tableId === t"
        " && svara.current.hand === n", arg=[last["table_id"], last["hand"]])
    assert not page.errors  # type: ignore[attr-defined]


async def test_my_hands_is_empty_for_someone_who_never_played(
    setting: Setting, browser: Contexts
) -> None:
    s = setting
    async with aiohttp.ClientSession() as http:
        newcomer = await telegram_player(http, s.server, "Nova")
    page = await telegram_page(browser)
    await launch(page, f"{s.server.url}/?screen=myhands", newcomer.init_data)
    empty = await page.wait_for_selector("#myhands-empty")
    assert await empty.text_content() == (
        "You have not finished a hand yet. Sit down at a table and play one.")


@pytest.mark.parametrize("lang", ["ru", "ar"])
async def test_screenshots_of_my_hands_and_a_hands_controls(
    setting: Setting, browser: Contexts, shots: Path, lang: str
) -> None:
    s = setting
    for theme, scheme in ((LIGHT, "light"), (DARK, "dark")):
        page = await ana_in_telegram(browser, s, "", lang=lang, theme=theme)
        await page.wait_for_selector("#my-hands-link")
        await snap_as_is(page, shots, f"lobby-{lang}-{scheme}")
        await page.click("#my-hands-link")
        await page.wait_for_selector("#my-hands .hand-row")
        assert await page.evaluate("document.documentElement.lang") == lang
        assert await page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        await snap_as_is(page, shots, f"myhands-{lang}-{scheme}")
        await page.context.close()
        page = await ana_in_telegram(browser, s, f"?table={s.table}&screen=audit&hand=2",
                                     lang=lang, theme=theme)
        await page.wait_for_selector("#audit[data-verified=true]")
        await page.locator("#share").scroll_into_view_if_needed()
        await snap_as_is(page, shots, f"hand-tools-{lang}-{scheme}")
        small = await page.evaluate("""[...document.querySelectorAll('.hand-tools button')]
          .filter((b) => b.getBoundingClientRect().height < 44).length""")
        assert small == 0
        assert not page.errors  # type: ignore[attr-defined]

