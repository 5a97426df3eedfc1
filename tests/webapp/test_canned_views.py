"""Screens that are rare in live play, from canned views: the real page and server, with the
one table's API answers replaced through the browser's request routing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.async_api import Route

from tests.webapp.browser import Contexts
from tests.webapp.player import Player
from tests.webapp.server import Server

# The browser (a session fixture) lives in the session's event loop.
pytestmark = pytest.mark.asyncio(loop_scope="session")

TABLE = "canned01"


def seat(n: int, name: str, **extra: Any) -> dict[str, Any]:
    base = {"seat": n, "user_id": 900 + n, "name": name, "stack": 300, "sat_out": False,
            "in_hand": True, "folded": False, "blind": False, "looked": True, "put_in": 20,
            "cards": None, "score": None}
    return base | extra


def canned_view(phase: str, legal: list[dict[str, Any]], **hand: Any) -> dict[str, Any]:
    return {
        "table_id": TABLE, "version": 40,
        "settings": {"ante": 10, "max_seats": 4, "bet_unit": None},
        "hand": {"number": 7, "deal": 2, "phase": phase, "dealer": 0, "pot": 60, "level": 20,
                 "turn": 2 if phase == "betting" else None, "deadline": None,
                 "commitment": "ab" * 32} | hand,
        "seats": [
            seat(0, "Ana", cards=["7c", "Kh", "Kd"] if phase == "svara_join" else None,
                 score=31 if phase == "svara_join" else None),
            seat(1, "Boris", cards=["Ah", "Ad", "As"] if phase == "svara_join" else None,
                 score=31 if phase == "svara_join" else None),
            seat(2, "Cleo", cards=["9h", "Th", "8c"], score=19, put_in=10,
                 folded=phase == "svara_join",
                 in_hand=phase != "svara_join"),
        ],
        "you": {"seat": 2, "cards": ["9h", "Th", "8c"], "score": 19, "legal": legal},
    }


async def open_canned(browser: Contexts, server: Server, view: dict[str, Any]) -> tuple[
        Player, list[dict[str, Any]]]:
    player = await Player.open(browser, server.url, "Cleo")
    posted: list[dict[str, Any]] = []

    async def answer_view(route: Route) -> None:
        await route.fulfill(status=200, content_type="application/json", body=json.dumps(view))

    async def answer_action(route: Route) -> None:
        posted.append(json.loads(route.request.post_data or "{}"))
        await route.fulfill(status=200, content_type="application/json", body='{"version": 41}')

    await player.page.route(f"{server.url}/api/tables/{TABLE}", answer_view)
    await player.page.route(f"{server.url}/api/tables/{TABLE}/actions", answer_action)
    await player.page.goto(f"{server.url}/?table={TABLE}")
    await player.page.wait_for_selector(".felt .seat.me")
    return player, posted


async def test_svara_join_window(server: Server, browser: Contexts) -> None:
    view = canned_view("svara_join", [{"type": "join_svara", "amount": 30},
                                      {"type": "skip_svara"}],
                       svara={"tied": [0, 1], "fee": 30, "eligible": [2], "answered": [],
                              "joined": [], "deadline": None})
    cleo, posted = await open_canned(browser, server, view)
    page = cleo.page
    state = await cleo.look()  # tied hands may show in the svara window
    assert sorted(state["otherFaces"]) == sorted(["7c", "Kh", "Kd", "Ah", "Ad", "As"])
    banner = await page.inner_text("#svara")
    assert "Svara! Ana & Boris tied." in banner and "join for 30 chips" in banner
    assert await page.inner_text("[data-action=join_svara]") == "Join svara (30)"
    await page.click("[data-action=join_svara]")
    await page.wait_for_function("document.querySelector('[data-action=join_svara]')")
    assert [(p["type"], "amount" in p) for p in posted] == [("join_svara", False)]
    assert len(posted[0]["action_id"]) >= 16


async def test_raise_amount_is_bounded_by_legal(server: Server, browser: Contexts) -> None:
    view = canned_view("betting", [{"type": "call"}, {"type": "raise", "min": 40, "max": 180},
                                   {"type": "fold"}])
    cleo, posted = await open_canned(browser, server, view)
    page = cleo.page
    box = page.locator("input[data-amount=raise]")
    button = page.locator("button[data-action=raise]")
    assert await page.inner_text("[data-action=call]") == "Call 10"  # level 20, Cleo put in 10
    assert (await box.get_attribute("min"), await box.get_attribute("max")) == ("40", "180")
    await box.fill("150")
    await page.evaluate("window.svara.current.render()")  # as any live event would
    assert await box.input_value() == "150"  # what was typed survives the redraw...
    assert await page.evaluate("document.activeElement.dataset.amount") == "raise"  # ...and focus
    await box.fill("39")
    assert await button.is_disabled()
    await box.fill("500")
    await box.dispatch_event("change")
    assert await box.input_value() == "180" and await button.is_enabled()
    await button.click()
    await page.wait_for_function("document.querySelector('button[data-action=raise]')")
    assert [(p["type"], p["amount"]) for p in posted] == [("raise", 180)]


async def test_expired_dev_login_is_renewed(server: Server, browser: Contexts) -> None:
    player = await Player.open(browser, server.url, "Dora")
    page = player.page
    logins: list[str] = []
    page.on("request", lambda r: logins.append(r.url) if "/dev/init-data" in r.url else None)
    refused = False

    async def expire_once(route: Route) -> None:
        nonlocal refused
        if refused:
            await route.continue_()
            return
        refused = True
        body = {"error": {"code": "expired", "message": "initData has expired"}}
        await route.fulfill(status=401, content_type="application/json", body=json.dumps(body))

    await page.route(f"{server.url}/api/me", expire_once)
    await page.click("#rules-link")
    await page.click("#back")  # the lobby asks /api/me: refused once, renewed, asked again
    await page.wait_for_selector("#balance")
    assert refused and len(logins) == 1
    assert await page.locator("#toast").is_hidden()


async def test_leaving_mid_hand_takes_a_second_tap(server: Server, browser: Contexts) -> None:
    view = canned_view("betting", [{"type": "call"}, {"type": "fold"}])
    cleo, _ = await open_canned(browser, server, view)
    page = cleo.page
    left: list[str] = []

    async def answer_leave(route: Route) -> None:
        left.append(route.request.method)
        after = view | {"you": {"seat": None, "cards": None, "score": None, "legal": []}}
        await route.fulfill(status=200, content_type="application/json", body=json.dumps(after))

    await page.route(f"{server.url}/api/tables/{TABLE}/leave", answer_leave)
    await page.click("[data-action=leave]")
    assert await page.inner_text("[data-action=leave]") == "Fold and leave?"
    assert not left
    await page.click("[data-action=leave]")
    await page.wait_for_selector("[data-action=seat]")
    assert left == ["POST"]
