"""Screens that are rare in live play, from canned views: the real page and server, with the
one table's API answers replaced through the browser's request routing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Route

from tests.support.browser import Contexts, snap
from tests.support.serve import Server
from tests.webapp.player import Player

# The browser (a session fixture) lives in the session's event loop.
pytestmark = pytest.mark.asyncio(loop_scope="session")

TABLE = "canned01"


def seat(n: int, name: str, **extra: Any) -> dict[str, Any]:
    base = {"seat": n, "user_id": 900 + n, "name": name, "stack": 300, "sat_out": False,
            "in_hand": True, "folded": False, "blind": False, "looked": True, "put_in": 20,
            "timed_out": False, "cards": None, "score": None}
    return base | extra


def canned_view(phase: str, legal: list[dict[str, Any]], **hand: Any) -> dict[str, Any]:
    join = phase == "svara_join"
    return {
        "table_id": TABLE, "version": 40, "host": "Ana",
        "settings": {"ante": 10, "max_seats": 4, "bet_unit": None},
        "hand": {"number": 7, "deal": 2, "phase": phase, "dealer": 0, "pot": 60, "level": 20,
                 "turn": 2 if phase == "betting" else None, "deadline": None,
                 "commitment": "ab" * 32, "last_blind": 0, "last_blind_seat": None,
                 "must_double": False, "capped": False} | hand,
        "seats": [
            seat(0, "Ana", cards=["7c", "Kh", "Kd"] if join else None, score=31 if join else None),
            seat(1, "Boris", cards=["Ah", "Ad", "As"] if join else None,
                 score=33 if join else None),
            seat(2, "Cleo", cards=["9h", "Th", "8c"], score=19, put_in=10, folded=join,
                 in_hand=not join),
        ],
        "you": {"seat": 2, "cards": ["9h", "Th", "8c"], "score": 19, "legal": legal},
    }


async def open_canned(browser: Contexts, server: Server, view: dict[str, Any], *,
                      hands: list[dict[str, Any]] | None = None, **options: Any) -> tuple[
        Player, list[dict[str, Any]]]:
    player = await Player.open(browser, server.url, "Cleo", **options)
    player.user_id = 902  # the canned views' Cleo
    posted: list[dict[str, Any]] = []

    async def answer_view(route: Route) -> None:
        await route.fulfill(status=200, content_type="application/json", body=json.dumps(view))

    async def answer_action(route: Route) -> None:
        posted.append(json.loads(route.request.post_data or "{}"))
        await route.fulfill(status=200, content_type="application/json", body='{"version": 41}')

    async def answer_hands(route: Route) -> None:
        await route.fulfill(status=200, content_type="application/json",
                            body=json.dumps({"hands": hands or []}))

    await player.page.route(f"{server.url}/api/tables/{TABLE}", answer_view)
    await player.page.route(f"{server.url}/api/tables/{TABLE}/actions", answer_action)
    await player.page.route(f"{server.url}/api/tables/{TABLE}/hands?limit=1", answer_hands)
    await player.page.goto(f"{server.url}/?table={TABLE}")
    await player.page.wait_for_selector(".felt .seat.me")
    return player, posted


async def test_svara_join_window(server: Server, browser: Contexts, shots: Path) -> None:
    view = canned_view("svara_join", [{"type": "join_svara", "amount": 30},
                                      {"type": "skip_svara"}],
                       svara={"tied": [0, 1], "fee": 30, "eligible": [2], "answered": [],
                              "joined": [], "deadline": None})
    view["seats"][1] |= {"cards": ["Ah", "Ad", "Tc"], "score": 31}
    cleo, posted = await open_canned(browser, server, view)
    page = cleo.page
    state = await cleo.look()  # tied hands may show in the svara window
    assert sorted(state["otherFaces"]) == sorted(["7c", "Kh", "Kd", "Ah", "Ad", "Tc"])
    panel = await page.inner_text("#svara")
    assert "Svara!" in panel and "A tie at 31" in panel and "In for free: Ana and Boris" in panel
    assert "join for 30 chips" in panel and "Join for 30 chips, or skip." in panel
    assert await page.locator("#svara .tied").count() == 2  # side by side
    assert await page.inner_text("[data-action=join_svara]") == "Join 30"
    await snap(page, shots, "svara-canned", dark=False)
    await page.click("[data-action=join_svara]")
    await page.wait_for_function("document.querySelector('[data-action=join_svara]:enabled')")
    assert [(p["type"], "amount" in p) for p in posted] == [("join_svara", False)]
    assert len(posted[0]["action_id"]) >= 16


async def test_raise_amount_is_bounded_by_legal(server: Server, browser: Contexts) -> None:
    view = canned_view("betting", [{"type": "call"}, {"type": "raise", "min": 40, "max": 180},
                                   {"type": "fold"}])
    cleo, posted = await open_canned(browser, server, view)
    page = cleo.page
    box = page.locator("input[data-amount=raise]")
    slider = page.locator(".action-bar input[type=range]")
    button = page.locator("button[data-action=raise]")
    assert await page.inner_text("[data-action=call]") == "Call 10"  # level 20, Cleo put in 10
    assert (await box.get_attribute("min"), await box.get_attribute("max")) == ("40", "180")
    assert (await slider.get_attribute("min"), await slider.get_attribute("max")) == ("40", "180")
    # the quick amounts, each inside legal's bounds: min, ×2 (of the level 20: 40→80), pot, max
    quick = {await b.get_attribute("data-quick"): int(await b.get_attribute("data-value") or 0)
             for b in await page.locator(".action-bar .quick").all()}
    assert quick == {"min": 40, "double": 80, "pot": 60, "max": 180}
    await page.click(".action-bar .quick[data-quick=pot]")
    assert await box.input_value() == "60" and await button.inner_text() == "Raise to 60"
    await box.fill("150")
    await page.evaluate("window.svara.current.render()")  # as any live event would
    assert await box.input_value() == "150"  # what was typed survives the redraw...
    assert await page.evaluate("document.activeElement.dataset.amount") == "raise"  # ...and focus
    await box.fill("39")
    assert await button.is_disabled()
    await box.fill("500")
    await box.dispatch_event("change")
    assert await box.input_value() == "180" and await button.is_enabled()
    await cleo.look()
    await button.click()
    await page.wait_for_function("document.querySelector('button[data-action=raise]:enabled')")
    assert [(p["type"], p["amount"]) for p in posted] == [("raise", 180)]


async def test_who_must_double_and_a_capped_result_are_explained(
    server: Server, browser: Contexts, shots: Path
) -> None:
    view = canned_view("betting", [{"type": "raise", "min": 40, "max": 180}, {"type": "fold"}],
                       last_blind=20, last_blind_seat=1, must_double=True, level=20)
    view["seats"][1] |= {"blind": True, "looked": False}
    last = {"number": 6, "names": {"0": "Ana", "2": "Cleo"}, "winners": [0], "amounts": {"0": 40},
            "pot": 40, "rake": 0, "reason": "showdown",
            "showdowns": [{"deal": 1, "capped": True, "hands": {
                "0": {"cards": ["As", "Ad", "9c"], "score": 22},
                "2": {"cards": ["8s", "9s", "Kd"], "score": 17}}}],
            "svaras": [], "timeouts": [{"seat": 2, "action": "pass"}]}
    cleo, _ = await open_canned(browser, server, view, hands=[last])
    page = cleo.page
    explain = await page.inner_text("#explain")
    assert explain == ("After the blind of 20 chips, raise to at least 40 chips or fold: "
                       "calling a blind is not allowed.")
    result = await page.wait_for_selector("#result[data-hand='6']")
    text = await result.inner_text()
    assert "The betting ended because nobody could put in more." in text
    assert "Cleo: time ran out, passed." in text and "Ana wins 40 chips" in text
    await cleo.look()
    await snap(page, shots, "must-double-capped", dark=False)


async def test_errors_are_shown_in_the_player_s_language(
    server: Server, browser: Contexts
) -> None:
    view = canned_view("betting", [{"type": "call"}, {"type": "fold"}])
    cleo, _ = await open_canned(browser, server, view, locale="ru-RU")
    page = cleo.page
    answers = [("not_your_turn", "not your turn, in English"),
               ("brand_new_code", "a message for a code the app does not know")]

    async def refuse(route: Route) -> None:
        code, message = answers.pop(0)
        body = {"error": {"code": code, "message": message}}
        await route.fulfill(status=403, content_type="application/json", body=json.dumps(body))

    await page.route(f"{server.url}/api/tables/{TABLE}/actions", refuse)
    toast = page.locator("#toast")
    await page.click("[data-action=fold]")
    # the code, in Russian (waited for: a toast of the page's own start may still be up)
    await page.wait_for_function(
        "document.querySelector('#toast').textContent === 'Сейчас не ваш ход.'"
        " && !document.querySelector('#toast').hidden")
    assert await toast.inner_text() == "Сейчас не ваш ход."
    await page.wait_for_function("document.querySelector('[data-action=fold]:enabled')")
    await page.click("[data-action=fold]")
    await page.wait_for_function(
        "document.querySelector('#toast').textContent.startsWith('a message')")


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
        body = {"error": {"code": "expired_init_data", "message": "initData has expired"}}
        await route.fulfill(status=401, content_type="application/json", body=json.dumps(body))

    await page.route(f"{server.url}/api/me", expire_once)
    await page.click("#rules-link")
    async with page.expect_response(lambda r: r.url.endswith("/api/me") and r.ok):
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
    await page.click(".tools [data-action=leave]")
    assert await page.inner_text(".tools [data-action=leave]") == "Fold and leave?"
    assert not left
    await page.click(".tools [data-action=leave]")
    await page.wait_for_selector(".action-bar [data-action=seat]")
    assert left == ["POST"]


async def test_the_privacy_check_sees_a_leaked_score(server: Server, browser: Contexts) -> None:
    """A score is as secret as its cards. A view that hands a spectator-like viewer
    another player's score (cards hidden), or a page that shows one, fails the check."""
    view = canned_view("betting", [{"type": "call"}, {"type": "fold"}])
    view["seats"][0]["score"] = 31  # Ana's cards are hidden from Cleo; her score leaks
    cleo, _ = await open_canned(browser, server, view)
    with pytest.raises(AssertionError, match="a score without its cards"):
        await cleo.look()
    cleo.errors.clear()
    view["seats"][0]["score"] = None
    await cleo.page.evaluate("window.svara.current.show({...window.svara.current.view, "
                             "seats: window.svara.current.view.seats.map((s) => "
                             "({...s, score: null})), version: 41})")
    await cleo.look()  # the same page without the leak passes
    await cleo.page.evaluate("""() => { const badge = document.createElement('div');
      badge.dataset.scoreSeat = '0'; badge.textContent = '31';
      document.querySelector('.felt .seat[data-seat="0"]').append(badge); }""")
    with pytest.raises(AssertionError, match="score of hidden cards"):
        await cleo.look()


async def test_an_empty_wallet_says_when_free_chips_come(server: Server, browser: Contexts) -> None:
    player = await Player.open(browser, server.url, "Zed")
    page = player.page

    async def empty(route: Route) -> None:
        me = await (await route.fetch()).json()
        at = await page.evaluate("Date.now() / 1000") + 5 * 3600 + 60
        me |= {"balance": 0, "tables": [], "daily_topup": {"amount": 1000, "next_at": at}}
        await route.fulfill(status=200, content_type="application/json", body=json.dumps(me))

    await page.route(f"{server.url}/api/me", empty)
    await page.reload()
    topup = await page.wait_for_selector("#topup")
    assert await topup.inner_text() == "Free chips (1,000 chips) arrive in 5 hours."
    # too poor for any table: creating one says so instead of leaving you watching
    note = await page.wait_for_selector(".create .note:not([hidden])")
    assert "You need at least 100 chips" in await note.inner_text()
    assert await page.locator(".create [data-action=create]").is_disabled()
