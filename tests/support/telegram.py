"""The web app inside a Telegram client made of Telegram's own parts.

The page gets the real `telegram-web-app.js` (the copy the npm package @twa-dev/sdk ships),
served where auth.js asks telegram.org for it. The script talks to Telegram the way it does
in Telegram's apps: it posts its events to `window.TelegramWebviewProxy.postEvent(type,
json)` (defined here before the page loads: every event is recorded in `telegramEvents`,
and the requests for the theme, the viewport and the safe areas are answered as Telegram
answers them), and it hears Telegram through `window.Telegram.WebView.receiveEvent(type,
data)` (`receive`). The launch parameters travel in the URL fragment (`tgWebAppData`,
`tgWebAppVersion`, `tgWebAppPlatform`, `tgWebAppThemeParams`), which the script parses.

initData comes from @telegram-apps/init-data-node's `sign` (an implementation of Telegram's
signing that is not ours), run with node.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import subprocess
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.async_api import Page, Route

from tests.support.browser import Contexts
from tests.support.serve import REPO

NODE_MODULES = REPO / ".npm-test" / "node_modules"
SCRIPT = NODE_MODULES / "@twa-dev" / "sdk" / "dist" / "telegram-web-apps.js"
INIT_DATA_NODE = NODE_MODULES / "@telegram-apps" / "init-data-node"
INSTALL = ("npm install --prefix .npm-test @twa-dev/sdk@8.0.2 "
           "@telegram-apps/init-data-node@2.0.10")
SCRIPT_URL = "https://telegram.org/js/telegram-web-app.js"  # what auth.js loads

# Telegram's own colours (its iOS app's defaults), as it passes them.
LIGHT = {"bg_color": "#ffffff", "secondary_bg_color": "#efeff4", "text_color": "#000000",
         "hint_color": "#8e8e93", "link_color": "#007aff", "button_color": "#007aff",
         "button_text_color": "#ffffff", "section_bg_color": "#ffffff"}
DARK = {"bg_color": "#17212b", "secondary_bg_color": "#232e3c", "text_color": "#f5f5f5",
        "hint_color": "#708499", "link_color": "#6ab3f3", "button_color": "#5288c1",
        "button_text_color": "#ffffff", "section_bg_color": "#17212b"}

HOST_JS = """(host) => {
  window.telegramEvents = [];
  const zero = {top: 0, bottom: 0, left: 0, right: 0};
  const answers = {
    web_app_request_theme: () => ["theme_changed", {theme_params: host.theme}],
    web_app_request_viewport: () => ["viewport_changed", {height: host.height || innerHeight,
      is_expanded: true, is_state_stable: true}],
    web_app_request_safe_area: () => ["safe_area_changed", host.safeArea || zero],
    web_app_request_content_safe_area: () => ["content_safe_area_changed",
      host.contentSafeArea || zero],
  };
  window.TelegramWebviewProxy = {
    postEvent(type, data) {
      let parsed = data;
      try { parsed = JSON.parse(data); } catch { /* kept as sent */ }
      telegramEvents.push({type, data: parsed});
      const answer = answers[type];
      if (answer) setTimeout(() => window.Telegram.WebView.receiveEvent(...answer()));
    },
  };
}"""

SIGN_JS = """
const { sign } = require(process.argv[1]);
const [data, token, authDate] = JSON.parse(process.argv[2]);
process.stdout.write(sign(data, token, new Date(authDate * 1000)));
"""


def require_packages() -> None:
    """Install the two npm packages into `.npm-test/` once, when missing (the README's test
    command alone works on a fresh machine); a lock keeps parallel test workers to one npm."""
    if all(needed.exists() for needed in (SCRIPT, INIT_DATA_NODE)):
        return
    (REPO / ".npm-test").mkdir(exist_ok=True)
    with (REPO / ".npm-test" / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not all(needed.exists() for needed in (SCRIPT, INIT_DATA_NODE)):
            done = subprocess.run([*INSTALL.split(), "--no-audit", "--no-fund"], cwd=REPO,
                                  capture_output=True, text=True, timeout=300, check=False)
            if done.returncode != 0:
                pytest.fail(f"`{INSTALL}` failed: {done.stderr[-2000:]}")
    for needed in (SCRIPT, INIT_DATA_NODE):
        if not needed.exists():
            pytest.fail(f"{needed} is missing: run `{INSTALL}` from the repository's root")


async def sign(token: str, user: dict[str, Any], *, auth_date: int | None = None,
               **fields: Any) -> str:
    """initData for `user` as Telegram signs it with the bot's `token` (now, unless told)."""
    require_packages()
    data = {"user": user, **fields}
    when = int(time.time()) if auth_date is None else auth_date
    proc = await asyncio.create_subprocess_exec(
        "node", "-e", SIGN_JS, str(INIT_DATA_NODE), json.dumps([data, token, when]),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 20)
    assert proc.returncode == 0, err.decode()
    return out.decode()


def fragment(init_data: str, *, theme: dict[str, str] | None = None, platform: str = "ios",
             version: str = "8.0") -> str:
    """The launch parameters as Telegram appends them to the Mini App's URL."""
    parts = [f"tgWebAppData={quote(init_data, safe='')}", f"tgWebAppVersion={version}",
             f"tgWebAppPlatform={platform}"]
    if theme is not None:
        parts.append(f"tgWebAppThemeParams={quote(json.dumps(theme), safe='')}")
    return "#" + "&".join(parts)


async def serve_script(page: Page) -> None:
    """Telegram's script, from the npm package, where the page asks telegram.org for it."""
    require_packages()

    async def real_script(route: Route) -> None:
        await route.fulfill(status=200, content_type="text/javascript",
                            body=SCRIPT.read_bytes())

    await page.route(SCRIPT_URL, real_script)


async def telegram_page(
    browser: Contexts, *, theme: dict[str, str] | None = None,
    safe_area: dict[str, int] | None = None, content_safe_area: dict[str, int] | None = None,
    height: int | None = None, width: int = 390, viewport_height: int = 844, **options: Any,
) -> Page:
    """A page in a Telegram client that answers with `theme` (light by default), the safe
    areas and a visible area `height` px high (the whole window by default); `launch` opens
    the app in it. `pageerror`s collect in `page.errors`."""
    context = await browser.new_context(
        viewport={"width": width, "height": viewport_height}, **options)
    host = {"theme": theme if theme is not None else LIGHT, "safeArea": safe_area,
            "contentSafeArea": content_safe_area, "height": height}
    await context.add_init_script(f"({HOST_JS})({json.dumps(host)})")
    page = await context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors  # type: ignore[attr-defined]
    page.telegram_theme = host["theme"]  # type: ignore[attr-defined]
    await serve_script(page)
    return page


async def launch(page: Page, url: str, init_data: str, *, platform: str = "ios",
                 version: str = "8.0") -> None:
    """Open `url` (the app's address, path and query) as Telegram opens a Mini App, as a
    client of Bot API `version`."""
    theme = page.telegram_theme  # type: ignore[attr-defined]
    await page.goto(url + fragment(init_data, theme=theme, platform=platform, version=version))


async def open_in_telegram(browser: Contexts, url: str, init_data: str, *,
                           platform: str = "ios", **options: Any) -> Page:
    """`telegram_page` (with `options`), then `launch`."""
    page = await telegram_page(browser, **options)
    await launch(page, url, init_data, platform=platform)
    return page


async def sent(page: Page, kind: str | None = None) -> list[dict[str, Any]]:
    """What the script has posted to Telegram so far (only events of `kind`, if given)."""
    events: list[dict[str, Any]] = await page.evaluate("window.telegramEvents")
    return [e for e in events if kind is None or e["type"] == kind]


async def wait_sent(page: Page, kind: str, data: dict[str, Any] | None = None) -> None:
    """Until the script has posted `kind` (with these fields of `data`, if given)."""
    await page.wait_for_function(
        """([kind, data]) => telegramEvents.some((e) => e.type === kind && (data === null
             || Object.entries(data).every(([k, v]) => JSON.stringify(e.data?.[k])
               === JSON.stringify(v))))""",
        arg=[kind, data])


async def receive(page: Page, kind: str, data: Any = None) -> None:
    """Telegram sends the page an event."""
    await page.evaluate("([kind, data]) => Telegram.WebView.receiveEvent(kind, data)",
                        [kind, data])


async def snap_as_is(page: Page, shots: Path, name: str) -> None:
    """A screenshot `<name>.png` of the page in the colours Telegram gave it (inside Telegram
    its theme, not the system's scheme, decides), animations finished first."""
    await page.evaluate("""for (const a of document.getAnimations())
      if (a.effect.getComputedTiming().endTime !== Infinity) a.finish()""")
    await page.screenshot(path=str(shots / f"{name}.png"))
