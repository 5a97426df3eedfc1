"""Telegram's half-open sheet: the Mini App's window keeps its full height, but only its top
`viewportStableHeight` pixels are on the screen. What the app pins to the bottom (the action
bar) must sit at the bottom of that visible area, and follow it as the sheet settles; while
the sheet is being dragged (a height that is not stable) it stays put.
"""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest
from playwright.async_api import Page

from tests.support.browser import Contexts
from tests.support.http_player import HttpPlayer
from tests.support.serve import DEV_TOKEN, Server
from tests.support.telegram import open_in_telegram, receive, sign, snap_as_is
from tests.webapp.tables import new_user_id

# The browser (a session fixture) lives in the session's event loop.
pytestmark = pytest.mark.asyncio(loop_scope="session")

BAR_JS = """() => { const r = document.querySelector('.action-bar').getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, height: innerHeight,
          stable: Telegram.WebApp.viewportStableHeight}; }"""


async def bar_bottom_at(page: Page, bottom: float) -> None:
    await page.wait_for_function(
        f"""Math.abs(document.querySelector('.action-bar').getBoundingClientRect().bottom
              - {bottom}) < 1""")


async def test_the_action_bar_stays_in_the_visible_part_of_a_half_open_sheet(
    server: Server, browser: Contexts, shots: Path
) -> None:
    async with aiohttp.ClientSession() as http:
        boris = await HttpPlayer.login(http, server.url, new_user_id(), "Boris")
        table = await boris.create(ante=10, max_seats=3, turn_seconds=60)
        await boris.seat(table, 500)
    init_data = await sign(DEV_TOKEN, {"id": new_user_id(), "first_name": "Sasha"})
    page = await open_in_telegram(browser, f"{server.url}/?table={table}", init_data)
    await page.wait_for_selector(".action-bar [data-action=seat]")
    await bar_bottom_at(page, 844)  # expanded: the whole window is visible
    # The player pulls the sheet down to half: 500 px of the 844 stay on the screen.
    await receive(page, "viewport_changed",
                  {"height": 500, "is_expanded": False, "is_state_stable": True})
    await bar_bottom_at(page, 500)
    bar = await page.evaluate(BAR_JS)
    assert bar["height"] == 844 and bar["stable"] == 500
    assert 0 <= bar["top"] < bar["bottom"] <= 500, bar
    # The page's end can still be scrolled up into the visible part, above the bar.
    await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    story = await page.evaluate("""() => document.querySelector('.bar-space')
      .getBoundingClientRect().top""")
    assert story <= bar["top"] + 1, story
    await page.evaluate("window.scrollTo(0, 0)")
    await snap_as_is(page, shots, "telegram-half-open-sheet")
    # Dragging (the height is not stable yet): the bar does not jump along.
    await receive(page, "viewport_changed",
                  {"height": 300, "is_expanded": False, "is_state_stable": False})
    await page.wait_for_function("Telegram.WebApp.viewportHeight === 300")
    assert (await page.evaluate(BAR_JS))["bottom"] == bar["bottom"]
    # Expanded again: back at the window's bottom.
    await receive(page, "viewport_changed",
                  {"height": 844, "is_expanded": True, "is_state_stable": True})
    await bar_bottom_at(page, 844)
    assert not page.errors  # type: ignore[attr-defined]
