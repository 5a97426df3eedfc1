"""A blank page in headless Chromium served next to the web app's static files, so that
`import("/js/fair.js")` loads the very module the app serves (the fair.js tests and
bench/bench_webaudit.py)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from aiohttp import web
from playwright.async_api import Page, async_playwright

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS

STATIC = Path(__file__).resolve().parents[2] / "service" / "api" / "static"


@contextlib.asynccontextmanager
async def fair_page(title: str = "fair.js", timeout_ms: float = 15_000) -> AsyncIterator[Page]:
    app = web.Application()

    async def blank(request: web.Request) -> web.Response:
        return web.Response(text=f"<!doctype html><title>{title}</title>",
                            content_type="text/html")

    app.router.add_get("/", blank)
    app.router.add_static("/js", STATIC / "js")
    runner = web.AppRunner(app)
    await runner.setup()
    try:
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                               timeout=timeout_ms)
            try:
                page = await browser.new_page()
                page.set_default_timeout(timeout_ms)
                await page.goto(f"http://127.0.0.1:{port}/")
                yield page
            finally:
                await browser.close()
    finally:
        await runner.cleanup()
