"""A phone whose clock is wrong still counts a turn down by the server's clock.

The page's `Date.now` is shifted by a few seconds or a minute either way (an init script,
before any of the app's code runs); the countdown it shows for a turn must be the server's
deadline (the view's) minus the true time, within a second: first as the live feed's events
correct it (`event.at`, js/table.js), then on a fresh load with no event yet, from the HTTP
`Date` header alone (js/api.js `clockAhead`).
"""

from __future__ import annotations

import json
from email.utils import formatdate
from typing import Any

import aiohttp
import pytest
from playwright.async_api import Route

from tests.support.browser import Contexts
from tests.support.http_player import HttpPlayer
from tests.support.serve import Server
from tests.webapp.player import Player
from tests.webapp.tables import new_user_id, sit_down

# The browser (a session fixture) lives in the session's event loop.
pytestmark = pytest.mark.asyncio(loop_scope="session")

SHIFT_JS = """{ const real = Date.now.bind(Date); window.trueNow = real;
  Date.now = () => real() + %d; }"""

# Every countdown on the page: what it shows, and what the true time says it should show,
# read in one evaluation (the page repaints its clocks every 250 ms).
CLOCKS_JS = """() => [...document.querySelectorAll('.clock')]
  .filter((el) => Number(el.dataset.deadline) > 0)
  .map((el) => ({deadline: Number(el.dataset.deadline), left: Number(el.dataset.left),
    text: el.textContent, truth: Number(el.dataset.deadline) - window.trueNow() / 1000,
    skew: window.svara.current.skew}))"""


async def countdowns(player: Player) -> list[dict[str, Any]]:
    await player.page.wait_for_function(
        "() => [...document.querySelectorAll('.clock')].some((el) =>"
        " Number(el.dataset.deadline) > 0 && el.dataset.left !== undefined)")
    found: list[dict[str, Any]] = await player.page.evaluate(CLOCKS_JS)
    return found


def assert_true_to_the_server(shown: list[dict[str, Any]], deadline: float) -> None:
    assert shown, "no countdown on the page"
    for clock in shown:
        assert clock["deadline"] == pytest.approx(deadline, abs=1e-3)  # the view's deadline
        # `left` is whole seconds rounded up (< 1 s), painted up to 250 ms ago, and the
        # correction taken from the Date header alone is good to half a second (the header
        # counts whole seconds): never 2 s off, as an uncorrected phone here is
        assert clock["truth"] - 0.5 <= clock["left"] <= clock["truth"] + 1.8, clock
        assert str(clock["left"]) in clock["text"], clock


@pytest.mark.parametrize("shift", [2_000, -2_000, 60_000, -60_000])
async def test_the_countdown_follows_the_server_whatever_the_phone_clock_says(
    server: Server, browser: Contexts, shift: int
) -> None:
    ana = await Player.open(browser, server.url, f"Ana Clock {shift}",
                            init_script=SHIFT_JS % shift)
    async with aiohttp.ClientSession() as http:
        me = await HttpPlayer.login(http, server.url, ana.user_id, f"Ana Clock {shift}")
        boris = await HttpPlayer.login(http, server.url, new_user_id(), "Boris")
        table = await boris.create(ante=10, max_seats=2, turn_seconds=60)
        await boris.seat(table, 500)
        await sit_down(ana, server.url, table)  # two seated: hand 1 is dealt, a turn runs
        view = await me.view(table)
        assert view["hand"]["deadline"], view["hand"]
        live = await countdowns(ana)
        assert live[0]["skew"] is not None  # the feed's events have set the correction
        assert_true_to_the_server(live, view["hand"]["deadline"])

        # A fresh load in the middle of the turn: no event has come yet, only the view over
        # HTTP with its Date header.
        await ana.page.reload()
        await ana.page.wait_for_selector(".felt .seat.me")
        loaded = await countdowns(ana)
        assert (await me.view(table))["hand"]["deadline"] == view["hand"]["deadline"]
        assert loaded[0]["skew"] is None  # so the Date header alone corrects it
        assert_true_to_the_server(loaded, view["hand"]["deadline"])
        assert ana.errors == []


@pytest.mark.parametrize("shift", [2 * 3_600_000, -2 * 3_600_000])
async def test_when_free_chips_come_is_counted_by_the_servers_clock(
    server: Server, browser: Contexts, shift: int
) -> None:
    """The top-up's `next_at` is a server time: a phone two hours off still says "in 5
    hours" (counting from its own clock it said 3 or 7)."""
    ana = await Player.open(browser, server.url, f"Ana Topup {shift}",
                            init_script=SHIFT_JS % shift)  # fmt: skip
    page = ana.page

    async def empty(route: Route) -> None:
        me = await (await route.fetch()).json()
        at = await page.evaluate("window.trueNow() / 1000") + 5 * 3600 + 60
        me |= {"balance": 0, "tables": [], "daily_topup": {"amount": 1000, "next_at": at}}
        await route.fulfill(status=200, content_type="application/json", body=json.dumps(me),
                            headers={"Date": formatdate(usegmt=True)})  # fmt: skip

    await page.route(f"{server.url}/api/me", empty)
    await page.reload()
    topup = await page.wait_for_selector("#topup")
    assert await topup.inner_text() == "Free chips (1,000 chips) arrive in 5 hours."
    assert ana.errors == []
