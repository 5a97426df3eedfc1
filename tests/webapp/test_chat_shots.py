"""The quick chat on a phone (390x844) in Telegram's light and dark themes, in Russian and
Arabic (right to left): a bubble over a seat and an away seat, the sheet, the log. The
screenshots go to $SVARA_SHOTS to be looked at; the test checks that nothing spills out of
the screen and every button in the sheet can be tapped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.async_api import Page, Route

from tests.support.browser import Contexts
from tests.support.serve import Server
from tests.support.telegram import DARK, LIGHT, snap_as_is
from tests.webapp.chatting import person, until_bubble

pytestmark = pytest.mark.asyncio(loop_scope="session")

FITS_JS = """(sel) => {
  const box = document.querySelector(sel).getBoundingClientRect();
  const small = [...document.querySelectorAll(`${sel} button`)]
    .map((b) => b.getBoundingClientRect()).filter((r) => r.height < 44).length;
  return {left: box.left, right: box.right, top: box.top, bottom: box.bottom, small,
          width: innerWidth, height: innerHeight,
          scroll: document.documentElement.scrollWidth};
}"""


def _font() -> bytes | None:
    path = os.environ.get("SVARA_EMOJI_FONT")
    return Path(path).read_bytes() if path else None


async def emoji_font(page: Page) -> None:
    """A colour emoji font as a phone has one, for the screenshots, where the machine has
    none: $SVARA_EMOJI_FONT (a NotoColorEmoji.ttf), served to the page under its name."""
    data = _font()
    if data is None:
        return

    async def font(route: Route) -> None:
        await route.fulfill(status=200, content_type="font/ttf", body=data)

    await page.route("**/test-emoji.ttf", font)
    await page.add_style_tag(content="@font-face { font-family: 'Noto Color Emoji'; "
                             "src: url('/test-emoji.ttf'); }")
    await page.evaluate("document.fonts.load('1em \"Noto Color Emoji\"', '🔥')")


def inside(found: dict[str, float]) -> None:
    assert found["left"] >= 0 and found["right"] <= found["width"], found
    assert found["top"] >= 0 and found["bottom"] <= found["height"], found
    assert found["scroll"] <= found["width"], found
    assert found["small"] == 0, found


@pytest.mark.parametrize("lang", ["ru", "ar"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_chat_on_a_phone(server: Server, browser: Contexts, shots: Path, lang: str,
                               scheme: str) -> None:
    me, other = await person("Мила" if lang == "ru" else "ليلى", lang), await person("Bob", "en")
    table = await me.table(server.url)
    await me.sit(server.url, table)
    await other.sit(server.url, table)  # never opens the table: away to the others
    page = await me.open(browser, server.url, table, theme=LIGHT if scheme == "light" else DARK)
    await page.wait_for_selector(".seat[data-seat='1'] .tag.away")
    await emoji_font(page)
    await other.say(server.url, table, phrase="nice_hand")
    text = "Отличная рука!" if lang == "ru" else "يد رائعة!"
    await until_bubble(page, 1, text)
    await me.say(server.url, table, reaction="fire")
    await until_bubble(page, 0, "🔥")
    inside(await page.evaluate(FITS_JS, ".seat[data-seat='1'] .bubble"))
    await snap_as_is(page, shots, f"chat-bubble-{lang}-{scheme}")
    await page.click(".chat-open")
    await page.wait_for_selector("#chat-phrases [data-phrase]")
    inside(await page.evaluate(FITS_JS, "#chat-sheet"))
    await snap_as_is(page, shots, f"chat-sheet-{lang}-{scheme}")
    await page.click("[data-action=chat-log]")
    await page.wait_for_selector("#chat-lines .chat-line")
    inside(await page.evaluate(FITS_JS, "#chat-log"))
    await snap_as_is(page, shots, f"chat-log-{lang}-{scheme}")
    assert page.errors == []  # type: ignore[attr-defined]
