"""The web app in headless Chromium against the real `svara serve` (dev mode, embedded store).

People log in by name, create and join tables, and play by clicking the buttons the server's
`legal` list produced, until a hand they played settles. Every poll checks that nobody sees
another player's cards before showdown, nor their own before looking.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from playwright.async_api import WebSocketRoute

from tests.webapp.browser import Contexts
from tests.webapp.player import Player
from tests.webapp.server import Server

# The browser (a session fixture) lives in the session's event loop.
pytestmark = pytest.mark.asyncio(loop_scope="session")


async def play_until_settled(players: list[Player], within: float) -> None:
    """Each player acts whenever the page offers an action, until all have seen a result."""
    async with asyncio.timeout(within):
        done: set[str] = set()
        while len(done) < len(players):
            for player in players:
                await player.step()
                if player.finished_a_hand(await player.look()):
                    done.add(player.name)
            await asyncio.sleep(0.15)


async def test_play_a_hand_against_a_practice_bot(
    server: Server, browser: Contexts, shots: Path
) -> None:
    # Ana's phone clock runs two minutes fast: countdowns must follow the server's clock.
    fast_clock = "{ const real = Date.now; Date.now = () => real() + 120000; }"
    ana = await Player.open(browser, server.url, "Ana", init_script=fast_clock)
    page = ana.page
    assert await page.inner_text("#balance") == "1,000"
    await page.fill(".create input[name=practice_bots]", "1")
    await page.fill(".create input[name=buy_in]", "150")
    await page.click(".create button[type=submit]")
    await page.wait_for_selector(".felt .seat.me")
    assert "table=" in page.url
    await page.wait_for_function(
        "() => { const el = document.querySelector('.mine-clock');"
        " return el && parseInt(el.textContent) > 5; }", timeout=15_000)
    await play_until_settled([ana], within=30)
    result = await page.inner_text("#result")
    assert "won" in result
    assert ana.checks > 3
    assert "hand_settled" in {f["event"]["type"] for f in ana.frames if f.get("type") == "event"}
    # Anyone can replay the settled hand: chain, decks against commitments, chips.
    await page.click("#result [data-action=audit]")
    audit = await page.wait_for_selector("#audit")
    assert (await audit.inner_text()).startswith("Verified: chain ✓ · deck ✓")
    await page.screenshot(path=str(shots / "table.png"), full_page=True)
    assert (shots / "table.png").stat().st_size > 10_000

    await page.click("[data-action=leave]")
    # In a hand (the next one may have begun), leaving folds it and takes a second tap.
    if await page.locator("[data-action=leave]").all_inner_texts() == ["Fold and leave?"]:
        await page.click("[data-action=leave]")
    await page.wait_for_selector("[data-action=seat]")  # watching now, can sit down again
    await page.click("#back")
    await page.wait_for_selector("#balance")
    await page.click("#rules-link")
    assert "How to play Svara" in await page.inner_text("main")


async def test_two_people_play_live_over_the_websocket(
    server: Server, browser: Contexts, shots: Path
) -> None:
    ana = await Player.open(browser, server.url, "Ana Two")
    await ana.page.fill(".create input[name=practice_bots]", "0")
    await ana.page.fill(".create input[name=max_seats]", "2")
    await ana.page.click(".create button[type=submit]")
    await ana.page.wait_for_selector(".felt .seat.me")
    table_id = ana.page.url.split("table=")[1]

    boris = await Player.open(browser, server.url, "Boris")
    row = boris.page.locator(f".table-row[data-table='{table_id}']")
    await row.locator("input").fill("200")
    await row.locator("button[type=submit]").click()
    await boris.page.wait_for_selector(".felt .seat.me")
    # Ana's page learns of Boris only through the live feed (the table screen never polls).
    await ana.page.wait_for_selector(".felt .seat:not(.me) >> text=Boris")

    # Drop Boris's socket: the page reconnects and resumes after the last version it saw.
    await boris.page.evaluate("window.svara.current.socket.ws.close()")
    await boris.page.wait_for_selector(".live[data-status=live]")

    await play_until_settled([ana, boris], within=30)
    await ana.page.screenshot(path=str(shots / "ana.png"), full_page=True)
    await boris.page.screenshot(path=str(shots / "boris.png"), full_page=True)
    ana_result, boris_result = await ana.page.inner_text("#result"), await boris.page.inner_text(
        "#result")
    assert ana_result.split("\n")[0] == boris_result.split("\n")[0]  # one outcome for both
    # Ana's feed was open before the hand began, so the frame checks saw the deal itself.
    kinds = {f["event"]["type"] for f in ana.frames if f.get("type") == "event"}
    assert {"hand_started", "cards_dealt", "hand_settled"} <= kinds


async def test_the_server_error_message_reaches_the_person(
    server: Server, browser: Contexts
) -> None:
    cleo = await Player.open(browser, server.url, "Cleo")
    page = cleo.page
    await page.fill(".create input[name=ante]", "100")
    await page.fill(".create input[name=buy_in]", "5000")  # more than the 1,000 chips Cleo has
    async with page.expect_response(lambda r: r.url.endswith("/seat")) as seat:
        await page.click(".create button[type=submit]")
    answer = await seat.value
    assert answer.status >= 400
    message = (await answer.json())["error"]["message"]
    toast = page.locator("#toast")
    await toast.wait_for(state="visible")
    assert message in await toast.inner_text()
    # The table exists anyway; Cleo watches it and may sit down within its bounds.
    await page.wait_for_selector("[data-action=seat]")
    box = page.locator(".actions input[aria-label='Buy-in']")
    assert (await box.get_attribute("min"), await box.get_attribute("max")) == ("1000", "10000")


async def test_a_silently_dead_socket_is_noticed_and_replaced(
    server: Server, browser: Contexts
) -> None:
    """Pongs stop arriving (a phone lost its network): the page drops the socket and resumes."""
    timing = "window.svaraSocketTiming = {pingEveryMs: 300, pongWithinMs: 400};"
    dana = await Player.open(browser, server.url, "Dana", init_script=timing)
    frames: list[str] = []

    def relay(ws: WebSocketRoute) -> None:
        server_side = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            kind = json.loads(message)["type"]
            frames.append(kind)
            if kind != "pong":  # swallow pongs: the connection looks dead to the page
                ws.send(message)

        server_side.on_message(to_page)

    await dana.page.route_web_socket(re.compile(r".*/ws$"), relay)
    await dana.page.fill(".create input[name=practice_bots]", "0")
    await dana.page.click(".create button[type=submit]")
    await dana.page.wait_for_selector(".felt .seat.me")
    await dana.page.wait_for_selector(".live[data-status=offline]", timeout=5_000)
    async with asyncio.timeout(10):
        while frames.count("ready") < 2:  # noqa: ASYNC110 - a second connection authenticated
            await asyncio.sleep(0.1)
    assert "pong" in frames
    await dana.page.wait_for_selector(".live[data-status=live]")


async def test_switching_players_keeps_each_name_s_chips(
    server: Server, browser: Contexts
) -> None:
    eve = await Player.open(browser, server.url, "Eve")
    page = eve.page
    await page.fill(".create input[name=practice_bots]", "0")
    await page.fill(".create input[name=buy_in]", "300")
    await page.click(".create button[type=submit]")
    await page.wait_for_selector(".felt .seat.me")
    for name, chips in [("Finn", "1,000"), ("Eve", "700")]:
        await page.click("#who")
        await page.fill("input[name=name]", name)
        await page.click("[data-action=login]")
        await page.wait_for_selector(f"#balance >> text='{chips}'")
        assert (await page.inner_text("#who")).startswith(name)
