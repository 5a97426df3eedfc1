"""The player's own seed for the deck, in the browser against the real
`svara serve`: made on this device on first use and kept there, sent to a table when the
player sits down, shown in the settings and changed there -- by hand (refused with a
localized message unless it is 1-64 of A-Z a-z 0-9 _ -) or as a new random one -- and then
sent to every table the player sits at; a table the change could not reach gets it when the
player next opens it. Screenshots of the settings in English (light and dark), Russian and
Arabic at 390x844; the phone layout rules at 390x844 and 360x740."""

from __future__ import annotations

import json
import re
from pathlib import Path

import aiohttp
import pytest
from playwright.async_api import Route

from tests.support.browser import Contexts, check_layout, snap
from tests.support.http_player import HttpPlayer
from tests.support.serve import Server
from tests.support.waiting import eventually
from tests.webapp.catalogs import catalog
from tests.webapp.languages import check_language
from tests.webapp.player import Player
from tests.webapp.tables import new_user_id, sit_down

pytestmark = pytest.mark.asyncio(loop_scope="session")

SEED_KEY = "svara:clientSeed"
SMALL_TEXT_JS = """() => [...document.querySelectorAll('.settings *')]
  .filter((el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
  .filter((el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; })
  .map((el) => ({text: el.textContent.slice(0, 30), px: parseFloat(getComputedStyle(el).fontSize)}))
  .filter((t) => t.px < 14)"""


async def stored_seed(player: Player) -> str | None:
    found = await player.page.evaluate(f"localStorage[{json.dumps(SEED_KEY)}] ?? null")
    return found if isinstance(found, str) else None


async def seed_at(api: HttpPlayer, table: str) -> str | None:
    found = (await api.view(table))["you"]["client_seed"]
    return found if isinstance(found, str) else None


async def seeds_at(api: HttpPlayer, tables: list[str]) -> list[str | None]:
    return [await seed_at(api, t) for t in tables]


async def seeds_are(api: HttpPlayer, tables: list[str], want: list[str]) -> bool:
    return await seeds_at(api, tables) == want


async def open_settings(player: Player) -> None:
    await player.page.click("#settings-link")
    await player.page.wait_for_selector("#seed #client-seed")


async def test_a_seed_per_device_reaches_the_table_and_changes_in_the_settings(
    server: Server, browser: Contexts, shots: Path
) -> None:
    ana = await Player.open(browser, server.url, "Ana Seed")
    page = ana.page
    async with aiohttp.ClientSession() as http:
        api = await HttpPlayer.login(http, server.url, ana.user_id, "Ana Seed")
        bob = await HttpPlayer.login(http, server.url, new_user_id(), "Bob Seed")
        # Two tables (each with someone else seated, so no hand starts with Ana alone).
        tables = []
        for _ in range(2):
            table = await bob.create(ante=10, max_seats=3, turn_seconds=60)
            await bob.seat(table, 500)
            tables.append(table)
        # Made on first use: 16 random bytes, hex; sitting down sends it to the table.
        await sit_down(ana, server.url, tables[0])
        first = await stored_seed(ana)
        assert first is not None and re.fullmatch(r"[0-9a-f]{32}", first), first
        await page.wait_for_function(
            "(seed) => window.svara?.current?.view?.you?.client_seed === seed", arg=first)
        assert await seed_at(api, tables[0]) == first
        await sit_down(ana, server.url, tables[1])
        await page.wait_for_function(
            "(seed) => window.svara?.current?.view?.you?.client_seed === seed", arg=first)
        assert await stored_seed(ana) == first  # one seed per device, not per table

        # The settings show it, with what it does.
        await open_settings(ana)
        assert await page.input_value("#client-seed") == first
        assert await page.inner_text("#seed-hint") == catalog("en")["settings.seed_hint"]
        assert await page.is_hidden("#seed-error")
        await check_layout(page, bar=False)
        assert await page.evaluate(SMALL_TEXT_JS) == []
        await snap(page, shots, "settings-seed")

        # Refused by hand: nothing changes, the reason in words.
        for bad in ("my seed", "", "ключ", "x" * 65):
            await page.fill("#client-seed", bad)
            await page.click("[data-action=save-seed]")
            await page.wait_for_selector("#seed-error", state="visible")
            assert await page.inner_text("#seed-error") == catalog("en")["settings.seed_invalid"]
            assert await page.get_attribute("#client-seed", "aria-invalid") is not None
            assert await stored_seed(ana) == first
        assert await seed_at(api, tables[0]) == first

        # Changed by hand: kept here and sent to both tables.
        await page.fill("#client-seed", "my-own_Seed42")
        assert await page.is_hidden("#seed-error")  # a valid value clears the complaint
        await page.click("[data-action=save-seed]")
        await page.wait_for_selector("#toast.info")
        assert await page.inner_text("#toast") == catalog("en")["settings.seed_saved"]
        assert await stored_seed(ana) == "my-own_Seed42"
        await eventually(lambda: seeds_are(api, tables, ["my-own_Seed42"] * 2), 10, every=0.1)

        # A new random one: the same way.
        await page.click("[data-action=new-seed]")
        await page.wait_for_function(
            "(old) => document.querySelector('#client-seed').value !== old", arg="my-own_Seed42")
        made = await stored_seed(ana)
        assert made is not None and re.fullmatch(r"[0-9a-f]{32}", made) and made != first
        assert await page.input_value("#client-seed") == made
        await eventually(lambda: seeds_are(api, tables, [made] * 2), 10, every=0.1)

        # A change that cannot reach a table: it says so, and the table gets it when opened.
        async def refuse(route: Route) -> None:
            await route.abort("internetdisconnected")

        await page.route(f"**/api/tables/{tables[1]}/seed", refuse)
        await page.fill("#client-seed", "later-Seed")
        await page.click("[data-action=save-seed]")
        await page.wait_for_function(
            "(text) => document.querySelector('#toast').textContent === text",
            arg=catalog("en")["settings.seed_saved_later"])
        await page.unroute(f"**/api/tables/{tables[1]}/seed")
        assert [await seed_at(api, t) for t in tables] == ["later-Seed", made]
        await page.goto(f"{server.url}/?table={tables[1]}")
        await page.wait_for_function(
            "() => window.svara?.current?.view?.you?.client_seed === 'later-Seed'")
        assert await seed_at(api, tables[1]) == "later-Seed"
        # ... and once it has, a seed set elsewhere (another device) is left alone here
        await api.ok("POST", f"/api/tables/{tables[1]}/seed", {"client_seed": "other-device"})
        sent: list[str] = []
        page.on("request", lambda r: sent.append(r.url) if r.url.endswith("/seed") else None)
        await page.reload()
        await page.wait_for_function(
            "() => window.svara?.current?.view?.you?.client_seed === 'other-device'")
        await page.wait_for_selector(".felt .seat.me")
        assert sent == [] and await seed_at(api, tables[1]) == "other-device"

        # At 360x740, and in Russian and Arabic (right to left; the seed itself left to right).
        await page.set_viewport_size({"width": 360, "height": 740})
        await page.goto(f"{server.url}/?screen=settings")
        await page.wait_for_selector("#seed #client-seed")
        await check_layout(page, bar=False)
        await page.set_viewport_size({"width": 390, "height": 844})
        for lang in ("ru", "ar"):
            await page.evaluate("(lang) => window.svara.chooseLanguage(lang)", lang)
            await page.wait_for_function(
                "(lang) => document.documentElement.lang === lang", arg=lang)
            await page.wait_for_selector("#seed #client-seed")
            assert await page.inner_text("#seed h2") == catalog(lang)["settings.seed"]
            await page.fill("#client-seed", "no spaces")
            await page.click("[data-action=save-seed]")
            assert await page.inner_text("#seed-error") == catalog(lang)["settings.seed_invalid"]
            assert await page.evaluate(
                "getComputedStyle(document.querySelector('#client-seed')).direction") == "ltr"
            await page.fill("#client-seed", "later-Seed")  # (clears the complaint)
            # (the language picker names each language in its own script: the seed's section)
            check_language(lang, await page.inner_text("#seed"), "settings")
            await check_layout(page, bar=False)
            await snap(page, shots, f"settings-seed-{lang}")
        await page.evaluate("window.svara.chooseLanguage('en')")
        assert not ana.errors, ana.errors
