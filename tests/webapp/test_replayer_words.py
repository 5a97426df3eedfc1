"""A tampered hand's reasons in the viewer's language, and the replayer's step list clear of its
controls on a phone.

The corpus's tampered logs (docs/verifier-corpus) are written into Redis as the store keeps them
and read by the real `svara serve`; Chromium opens them inside Telegram's real script. fair.js
gives each failure a code and its values, and the audit screen and the replayer word it from
the catalog of the viewer's language (Russian, Arabic), the event's version filled in; a file
it refuses says why by a code as well. At
390x844 the current step's line is never under the fixed control bar -- a step in the middle,
the last step -- in light and dark, left to right and right to left, with Telegram's safe area
at the bottom.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from events.store.redis_store import RedisEventStore
from tests.support.browser import Contexts
from tests.support.http_player import HttpPlayer
from tests.support.serve import DEV_TOKEN, Server
from tests.support.telegram import DARK, LIGHT, fragment, sign, snap_as_is, telegram_page
from tests.webapp.catalogs import catalog
from tests.webapp.replays import open_replay, own_namespace, serving, store_corpus_table

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.redis]
TAMPERED = "changed-bet-hash-kept"  # the bet's bytes changed, its stored hash kept
MALFORMED = "malformed-field-missing"  # an event without a field it must have: no export
VIEWER = 7_100_000
SAFE_BOTTOM = 34  # an iPhone's home indicator

# The boxes of the current step's line and of the control bar, and the window's height.
BOXES_JS = """() => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
  return {step: box(document.querySelector('#steps .step.current')),
    bar: box(document.querySelector('#replay-bar')), height: innerHeight,
    index: Number(document.querySelector('#replay').dataset.index)};
}"""

# Every code fair.js can give, worded in the page's language, and a code it does not know.
WORDED_JS = """async (params) => {
  const fair = await import('./js/fair.js');
  const words = await import('./js/fairwords.js');
  return {codes: [...fair.REASON_CODES], worded: [...words.WORDED],
    texts: fair.REASON_CODES.map((code) => words.reasonText({code, params})),
    unknown: words.reasonText({code: 'no_such_code', params: {version: 5}}),
    bare: words.reasonText({})};
}"""


@pytest.fixture(scope="module")
def namespace() -> Iterator[str]:
    with own_namespace("webwords") as name:
        yield name


@pytest.fixture(scope="module")
def redis_server(namespace: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(namespace, tmp_path_factory.mktemp("serve-words") / "serve.log") as srv:
        yield srv


@pytest_asyncio.fixture(loop_scope="session")
async def case(store: RedisEventStore, namespace: str) -> dict[str, Any]:
    return await store_corpus_table(store, namespace, TAMPERED)


# the refused file's table is the tampered one's (the same corpus game): a server of its own
@pytest.fixture(scope="module")
def refusing_namespace() -> Iterator[str]:
    with own_namespace("webwords-refused") as name:
        yield name


@pytest.fixture(scope="module")
def refusing_server(refusing_namespace: str,
                    tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(refusing_namespace, tmp_path_factory.mktemp("serve-refused") / "serve.log") as srv:
        yield srv


async def viewer_page(chromium: Browser, server: Server, lang: str, *, dark: bool = False,
                      safe_bottom: int = 0) -> tuple[Page, Contexts, str]:
    """A page in Telegram for the viewer, in `lang`; the launch fragment for its URLs."""
    async with aiohttp.ClientSession() as http:
        api = await HttpPlayer.login(http, server.url, VIEWER, "Viewer")
        await api.ok("POST", "/api/me/settings", {"language": lang})
    contexts = Contexts(chromium)
    theme = DARK if dark else LIGHT
    page = await telegram_page(contexts, theme=theme, safe_area={
        "top": 0, "bottom": safe_bottom, "left": 0, "right": 0})
    init_data = await sign(DEV_TOKEN, {"id": VIEWER, "first_name": "Viewer",
                                       "language_code": lang})
    return page, contexts, fragment(init_data, theme=theme)


def sample_params() -> dict[str, Any]:
    """A value for every placeholder of the English reasons: cards and seats as fair.js gives
    them (seat lists, card lists), numbers for the rest."""
    names = set()
    for key, text in catalog("en").items():
        if key.startswith("fair.reason."):
            names |= set(re.findall(r"\{(\w+)\}", str(text)))
    lists = {"cards": ["7c", "8d", "9h"], "dealt": ["Ac", "Ad", "Ah"], "tied": [0, 1],
             "best": [1], "winners": [0]}
    text = {"type": "looked", "algorithm": "hmac-sha256-fy-v3"}
    return {n: lists.get(n, text.get(n, 0 if n == "seat" else 7)) for n in names}


def worded(lang: str, code: str, version: int) -> str:
    return str(catalog(lang)[f"fair.reason.{code}"]).replace("{version}", str(version))


@pytest.mark.parametrize("lang", ["ru", "ar"])
async def test_a_tampered_hands_reason_reads_in_the_viewers_language(
    redis_server: Server, chromium: Browser, case: dict[str, Any], shots: Path, lang: str
) -> None:
    table, hand, version = case["export"]["table_id"], case["export"]["hand"], case["version"]
    page, contexts, launch = await viewer_page(chromium, redis_server, lang)
    want = worded(lang, "hash_mismatch", version)
    try:
        await open_replay(page, redis_server.url, table, hand, launch)
        assert await page.evaluate("document.documentElement.lang") == lang
        step = page.locator(f"#steps .step[data-version='{version}']")
        reason = step.locator(".broke[data-check=chain] .reason")
        assert await reason.get_attribute("data-code") == "hash_mismatch"
        assert await reason.text_content() == want
        # the chips broke at the same bet: its reason is the catalog's too, a name for the seat
        chips = step.locator(".broke[data-check=chips] .reason")
        code = await chips.get_attribute("data-code")
        text = await chips.text_content() or ""
        assert code and f"fair.reason.{code}" in catalog(lang), code
        head = str(catalog(lang)[f"fair.reason.{code}"]).split("{")[0]
        assert text.startswith(head) and "{" not in text and "seat" not in text, text

        # the audit screen words the same failure the same way
        await page.goto(f"{redis_server.url}/?table={table}&screen=audit&hand={hand}{launch}")
        item = page.locator(f"#audit li[data-check=chain][data-version='{version}'] .reason")
        assert await item.text_content() == want
        await item.scroll_into_view_if_needed()
        await snap_as_is(page, shots, f"audit-tampered-{lang}-light")

        # every code fair.js can give has this language's words, and an unknown code reads as
        # the catalog's general sentence, not as English or a key
        found = await page.evaluate(WORDED_JS, sample_params())
        assert found["codes"] == found["worded"] and len(found["codes"]) >= 40
        general = catalog(lang)["fair.reason.unknown"]
        assert found["unknown"] == found["bare"] == general
        for code, text in zip(found["codes"], found["texts"], strict=True):
            assert text != general and "fair.reason" not in text and "{" not in text, code

        assert not page.errors  # type: ignore[attr-defined]
    finally:
        for context in contexts.opened:
            await context.close()


@pytest.mark.parametrize("lang", ["ru", "ar"])
async def test_a_refused_files_reason_reads_in_the_viewers_language(
    refusing_server: Server, refusing_namespace: str, chromium: Browser, store: RedisEventStore,
    lang: str
) -> None:
    """A file fair.js refuses (an event lacks a field it must have) says why by a code too."""
    malformed = await store_corpus_table(store, refusing_namespace, MALFORMED)
    table, hand = malformed["export"]["table_id"], malformed["export"]["hand"]
    words = catalog(lang)
    refused = str(words["audit.malformed"]).replace("{reason}", str(
        words["fair.malformed.event_damaged"]).replace("{version}", str(malformed["version"])))
    page, contexts, launch = await viewer_page(chromium, refusing_server, lang)
    try:
        await page.goto(f"{refusing_server.url}/?table={table}&screen=audit&hand={hand}{launch}")
        assert await page.locator("#audit-problem").text_content() == refused
        assert not page.errors  # type: ignore[attr-defined]
    finally:
        for context in contexts.opened:
            await context.close()


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["top"] < b["bottom"] and b["top"] < a["bottom"]
            and a["left"] < b["right"] and b["left"] < a["right"])


async def seek(page: Page, index: int) -> dict[str, Any]:
    """Move the replay to step `index` with the slider; the boxes once it is shown."""
    await page.fill("#replay-slider", str(index))
    await page.wait_for_function(
        f"document.querySelector('#replay').dataset.index === '{index}'")
    boxes: dict[str, Any] = await page.evaluate(BOXES_JS)
    return boxes


def clear_of_the_bar(boxes: dict[str, Any], where: Any) -> None:
    """The current step's line whole in the window, above the control bar."""
    step, bar = boxes["step"], boxes["bar"]
    assert not overlap(step, bar), where
    assert step["top"] >= 0 and step["bottom"] <= bar["top"], where
    assert bar["bottom"] <= boxes["height"] + 0.5, where


# the page scrolled so the list's top is `y` px down the window (the viewer scrolled to it)
LIST_AT_JS = """(y) => { window.scrollBy(0, document.querySelector('#steps')
  .getBoundingClientRect().top - y); return scrollY; }"""


LIST_END_AT_BOTTOM_JS = """() => window.scrollBy(0, document.querySelector('#steps')
  .getBoundingClientRect().bottom - innerHeight)"""


@pytest.mark.parametrize("lang", ["ru", "ar"])
async def test_the_current_step_is_never_under_the_controls(
    redis_server: Server, chromium: Browser, case: dict[str, Any], shots: Path, lang: str
) -> None:
    table, hand, version = case["export"]["table_id"], case["export"]["hand"], case["version"]
    for dark in (False, True):
        for safe_bottom in (0, SAFE_BOTTOM):
            page, contexts, launch = await viewer_page(chromium, redis_server, lang, dark=dark,
                                                       safe_bottom=safe_bottom)
            try:
                await open_replay(page, redis_server.url, table, hand, launch)
                count = await page.locator("#steps .step").count()
                tampered = await page.locator(
                    f"#steps .step[data-version='{version}']").get_attribute("data-index")
                assert tampered is not None and count > 8
                middle, last = count // 2, count - 1
                # as opened, the felt in view and the list's top just above the bar: the page
                # moves no more than the step needs to clear the bar
                boxes = await seek(page, middle)
                clear_of_the_bar(boxes, (lang, dark, safe_bottom, "opened", boxes))
                line = boxes["step"]["bottom"] - boxes["step"]["top"]
                assert await page.evaluate("scrollY") <= line + 9  # MARGIN (8), a rounded px
                # the list scrolled into view, its top at several heights of the window (part
                # of it under the bar): the current step is put in the part above the bar
                for list_top in (120, 400, 600, 700):
                    for index in (middle, int(tampered), last, 0, middle):
                        await page.evaluate(LIST_AT_JS, list_top)
                        boxes = await seek(page, index)
                        assert boxes["index"] == index
                        clear_of_the_bar(boxes, (lang, dark, safe_bottom, list_top, index, boxes))
                # the list's end at the window's bottom, under the bar: the last step is
                # reached all the same
                await page.evaluate(LIST_END_AT_BOTTOM_JS)
                boxes = await seek(page, last)
                clear_of_the_bar(boxes, (lang, dark, safe_bottom, "end", boxes))
                if safe_bottom:
                    await page.evaluate(LIST_AT_JS, 360)
                    await seek(page, int(tampered))
                    scheme = "dark" if dark else "light"
                    await snap_as_is(page, shots, f"replayer-tampered-{lang}-{scheme}")
                assert not page.errors  # type: ignore[attr-defined]
            finally:
                for context in contexts.opened:
                    await context.close()
