"""The feel of a card game: chips fly to the pot and cards are dealt (briefly, a tap skips,
none at all for a player who asked for reduced motion), a few sounds with a mute switch, and
the deck's commitment behind the felt's info button."""

from __future__ import annotations

import aiohttp
import pytest

from tests.support.browser import Contexts
from tests.support.http_player import HttpPlayer
from tests.support.serve import Server
from tests.webapp.player import Player
from tests.webapp.tables import new_user_id, sit_down

# The browser (a session fixture) lives in the session's event loop.
pytestmark = pytest.mark.asyncio(loop_scope="session")

WATCH_FX = """() => { window.flown = 0;
  new MutationObserver((changes) => { for (const c of changes) flown += c.addedNodes.length; })
    .observe(document.querySelector('.fx'), {childList: true}); }"""


async def table_with_boris(http: aiohttp.ClientSession, server: Server, ana: Player) -> tuple[
        str, HttpPlayer]:
    boris = await HttpPlayer.login(http, server.url, new_user_id(), "Boris")
    table = await boris.create(ante=10, max_seats=2, turn_seconds=60)
    await boris.seat(table, 500)
    await sit_down(ana, server.url, table)
    return table, boris


async def test_chips_fly_sounds_play_and_the_mute_switch_silences_them(
    server: Server, browser: Contexts
) -> None:
    ana = await Player.open(browser, server.url, "Ana Feel")
    page = ana.page
    async with aiohttp.ClientSession() as http:
        me = await HttpPlayer.login(http, server.url, ana.user_id, "Ana Feel")
        table, boris = await table_with_boris(http, server, ana)
        await page.evaluate(WATCH_FX)
        # the deal was seen live: the cards come in from the middle, with a sound
        assert "deal" in await page.evaluate("window.svaraSounds")
        await me.act(table, "blind", 10)  # Ana bets blind (over the API): a chip flies
        await page.wait_for_function("window.flown > 0")
        await page.wait_for_function("window.svaraSounds.includes('chip')")
        await page.wait_for_function("!document.querySelector('.fx .fly-chip')", timeout=2_000)
        # The info button: the deck's commitment, published before the deal.
        await page.click(".felt [data-action=info]")
        sheet = await page.wait_for_selector("#info")
        commitment = (await me.view(table))["hand"]["commitment"]
        assert commitment in await sheet.inner_text()
        await page.click("#info [data-action=close]")
        # Mute: no more sounds.
        await page.click("#settings-link")
        switch = page.locator("#sound input[name=sound]")
        assert await switch.is_checked()
        await page.click("#sound .switch-row")
        assert not await switch.is_checked()
        await page.click("#back")
        await page.wait_for_selector(".felt .seat.me")
        before = len(await page.evaluate("window.svaraSounds"))
        await boris.act(table, "blind", 20)  # would clink
        await page.wait_for_function("document.querySelector('.felt .seat:not(.me) .tag.blind')")
        assert len(await page.evaluate("window.svaraSounds")) == before
        await ana.look()


async def test_reduced_motion_means_no_animation(server: Server, browser: Contexts) -> None:
    ana = await Player.open(browser, server.url, "Ana Still", reduced_motion="reduce")
    page = ana.page
    async with aiohttp.ClientSession() as http:
        me = await HttpPlayer.login(http, server.url, ana.user_id, "Ana Still")
        table, _ = await table_with_boris(http, server, ana)
        await page.evaluate(WATCH_FX)
        names = await page.evaluate("""[...document.querySelectorAll('.felt .card')]
          .map((c) => getComputedStyle(c).animationName)""")
        assert names and set(names) == {"none"}
        await me.act(table, "blind", 10)
        await page.wait_for_function("document.querySelector('.felt .seat.me .tag.blind')")
        assert await page.evaluate("window.flown") == 0
