"""The web app in headless Chromium against the real `svara serve` (dev mode, embedded store).

People log in by name, create and join tables, and play by clicking the buttons the server's
`legal` list produced, until a hand they played settles. Every poll checks that nobody sees
another player's cards (or anything derived from them) before showdown, nor their own before
looking.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import aiohttp
import pytest
from playwright.async_api import WebSocketRoute

from tests.support.browser import Contexts, check_layout, snap
from tests.support.http_player import HttpPlayer
from tests.support.serve import Server
from tests.webapp.player import Player

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


async def create_table(player: Player, *, bots: int, seats: int = 6, buy_in: int = 150) -> str:
    page = player.page
    await page.fill(".create input[name=practice_bots]", str(bots))
    await page.fill(".create input[name=max_seats]", str(seats))
    await page.fill(".create input[data-amount=buy_in]", str(buy_in))
    await page.dispatch_event(".create input[data-amount=buy_in]", "change")
    await page.click(".create [data-action=create]")
    await page.wait_for_selector(".felt .seat.me")
    return page.url.split("table=")[1]


async def test_play_a_hand_against_a_practice_bot(
    server: Server, browser: Contexts, shots: Path
) -> None:
    # Ana's phone clock runs two minutes fast: countdowns must follow the server's clock.
    fast_clock = "{ const real = Date.now; Date.now = () => real() + 120000; }"
    ana = await Player.open(browser, server.url, "Ana", init_script=fast_clock)
    page = ana.page
    assert await page.inner_text("#balance") == "1,000"
    await check_layout(page, bar=False)
    await snap(page, shots, "lobby")
    await create_table(ana, bots=1)
    assert "table=" in page.url
    # named by its host and stakes, never by its id
    assert (await page.inner_text("#title")).split("\n") == ["Ana's table", "Ante 10"]
    await page.wait_for_function(
        "() => { const el = document.querySelector('.mine-clock');"
        " return el && parseInt(el.dataset.left) > 5; }", timeout=15_000)
    await play_until_settled([ana], within=30)
    result = await page.inner_text("#result")
    assert re.search(r"(You win|wins) \d", result), result
    assert ana.checks > 3
    assert "hand_settled" in {f["event"]["type"] for f in ana.frames if f.get("type") == "event"}
    await snap(page, shots, "table-result")
    # The hand history lists it (winner, pot, shown hands); each hand opens its audit.
    number = await page.get_attribute("#result", "data-hand")
    await page.click("#result [data-action=history]")
    listed = page.locator(f".history .result[data-hand='{number}']")
    await listed.wait_for()
    # (the history knows no one's stake: a winner reads the pot there)
    assert re.search(r"(You win the pot:|wins) \d", await listed.inner_text())
    await snap(page, shots, "history")
    # The page checks the settled hand itself (chain, decks against commitments, cards,
    # scores, chips; what it kept while playing; Ana's own cards), the server's audit beside it.
    await listed.locator("[data-action=audit]").click()
    verdict = await page.wait_for_selector("#audit")
    assert await verdict.get_attribute("data-verified") == "true"
    assert "Verified" in await verdict.inner_text()
    assert await page.locator("#audit .checks li.ok").count() == 10
    assert await page.get_attribute("#server-audit", "data-agrees") == "true"
    await snap(page, shots, "audit")
    await page.click("#back")
    await page.click("#back")
    await page.wait_for_selector(".felt .seat.me")

    await page.click("[data-action=leave]")
    # In a hand (the next one may have begun), leaving folds it and takes a second tap.
    if await page.locator(".tools [data-action=leave]").all_inner_texts() == ["Fold and leave?"]:
        await page.click(".tools [data-action=leave]")
    await page.wait_for_selector(".action-bar [data-action=seat]")  # watching, may sit again
    await page.click("#back")
    await page.wait_for_selector("#balance")


async def test_two_people_play_live_over_the_websocket(
    server: Server, browser: Contexts, shots: Path
) -> None:
    ana = await Player.open(browser, server.url, "Ana Two")
    table_id = await create_table(ana, bots=0, seats=2, buy_in=200)

    boris = await Player.open(browser, server.url, "Boris")
    row = boris.page.locator(f".table-row[data-table='{table_id}']")
    assert "Ana Two's table" in await row.inner_text()
    await row.locator("[data-action=join]").click()
    await row.locator("input[data-amount=buy_in]").fill("200")
    await row.locator("[data-action=seat]").click()
    await boris.page.wait_for_selector(".felt .seat.me")
    # Ana's page learns of Boris only through the live feed (the table screen never polls).
    await ana.page.wait_for_selector(".felt .seat:not(.me) >> text=Boris")

    # Drop Boris's socket: the page reconnects and resumes after the last version it saw.
    await boris.page.evaluate("window.svara.current.socket.ws.close()")
    await boris.page.wait_for_function("document.body.dataset.connection === 'live'")

    await play_until_settled([ana, boris], within=30)
    await snap(boris.page, shots, "table-two-people", dark=False)
    ana_result = await ana.page.inner_text("#result .result-head")
    boris_result = await boris.page.inner_text("#result .result-head")
    # one outcome, seen from both sides: the same hand and pot, a winner (or a split); the
    # winner reads the gain first, then the pot
    pot = r"(?:You win \d+ chips!\nPot (\d+) chips, your stake \d+ chips"
    pot += r"|(?:Ana Two wins|Boris wins|.* split) (\d+) chips)"
    won = [re.search(pot, text) for text in (ana_result, boris_result)]
    amounts = [m and (m[1] or m[2]) for m in won]
    assert all(amounts) and amounts[0] == amounts[1], (ana_result, boris_result)
    assert await ana.page.get_attribute("#result", "data-hand") == await boris.page.get_attribute(
        "#result", "data-hand")
    # Ana's feed was open before the hand began, so the frame checks saw the deal itself.
    kinds = {f["event"]["type"] for f in ana.frames if f.get("type") == "event"}
    assert {"hand_started", "cards_dealt", "hand_settled"} <= kinds


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
    await dana.page.evaluate("""() => { window.states = [];
      new MutationObserver(() => states.push(document.body.dataset.connection))
        .observe(document.body, {attributes: true, attributeFilter: ['data-connection']}); }""")
    await create_table(dana, bots=0)
    async with asyncio.timeout(10):
        while frames.count("ready") < 2:  # noqa: ASYNC110 - a second connection authenticated
            await asyncio.sleep(0.1)
    assert "pong" in frames
    states = await dana.page.evaluate("window.states")
    assert "reconnecting" in states and "live" in states[states.index("reconnecting"):]


async def test_switching_players_keeps_each_name_s_chips(
    server: Server, browser: Contexts
) -> None:
    eve = await Player.open(browser, server.url, "Eve")
    page = eve.page
    await create_table(eve, bots=0, buy_in=300)
    for name, chips in [("Finn", "1,000"), ("Eve", "700")]:
        await page.click("#settings-link")
        await page.click("#who")
        await page.fill("input[name=name]", name)
        await page.click("[data-action=login]")
        await page.wait_for_selector(f"#balance >> text='{chips}'")
        assert name in await page.inner_text(".wallet-who")


async def test_the_lobby_pages_through_many_tables(server: Server, browser: Contexts) -> None:
    """The lobby is paged by the server (50 a page): "More tables" follows the `next` cursor
    until every open table is listed, once each."""
    async with aiohttp.ClientSession() as http:
        host = await HttpPlayer.login(http, server.url, 7_700_001, "Pager")
        created = {await host.create(ante=10) for _ in range(55)}
        listed: list[str] = []
        cursor = ""
        while True:
            page = await host.ok("GET", "/api/tables" + (f"?cursor={cursor}" if cursor else ""))
            listed += [t["table_id"] for t in page["tables"]]
            if not page["next"]:
                break
            cursor = page["next"]
    assert len(listed) > 50 and len(set(listed)) == len(listed) and created <= set(listed)

    ana = await Player.open(browser, server.url, "Ana Pages")
    page = ana.page
    rows = page.locator(".table-row")
    await page.wait_for_selector(".table-row")
    assert await rows.count() == 50
    clicks = 0
    while await page.locator("[data-action=more]").count():
        before = await rows.count()
        await page.click("[data-action=more]")
        await page.wait_for_function(
            f"document.querySelectorAll('.table-row').length > {before}")
        clicks += 1
    shown = [await rows.nth(i).get_attribute("data-table") for i in range(await rows.count())]
    assert clicks >= 1 and len(set(shown)) == len(shown)
    # Every table made here (the module's earlier tables may close meanwhile, more may come).
    assert created <= set(shown)
