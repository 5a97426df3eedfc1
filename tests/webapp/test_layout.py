"""What a phone (390×844, and turned sideways: 844×390) and a desktop window (1280×800) must
show without scrolling: the result of a hand on the felt until the next one starts, the svara's
tied hands, every seat, the pot, your cards and every button, none under the action bar; scores
that do not look like bets; the turn clock on one line; titles that fit. From canned views of a
full table (canned_table.py), photographed light and dark in Russian and Arabic."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page

from tests.support.browser import Contexts, snap
from tests.support.serve import Server
from tests.webapp.canned_table import NAMES, betting, last_hand, open_table, settled, svara
from tests.webapp.catalogs import LANGUAGES, catalog

# The browser (a session fixture) lives in the session's event loop.
pytestmark = pytest.mark.asyncio(loop_scope="session")

LOCALES = {"en": "en-US", "ru": "ru-RU", "bg": "bg", "tr": "tr-TR", "de": "de-DE", "ar": "ar"}

# For each element a selector finds: its box, and whether it is wholly in the window and what
# is drawn at its centre is the element itself (not the action bar, not another seat).
SEEN_JS = """(selector) => [...document.querySelectorAll(selector)].map((el) => {
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  const bar = document.querySelector('.action-bar');
  return {what: el.dataset.seat ?? el.dataset.action ?? el.id ?? el.className,
    box: [Math.round(r.left), Math.round(r.top), Math.round(r.right), Math.round(r.bottom)],
    inside: r.width > 0 && r.left >= 0 && r.top >= 0 && r.right <= innerWidth
      && r.bottom <= innerHeight,
    onTop: Boolean(hit) && (el === hit || el.contains(hit)),
    underBar: Boolean(bar) && !bar.contains(el) && bar.contains(hit)};
})"""


async def seen(page: Page, selector: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = await page.evaluate(SEEN_JS, selector)
    assert found, f"nothing matches {selector}"
    return found


async def all_in_view(page: Page, selector: str) -> None:
    for one in await seen(page, selector):
        assert one["inside"] and one["onTop"] and not one["underBar"], (selector, one)


@pytest.mark.parametrize("lang", ["ru", "ar"])
@pytest.mark.parametrize(("width", "height"), [(390, 844), (844, 390)])
async def test_the_result_stays_on_the_felt_in_view(
    server: Server, browser: Contexts, shots: Path, lang: str, width: int, height: int
) -> None:
    view = settled(6)
    cleo = await open_table(browser, server, view, hands=[last_hand(view)], width=width,
                            height=height, locale=LOCALES[lang])
    page = cleo.page
    await page.wait_for_selector("#result")
    await all_in_view(page, "#pot.felt-result")
    text = await page.inner_text("#pot.felt-result")
    words = catalog(lang)
    assert NAMES[1] in text and f"{360}" in text, text  # Boris won the pot of 360
    assert str(words["result.showdown"]) in text, text
    await cleo.look()
    await snap(page, shots, f"layout-result-{lang}-{width}")


@pytest.mark.parametrize("lang", ["ru", "ar"])
@pytest.mark.parametrize(("width", "height"), [(390, 844), (844, 390)])
async def test_the_svara_s_tied_hands_are_in_view(
    server: Server, browser: Contexts, shots: Path, lang: str, width: int, height: int
) -> None:
    cleo = await open_table(browser, server, svara(6), width=width, height=height,
                            locale=LOCALES[lang])
    page = cleo.page
    await page.wait_for_selector("#svara")
    await all_in_view(page, ".felt .seat.tied .seat-cards")
    await all_in_view(page, ".felt .seat.tied .score-badge")
    await all_in_view(page, "#felt-svara")
    assert "31" in await page.inner_text("#felt-svara")  # the tie
    await all_in_view(page, ".action-bar button.act")
    await cleo.look()
    await snap(page, shots, f"layout-svara-{lang}-{width}")


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_a_score_is_a_labelled_badge_not_a_bet(
    server: Server, browser: Contexts, shots: Path, lang: str
) -> None:
    cleo = await open_table(browser, server, svara(4), locale=LOCALES[lang])
    page = cleo.page
    looks = await page.evaluate("""() => [0, 1].map((n) => {
      const seat = document.querySelector(`.felt .seat[data-seat="${n}"]`);
      const score = seat.querySelector('[data-score-seat]');
      const put = seat.querySelector('.put');
      const cards = seat.querySelector('.seat-cards .cards');
      const box = (el) => el.getBoundingClientRect().toJSON();
      const style = (el) => { const s = getComputedStyle(el);
        return {bg: s.backgroundColor, color: s.color, radius: s.borderRadius}; };
      return {label: score.querySelector('small')?.textContent, text: score.textContent,
        score: box(score), put: box(put), seat: box(seat), cards: box(cards),
        scoreStyle: style(score), putStyle: style(put)};
    })""")
    label = catalog(lang)["seat.score_label"]
    for one in looks:
        assert one["label"] == label and "31" in one["text"], one
        assert one["scoreStyle"]["bg"] != one["putStyle"]["bg"], one
        assert one["scoreStyle"]["color"] != one["putStyle"]["color"], one
        score, put, seat, cards = one["score"], one["put"], one["seat"], one["cards"]
        # on the cards: inside the seat, just under its cards; the bet beside the seat, outside
        assert seat["left"] <= score["left"] and score["right"] <= seat["right"], one
        assert cards["bottom"] - 2 <= score["top"] <= cards["bottom"] + 6, one
        assert put["right"] <= seat["left"] or put["left"] >= seat["right"], one
    if lang in ("ru", "ar"):
        await snap(page, shots, f"layout-scores-{lang}")


async def test_your_turn_and_its_clock_stay_on_one_line(
    server: Server, browser: Contexts, shots: Path
) -> None:
    cleo = await open_table(browser, server, betting(6, deadline=time.time() + 59),
                            locale="ru-RU")
    page = cleo.page
    await page.wait_for_function("document.querySelector('.mine-clock')?.textContent")
    box = await page.evaluate("""() => { const el = document.querySelector('.my-clock');
      const strong = el.querySelector('strong');
      return {height: el.getBoundingClientRect().height, text: el.innerText,
        line: parseFloat(getComputedStyle(strong).lineHeight)
          || 1.2 * parseFloat(getComputedStyle(strong).fontSize),
        right: el.getBoundingClientRect().right, width: innerWidth}; }""")
    assert "Ваш ход" in box["text"], box
    assert box["height"] <= 1.3 * box["line"], box
    assert box["right"] <= box["width"], box
    await snap(page, shots, "layout-clock-ru", dark=False)


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_titles_fit_in_every_language(
    server: Server, browser: Contexts, lang: str
) -> None:
    view = settled(6)
    cleo = await open_table(browser, server, view, hands=[last_hand(view)],
                            locale=LOCALES[lang])
    page = cleo.page
    fits = """(sel) => [...document.querySelectorAll(sel)].map((el) => ({text: el.textContent,
      fits: el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight + 1}))"""
    for one in await page.evaluate(fits, ".tools button, .brand .title-main"):
        assert one["fits"], one
    await page.click(".tools [data-action=history]")
    await page.wait_for_selector(".history .result")
    title = await page.evaluate(fits, ".brand .title-main")
    assert title == [{"text": catalog(lang)["history.title"], "fits": True}], title


@pytest.mark.parametrize(("width", "height"), [(390, 844), (844, 390)])
async def test_the_bar_says_what_it_waits_for_once_the_feed_is_live(
    server: Server, browser: Contexts, width: int, height: int
) -> None:
    """The connection turning live repaints the bar's status line: the waiting line stays."""
    view = settled(6)
    cleo = await open_table(browser, server, view, hands=[last_hand(view)], width=width,
                            height=height, locale="ru-RU")
    page = cleo.page  # (open_table waits for the feed to be live)
    assert await page.inner_text("#bar-status") == catalog("ru")["bar.waiting_hand"]
    await all_in_view(page, "#bar-status")


def many_seats(seats: int) -> dict[str, Any]:
    return betting(seats, deadline=time.time() + 59)


@pytest.mark.parametrize("seats", [6, 10])
@pytest.mark.parametrize(("width", "height"), [(844, 390), (1280, 800)])
async def test_a_wide_window_shows_every_seat_the_pot_and_every_button(
    server: Server, browser: Contexts, shots: Path, seats: int, width: int, height: int
) -> None:
    for lang in ("ru", "ar"):
        cleo = await open_table(browser, server, many_seats(seats), width=width, height=height,
                                locale=LOCALES[lang])
        page = cleo.page
        for selector in (".felt .seat", "#pot", "#my-cards", ".action-bar button",
                         ".action-bar input", ".tools button"):
            await all_in_view(page, selector)
        assert await page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        await cleo.look()
        if seats == 6 or width == 844:
            await snap(page, shots, f"layout-wide-{seats}-{width}-{lang}")
