"""Debian's Chromium (never one downloaded by playwright) and per-test browser contexts."""

from __future__ import annotations

from typing import Any

from playwright.async_api import Browser, BrowserContext

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
