"""Every player in their own language: a Telegram user (initData in the URL fragment, as
Telegram passes it) whose client speaks ru, bg, tr, de, ar or en sees the lobby, the table and
the rules in that language, with `<html lang>` and `dir` set (Arabic right to left, the felt
still in the order of play and cards still left to right). No English UI word is left on those
screens in the five other languages; Cyrillic or Arabic script is where it should be."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import aiohttp
import pytest
from playwright.async_api import Page, Route

from tests.support.browser import Contexts, snap
from tests.support.http_player import HttpPlayer
from tests.support.serve import Server
from tests.webapp.catalogs import PLURALS, STATIC, catalog
from tests.webapp.languages import VISIBLE_TEXT_JS, check_language
from tests.webapp.tables import new_user_id

# The browser (a session fixture) lives in the session's event loop.
pytestmark = pytest.mark.asyncio(loop_scope="session")

CLIENTS = {"en": "en-US", "ru": "ru-RU", "bg": "bg", "tr": "tr-TR", "de": "de-DE", "ar": "ar"}

async def telegram_page(browser: Contexts, server: Server, init_data: str, path: str = "/",
                        dark: bool = False) -> Page:
    context = await browser.new_context(viewport={"width": 390, "height": 844},
                                        color_scheme="dark" if dark else "light")
    page = await context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    async def unreachable(route: Route) -> None:
        await route.abort("internetdisconnected")

    await page.route("https://telegram.org/**", unreachable)  # the fragment is enough
    fragment = f"#tgWebAppData={quote(init_data, safe='')}&tgWebAppVersion=8.0"
    await page.goto(f"{server.url}{path}{fragment}")
    page.errors = errors  # type: ignore[attr-defined]
    return page


@pytest.mark.parametrize("lang", list(CLIENTS))
async def test_a_telegram_user_plays_in_their_language(
    server: Server, browser: Contexts, shots: Path, lang: str
) -> None:
    async with aiohttp.ClientSession() as http:
        user_id = new_user_id()
        me = await HttpPlayer.login(http, server.url, user_id, "Mira", language=CLIENTS[lang])
        boris = await HttpPlayer.login(http, server.url, new_user_id(), "Boris")
        table = await boris.create(ante=10, max_seats=3, turn_seconds=60)
        await boris.seat(table, 500)
        assert (await me.me())["language"] == lang

        page = await telegram_page(browser, server, me.init_data)
        await page.wait_for_selector("#balance")
        root = await page.evaluate("[document.documentElement.lang, document.documentElement.dir]")
        assert root == [lang, "rtl" if lang == "ar" else "ltr"]
        assert await page.inner_text(".lobby h2") == catalog(lang)["lobby.tables"]
        check_language(lang, await page.evaluate(VISIBLE_TEXT_JS), "lobby")

        await page.goto(f"{server.url}/?table={table}#tgWebAppData={quote(me.init_data, safe='')}")
        await page.wait_for_selector(".action-bar [data-action=seat]")
        await page.click(".action-bar [data-action=seat]")
        await page.wait_for_selector(".action-bar button.act[data-action=look]")
        await page.click(".action-bar [data-action=look]")
        await page.wait_for_selector("#my-cards .card:not(.back)")
        check_language(lang, await page.evaluate(VISIBLE_TEXT_JS), "table")
        # Cards read left to right in every language; the felt keeps the order of play.
        shown = await page.evaluate("""() => [...document.querySelectorAll('#my-cards .card')]
          .map((c) => [c.dataset.card, c.getBoundingClientRect().left])""")
        mine = (await me.view(table))["you"]["cards"]
        assert [c for c, _ in sorted(shown, key=lambda x: x[1])] == mine
        seats = await page.evaluate("""() => [...document.querySelectorAll('.felt .seat')]
          .map((s) => [s.dataset.seat ?? 'free', s.style.left, s.style.top])""")
        mirrored = await page.evaluate("getComputedStyle(document.querySelector('.bar')).direction")
        assert mirrored == ("rtl" if lang == "ar" else "ltr")
        if lang in ("ru", "ar"):
            await snap(page, shots, f"table-{lang}")
        page.seats = seats  # type: ignore[attr-defined]

        await page.click("#rules-link")
        await page.wait_for_selector("#rules section")
        assert await page.get_attribute("#rules", "data-lang") == lang
        check_language(lang, await page.evaluate(VISIBLE_TEXT_JS), "rules")
        if lang in ("en", "ar"):
            await snap(page, shots, f"rules-{lang}")
        assert not page.errors  # type: ignore[attr-defined]


async def test_the_felt_keeps_the_order_of_play_right_to_left(
    server: Server, browser: Contexts
) -> None:
    """The same table, seen in English and in Arabic: every seat in the same place."""
    async with aiohttp.ClientSession() as http:
        boris = await HttpPlayer.login(http, server.url, new_user_id(), "Boris")
        table = await boris.create(ante=10, max_seats=4)
        await boris.seat(table, 500)
        places = []
        for lang in ("en", "ar"):
            me = await HttpPlayer.login(http, server.url, new_user_id(), "Watcher",
                                       language=lang)
            page = await telegram_page(browser, server, me.init_data, f"/?table={table}")
            await page.wait_for_selector(".felt .seat")
            assert await page.evaluate("document.documentElement.dir") == (
                "rtl" if lang == "ar" else "ltr")
            places.append(await page.evaluate("""() => [...document.querySelectorAll('.felt .seat')]
              .map((s) => [s.dataset.seat ?? 'free', s.style.left, s.style.top])"""))
        assert places[0] == places[1]


async def test_the_language_picker_is_remembered_on_the_server(
    server: Server, browser: Contexts
) -> None:
    async with aiohttp.ClientSession() as http:
        me = await HttpPlayer.login(http, server.url, new_user_id(), "Lena", language="ru")
        page = await telegram_page(browser, server, me.init_data, "/?screen=settings")
        await page.wait_for_selector("#language [data-lang=ru][aria-checked=true]")
        await page.click("#language [data-lang=de]")
        await page.wait_for_function("document.documentElement.lang === 'de'")
        assert await page.inner_text("#title") == catalog("de")["settings.title"]
        me_now = await me.me()
        assert me_now["language"] == "de" and me_now["settings"]["language"] == "de"
        await page.reload()
        await page.wait_for_selector("#language [data-lang=de][aria-checked=true]")
        await page.click("#language [data-lang=ar]")
        await page.wait_for_function("document.documentElement.dir === 'rtl'")


async def test_chromium_plural_categories_are_the_catalogs(browser: Contexts) -> None:
    """The catalog test's plural categories (CLDR) are the ones the browser picks from."""
    context = await browser.new_context()
    page = await context.new_page()
    got = await page.evaluate(
        """(langs) => Object.fromEntries(langs.map((l) =>
          [l, new Intl.PluralRules(l).resolvedOptions().pluralCategories.sort()]))""",
        list(PLURALS))
    assert got == {lang: sorted(cats) for lang, cats in PLURALS.items()}
    # and every catalog is valid JSON served as a static file
    for lang in PLURALS:
        json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
