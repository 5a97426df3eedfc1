"""The action bar on a phone (390×844, and the smallest, 320×640) in every language: in the
states with the most in it (first to act with a blind to choose; gone blind and reached again
in the betting round; a svara to join, with sitting in too) every part of the bar (the turn
label and its clock, the cards, every button and the amount picker) lies inside the window,
no two parts overlap, every tap target is 44 px or more, and no label runs out of its button
(the amount included). From canned views of a full table (canned_table.py), photographed
light and dark in Russian, German and Arabic."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import Contexts, snap
from tests.support.serve import DEV_TOKEN, Server
from tests.support.telegram import launch, receive, sign, snap_as_is, telegram_page
from tests.webapp.canned_table import (
    LOCALES,
    ME,
    TABLE,
    betting,
    blind_betting,
    first_blind,
    route_canned,
    shown_live,
    svara,
)
from tests.webapp.player import Player
from tests.webapp.tables import new_user_id

# The browser (a session fixture) lives in the session's event loop.
pytestmark = pytest.mark.asyncio(loop_scope="session")

SIZES = [(390, 844), (320, 640)]


def svara_and_sit_in(seats: int) -> dict[str, Any]:
    """A svara to join or skip, and (sat out) sitting in again: three buttons in a row."""
    view = svara(seats)
    view["seats"][ME]["sat_out"] = True
    view["you"]["legal"].append({"type": "sit_in"})
    return view


def owing(view: dict[str, Any]) -> dict[str, Any]:
    """`view` with a call of 1 240 and a raise up to 9 600 (four-figure amounts)."""
    for action in view["you"]["legal"]:
        if action["type"] == "call":
            action["amount"] = 1240
        if action["type"] == "raise":
            action |= {"min": 2480, "max": 9600}
    view["hand"] |= {"level": 1260, "pot": 7560}
    return view


def soon() -> float:
    return time.time() + 59


STATES: dict[str, Callable[[], dict[str, Any]]] = {
    "blind": lambda: first_blind(6, deadline=soon()),
    "betting": lambda: owing(betting(6, deadline=soon())),
    "blind-betting": lambda: owing(blind_betting(6, deadline=soon())),
    "svara": lambda: svara_and_sit_in(6),
}

# The bar's parts: the boxes that must lie in the window and not overlap one another (the
# row of your cards, score, stack and clock; the status line; the picker's controls; the
# buttons), and for each button whether its label fits it and its amount is inside it.
PARTS_JS = """() => {
  const bar = document.querySelector('.action-bar');
  const box = (el) => { const r = el.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, w: r.width, h: r.height}; };
  const name = (el) => el.dataset.action || el.dataset.quick || el.dataset.amount || el.id
    || el.className || el.tagName;
  const shown = (el) => { const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden'; };
  const sel = '.my-row > *, .bar-status, .picker-row > *, .quick-row > button, .buttons > button';
  const parts = [...bar.querySelectorAll(sel)].filter(shown).map((el) => {
    const amt = el.querySelector('.amt');
    return {what: name(el), text: el.innerText, box: box(el),
      tap: el.matches('button, input'),
      fits: el.scrollWidth <= el.clientWidth + 1 && el.scrollHeight <= el.clientHeight + 1,
      amount: amt ? {text: amt.textContent, box: box(amt)} : null};
  });
  return {parts, bar: box(bar), width: innerWidth, height: innerHeight,
    scrollWidth: document.documentElement.scrollWidth};
}"""


def inside(inner: dict[str, float], outer: dict[str, float], slack: float = 0.5) -> bool:
    return (inner["left"] >= outer["left"] - slack and inner["right"] <= outer["right"] + slack
            and inner["top"] >= outer["top"] - slack and inner["bottom"] <= outer["bottom"] + slack)


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (min(a["right"], b["right"]) - max(a["left"], b["left"]) > 0.5
            and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 0.5)


def bar_problems(found: dict[str, Any]) -> list[Any]:
    """What is wrong with the bar as `PARTS_JS` found it (nothing, if it fits)."""
    window = {"left": 0, "top": 0, "right": found["width"], "bottom": found["height"]}
    wrong: list[Any] = []
    if found["scrollWidth"] > found["width"]:
        wrong.append(("sideways scroll", found["scrollWidth"]))
    if not inside(found["bar"], window):
        wrong.append(("the bar is outside the window", found["bar"]))
    parts = found["parts"]
    for part in parts:
        if not inside(part["box"], window):
            wrong.append(("outside the window", part))
        if not part["fits"]:
            wrong.append(("its content runs out of it", part))
        if part["tap"] and (part["box"]["h"] < 44 or part["box"]["w"] < 44):
            wrong.append(("under 44 px", part))
        amount = part["amount"]
        if amount and not (amount["text"] and inside(amount["box"], part["box"])):
            wrong.append(("its amount is cut", part))
    for i, one in enumerate(parts):
        wrong.extend(("overlap", one, other) for other in parts[i + 1:]
                     if overlap(one["box"], other["box"]))
    return wrong


@pytest.mark.parametrize(("width", "height"), SIZES)
@pytest.mark.parametrize("lang", list(LOCALES))
async def test_everything_in_the_bar_fits_the_phone(
    server: Server, browser: Contexts, shots: Path, lang: str, width: int, height: int
) -> None:
    wrong: dict[str, list[Any]] = {}
    # One player, one page: each state is the canned table's answer when the page opens the
    # table again (a fresh load of the app, the routes answering from `view`).
    cleo = await Player.signed_in(browser, "Cleo", 900 + ME, width=width, height=height,
                                  locale=LOCALES[lang])
    page = cleo.page
    view: dict[str, Any] = {}
    await route_canned(page, server, view)
    for state, make in STATES.items():
        view.clear()
        view.update(make())
        await page.goto(f"{server.url}/?table={TABLE}")
        await shown_live(page)
        await page.wait_for_selector(".action-bar .buttons button.act")
        if state != "svara":
            await page.wait_for_function("document.querySelector('.mine-clock')?.textContent")
        found = await page.evaluate(PARTS_JS)
        actions = {p["what"] for p in found["parts"]}
        want = {"blind": {"blind", "pass", "look", "my-clock"},
                "betting": {"call", "raise", "fold", "my-clock", "my-score"},
                "blind-betting": {"call", "raise", "fold", "look", "my-clock"},
                "svara": {"join_svara", "skip_svara", "sit_in", "bar-status"}}[state]
        assert want <= actions, (state, actions)
        if lang in ("ru", "de", "ar"):
            await snap(page, shots, f"bar-{state}-{lang}-{width}")
        if problems := bar_problems(found):
            wrong[state] = problems
    await page.context.close()
    assert not cleo.errors, cleo.errors
    assert not wrong, wrong


async def test_the_bar_keeps_clear_of_telegram_s_safe_area_and_sheet(
    server: Server, browser: Contexts, shots: Path
) -> None:
    """Inside Telegram on the smallest phone, its sheet half open (600 of 640 px visible) and
    a home indicator 34 px high: the bar stands on the sheet's visible bottom, and all it holds
    (in Russian, with the most buttons) sits above the indicator, inside the window."""
    page = await telegram_page(browser, width=320, viewport_height=640, height=600,
                               safe_area={"top": 0, "bottom": 34, "left": 0, "right": 0},
                               locale="ru-RU")
    await route_canned(page, server, STATES["blind-betting"]())
    await launch(page, f"{server.url}/?table={TABLE}",
                 await sign(DEV_TOKEN, {"id": new_user_id(), "first_name": "Cleo",
                                                  "language_code": "ru"}))
    await shown_live(page)
    await page.wait_for_function("document.querySelector('.mine-clock')?.textContent")
    found = await page.evaluate(PARTS_JS)
    await snap_as_is(page, shots, "bar-telegram-safe-area-ru-320")
    assert abs(found["bar"]["bottom"] - 600) < 1, found["bar"]
    above = 600 - 34
    low = [p for p in found["parts"] if p["box"]["bottom"] > above + 0.5]
    assert not low, low
    assert not bar_problems(found)
    # The sheet pulled down to 360 px: the bar stays below the header and scrolls inside.
    await receive(page, "viewport_changed",
                  {"height": 360, "is_expanded": False, "is_state_stable": True})
    await page.wait_for_function("""Math.abs(document.querySelector('.action-bar')
      .getBoundingClientRect().bottom - 360) < 1""")
    short = await page.evaluate("""() => { const bar = document.querySelector('.action-bar');
      const head = document.querySelector('header, .bar').getBoundingClientRect().bottom;
      bar.scrollTop = bar.scrollHeight;
      const last = [...bar.querySelectorAll('.buttons button')].at(-1).getBoundingClientRect();
      return {top: bar.getBoundingClientRect().top, head, last: last.bottom,
        scrolls: bar.scrollHeight > bar.clientHeight}; }""")
    assert short["top"] >= short["head"] - 1 and short["scrolls"], short
    assert short["last"] <= 360 - 34 + 0.5, short
    await snap_as_is(page, shots, "bar-telegram-short-ru-320")
    assert not page.errors  # type: ignore[attr-defined]
