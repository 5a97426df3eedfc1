"""A connection a player can trust, at phone sizes: `document.body.dataset.connection` says
live / reconnecting / offline (and the dot with it); an action pressed offline goes out with
its own action_id when the network is back and is carried out once; an answer lost on the
way is retried with the same id (the server answers it once); the bar never stays stuck; a
page back from the background is current in under a second."""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from playwright.async_api import Route, WebSocketRoute

from tests.support.browser import Contexts, check_layout, snap
from tests.support.http_player import HttpPlayer, legal
from tests.support.serve import Server
from tests.support.waiting import eventually
from tests.webapp.player import Player
from tests.webapp.tables import new_user_id, sit_down

# The browser (a session fixture) lives in the session's event loop.
pytestmark = pytest.mark.asyncio(loop_scope="session")

RECORD_STATES = """() => { window.states = [document.body.dataset.connection];
  new MutationObserver(() => states.push(document.body.dataset.connection))
    .observe(document.body, {attributes: true, attributeFilter: ['data-connection']}); }"""


def by(user_id: int, kind: str, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind and e["data"].get("user_id") == user_id]


async def wait_turn(player: HttpPlayer, table: str, phase: str) -> dict[str, Any]:
    async def on_turn() -> dict[str, Any] | None:
        view = await player.view(table)
        hand = view["hand"]
        if hand and hand["phase"] == phase and hand["turn"] == view["you"]["seat"]:
            return view
        return None

    found: dict[str, Any] = await eventually(on_turn, 10, every=0.05)
    return found


@pytest.mark.parametrize(("width", "height"), [(390, 844), (360, 740)])
async def test_an_action_pressed_offline_goes_out_once_when_back(
    server: Server, browser: Contexts, shots: Path, width: int, height: int
) -> None:
    ana = await Player.open(browser, server.url, f"Ana Net {width}", width=width, height=height)
    page = ana.page
    async with aiohttp.ClientSession() as http:
        boris = await HttpPlayer.login(http, server.url, new_user_id(), "Boris")
        me = await HttpPlayer.login(http, server.url, ana.user_id, f"Ana Net {width}")
        table = await boris.create(ante=10, max_seats=2, turn_seconds=60)
        await boris.seat(table, 500)
        await sit_down(ana, server.url, table)  # Boris deals hand 1: Ana acts first
        await wait_turn(me, table, "blind")
        await page.wait_for_selector(".action-bar [data-action=pass]:enabled")
        await page.evaluate(RECORD_STATES)
        assert await page.evaluate("document.body.dataset.connection") == "live"

        # Offline during her turn: the page says so at once, and the button still answers.
        await page.context.set_offline(True)
        await page.wait_for_function("document.body.dataset.connection === 'offline'")
        assert await page.get_attribute("#dot", "data-state") == "offline"
        await page.click(".action-bar [data-action=pass]")
        status = await page.wait_for_selector("#bar-status.waiting")
        assert "goes out as soon as you are back" in await status.inner_text()
        assert await page.locator(".action-bar button.act:enabled").count() == 0
        await check_layout(page)
        await snap(page, shots, f"offline-{width}")
        await asyncio.sleep(0.5)  # a while offline: nothing may reach the server
        assert by(ana.user_id, "passed", await boris.events(table)) == []

        # Back online: reconnecting, then live; the pass went out once; the turn moved on.
        await page.context.set_offline(False)
        await page.wait_for_function("document.body.dataset.connection === 'live'")
        await page.wait_for_selector(".action-bar:not([data-pending])")
        states = await page.evaluate("window.states")
        assert states[:2] == ["live", "offline"] and states[-1] == "live", states
        assert "reconnecting" in states, states
        events = await boris.events(table)
        assert len(by(ana.user_id, "passed", events)) == 1
        # The blind round is over; nobody went blind, so Ana (left of the dealer) opens.
        await wait_turn(me, table, "betting")

        # An answer lost on the way: the server acted, the page saw a network error and sends
        # the same action_id again; the server answers it once.
        sent: list[str] = []

        async def lose_first_answer(route: Route) -> None:
            sent.append(json.loads(route.request.post_data or "{}")["action_id"])
            if len(sent) == 1:
                await route.fetch()  # it reaches the server...
                await route.abort("connectionreset")  # ...but the answer never comes back
            else:
                await route.continue_()

        await page.route(f"{server.url}/api/tables/{table}/actions", lose_first_answer)
        await page.wait_for_selector(".action-bar [data-action=raise]:enabled")
        await page.click(".action-bar [data-action=raise]")  # "Bet 10"
        await page.wait_for_selector(".action-bar[data-pending=raise]")
        await page.wait_for_selector(".action-bar:not([data-pending])")
        assert len(sent) == 2 and sent[0] == sent[1], sent  # the same id, twice
        assert len(by(ana.user_id, "raised", await boris.events(table))) == 1
        view = await wait_turn(boris, table, "betting")  # and the turn moved on to Boris
        assert "call" in legal(view)
        await ana.look()


async def test_back_from_the_background_is_current_within_a_second(
    server: Server, browser: Contexts
) -> None:
    ana = await Player.open(browser, server.url, "Ana Away")
    page = ana.page
    dead = False  # the socket's network died silently while the phone slept

    def relay(ws: WebSocketRoute) -> None:
        server_side = ws.connect_to_server()
        server_side.on_message(lambda m: None if dead else ws.send(m))
        ws.on_message(lambda m: None if dead else server_side.send(m))

    await page.route_web_socket(re.compile(r".*/ws$"), relay)
    async with aiohttp.ClientSession() as http:
        boris = await HttpPlayer.login(http, server.url, new_user_id(), "Boris")
        cleo = await HttpPlayer.login(http, server.url, new_user_id(), "Cleo")
        table = await boris.create(ante=10, max_seats=3, turn_seconds=60)
        await boris.seat(table, 500)
        await sit_down(ana, server.url, table)
        await page.wait_for_function("document.body.dataset.connection === 'live'")
        # To the background: hidden, and the socket goes quiet without closing.
        await page.evaluate("""Object.defineProperty(document, 'hidden',
          {configurable: true, get: () => true});
          document.dispatchEvent(new Event('visibilitychange'))""")
        dead = True
        await cleo.seat(table, 300)  # the table moves on meanwhile
        version = (await boris.view(table))["version"]
        await asyncio.sleep(0.3)
        assert await page.evaluate("window.svara.current.view.version") < version
        # Back in front: current again within a second (and a live socket soon after).
        start = time.monotonic()
        await page.evaluate("""Object.defineProperty(document, 'hidden',
          {configurable: true, get: () => false});
          document.dispatchEvent(new Event('visibilitychange'))""")
        await page.wait_for_function(f"window.svara.current.view.version >= {version}",
                                     timeout=1_000)
        assert time.monotonic() - start < 1.0
        assert await page.locator(".felt .seat >> text=Cleo").count() == 1
        dead = False
        await page.wait_for_function("document.body.dataset.connection === 'live'",
                                     timeout=5_000)
        await ana.look()
