"""What the audit says the device kept: a page that watched a hand without being dealt in (it
sat down mid-hand) keeps that hand's hashes too, and the audit says it saw them while
watching -- not that it kept them while playing, which the page of a player dealt in says."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest

from tests.support.browser import Contexts, snap
from tests.support.http_player import HttpPlayer
from tests.support.serve import Server
from tests.webapp.catalogs import catalog
from tests.webapp.player import Player
from tests.webapp.tables import drive, new_user_id, phase, play_on, sit_down

pytestmark = pytest.mark.asyncio(loop_scope="session")

PINS = "#audit .checks li[data-check=pins]"


async def test_a_hand_watched_is_kept_while_watching_and_one_played_while_playing(
    server: Server, browser: Contexts, shots: Path
) -> None:
    dora = await Player.open(browser, server.url, "Dora Watching")
    page = dora.page
    async with aiohttp.ClientSession() as http:
        boris = await HttpPlayer.login(http, server.url, new_user_id(), "Boris")
        cleo = await HttpPlayer.login(http, server.url, new_user_id(), "Cleo")
        table = await boris.create(ante=10, max_seats=3, next_hand_seconds=4, turn_seconds=60)
        await boris.seat(table, 500)
        await cleo.seat(table, 500)
        assert phase(await boris.view(table)) != "settled"
        # Dora sits down while hand 1 is under way: seated, not dealt in
        await sit_down(dora, server.url, table)
        await page.wait_for_function("document.body.dataset.connection === 'live'")
        await drive(table, [boris, cleo], play_on(folder=cleo.user_id),
                    until=lambda v: phase(v) == "settled")
        await page.goto(f"{server.url}/?table={table}&screen=audit&hand=1")
        pins = page.locator(PINS)
        await pins.wait_for()
        assert await pins.get_attribute("data-ok") == "true"
        assert await pins.get_attribute("data-kept-as") == "watching"
        text = await pins.inner_text()
        assert str(catalog("en")["audit.check.pins_watching"]) in text, text
        assert str(catalog("en")["audit.check.pins"]) not in text, text
        await snap(page, shots, "audit-watching")
        for lang in ("ru", "ar"):
            await page.evaluate("(lang) => window.svara.chooseLanguage(lang)", lang)
            await page.wait_for_function(
                "([sel, text]) => document.querySelector(sel)?.innerText.includes(text)",
                arg=[PINS, catalog(lang)["audit.check.pins_watching"]])
            await snap(page, shots, f"audit-watching-{lang}")
        await page.evaluate("window.svara.chooseLanguage('en')")
        # Hand 2 deals Dora in (her page at the table meanwhile): its audit is the playing one
        await page.goto(f"{server.url}/?table={table}")
        await page.wait_for_function("document.body.dataset.connection === 'live'")
        me = await HttpPlayer.login(http, server.url, dora.user_id, "Dora Watching")
        settled = await drive(table, [boris, cleo, me], play_on(folder=cleo.user_id),
                              until=lambda v: v["hand"]["number"] == 2 and phase(v) == "settled")
        assert dora.user_id in {s["user_id"] for s in settled["seats"]}
        await page.wait_for_selector("#result[data-hand='2']")
        await page.goto(f"{server.url}/?table={table}&screen=audit&hand=2")
        await pins.wait_for()
        assert await pins.get_attribute("data-kept-as") == "playing"
        text = await pins.inner_text()
        assert str(catalog("en")["audit.check.pins"]) in text, text
