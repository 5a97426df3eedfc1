"""Debian's Chromium (never one downloaded by playwright) and per-test browser contexts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.async_api import Browser, BrowserContext, Page

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


class Contexts:
    """Opens browser contexts (one per person) and closes them after the test, so no page
    of an earlier test keeps polling or holding sockets."""

    def __init__(self, chromium: Browser) -> None:
        self.chromium = chromium
        self.opened: list[BrowserContext] = []

    async def new_context(self, **options: Any) -> BrowserContext:
        context = await self.chromium.new_context(**options)
        self.opened.append(context)
        return context


async def snap(
    page: Page, shots: Path, name: str, *, dark: bool = True, full: bool = False
) -> None:
    """Screenshots of what the page shows now, light and (unless told not to) dark, at the
    page's own size (`full`: the whole page, scrolled): `<name>-light.png`, `<name>-dark.png`.
    Animations are finished first."""
    await page.evaluate("""for (const a of document.getAnimations())
      if (a.effect.getComputedTiming().endTime !== Infinity) a.finish()""")
    for scheme in ("light", "dark") if dark else ("light",):
        await page.emulate_media(color_scheme=scheme)
        await page.screenshot(path=str(shots / f"{name}-{scheme}.png"), full_page=full)
    await page.emulate_media(color_scheme="light")


LAYOUT_JS = """() => {
  const visible = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const bar = document.querySelector('.action-bar');
  const box = bar && bar.getBoundingClientRect();
  const targets = 'button, input:not([type=checkbox]), select, summary';
  const small = [...document.querySelectorAll(targets)]
    .filter(visible).filter((el) => !el.closest('.sheet-back'))
    .map((el) => ({el: el.dataset.action || el.dataset.quick || el.id || el.className || el.tagName,
                   w: el.getBoundingClientRect().width, h: el.getBoundingClientRect().height}))
    .filter((t) => t.w < 44 || t.h < 44);
  const type = '.seat .name, .seat .stack, .my-row strong, .wallet-who .name, .table-name';
  const tiny = [...document.querySelectorAll(type)].filter(visible)
    .map((el) => ({text: el.textContent, px: parseFloat(getComputedStyle(el).fontSize)}))
    .filter((t) => t.px < 14);
  return {
    width: window.innerWidth, height: window.innerHeight,
    scrollWidth: document.documentElement.scrollWidth,
    bar: box ? {top: box.top, bottom: box.bottom, left: box.left, right: box.right} : null,
    small, tiny,
  };
}"""


async def check_layout(page: Page, *, bar: bool = True) -> dict[str, Any]:
    """What a phone screen must keep: no sideways scrolling, the action bar wholly on screen,
    names and stacks at 14 px or more, every button and field at least 44 px each way."""
    found: dict[str, Any] = await page.evaluate(LAYOUT_JS)
    assert found["scrollWidth"] <= found["width"], f"horizontal scroll: {found}"
    if bar:
        box = found["bar"]
        assert box is not None, "no action bar"
        assert box["top"] >= 0 and box["bottom"] <= found["height"], f"bar off screen: {found}"
        assert box["left"] >= 0 and box["right"] <= found["width"], f"bar off screen: {found}"
    assert not found["tiny"], f"type under 14 px: {found['tiny']}"
    assert not found["small"], f"tap targets under 44 px: {found['small']}"
    return found
