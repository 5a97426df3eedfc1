"""`make_app(config, tables=None)`: the one aiohttp application (API, WebSocket, web app, bot).

Without `tables` the app builds its own: the event store from REDIS_URL (embedded without it)
and the TableService on top, started and stopped with the app; the bot (unless BOT_MODE=off)
runs on that service. Given `tables` (the API's port, e.g. a test double), the app serves the
API on them and runs no bot: `attach_bot` takes the bot's own, wider port.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import web

from service import metrics
from service.api import looplag
from service.api.auth import secret_key
from service.api.config import Config
from service.api.context import AUTH_CACHE, AUTH_KEY, CONFIG, HEALTH_CHECK, LIMITER, SOCKETS, TABLES
from service.api.ratelimit import RateLimiter
from service.api.routes import add_routes, add_unmatched
from service.api.ws import GATES, Gates, close_all
from service.tables.facade import Tables

if TYPE_CHECKING:
    from service.tables.service import TableService

log = logging.getLogger("svara.api")

STOP_SECONDS = 3.0
STATIC_DIR = Path(__file__).with_name("static")
_PLACEHOLDER = b"""<!doctype html><meta charset="utf-8"><title>Svara</title>
<p>The Svara API is running. The web app is not installed here; see
<a href="/api/openapi.json">/api/openapi.json</a>.</p>"""


async def _web_app(request: web.Request) -> web.StreamResponse:
    """The static web app: files under static/ at the root, index.html at "/"."""
    name = request.match_info.get("path", "") or "index.html"
    if "\x00" in name:  # no file has one; the OS calls would raise ValueError (a 500)
        raise web.HTTPNotFound()
    root = STATIC_DIR.resolve()
    path = (root / name).resolve()
    if path.is_relative_to(root) and path.is_file():
        cache = "no-cache" if path.suffix == ".html" else "public, max-age=300"
        return web.FileResponse(path, headers={"Cache-Control": cache})
    if name == "index.html":
        return web.Response(body=_PLACEHOLDER, content_type="text/html")
    raise web.HTTPNotFound()


async def _metrics(_request: web.Request) -> web.Response:
    """Prometheus text format (service/metrics.py). Not for the public: deploy/nginx.conf
    refuses it, and Prometheus scrapes each replica's port directly (deploy/README.md)."""
    return web.Response(body=metrics.exposition(), headers={"Content-Type": metrics.CONTENT_TYPE})


def make_app(config: Config, tables: Tables | None = None) -> web.Application:
    """The API (and, with BOT_TOKEN, the bot) on `tables`: the app's own TableService when
    none is given. The bot's port is wider than the API's, so it runs only on a TableService;
    other tables (the tests' doubles) get no bot, and asking for one with them is refused."""
    from service.tables.service import TableService

    own: TableService | None = tables if isinstance(tables, TableService) else None
    if tables is not None and own is None and config.bot_enabled:
        raise ValueError("the bot runs on the app's own TableService: pass tables with "
                         "BOT_MODE=off, or attach_bot to a TableService yourself")
    app = web.Application(client_max_size=config.max_body_bytes)
    app[CONFIG] = config
    app[AUTH_KEY] = secret_key(config.signing_token)
    app[LIMITER] = RateLimiter(config.rate_per_second, config.rate_burst)
    app[SOCKETS] = weakref.WeakSet()
    app[AUTH_CACHE] = {}
    app[GATES] = Gates(config.ws_setup_concurrency)
    if tables is None:
        tables = own = _own_service(app, config)
    app[TABLES] = tables
    add_routes(app, dev_mode=config.dev_mode)
    app.router.add_get("/metrics", _metrics)  # before the web app's catch-all
    app.router.add_get(r"/{path:(?!api/|dev/)[^?]*}", _web_app)
    app.on_shutdown.append(close_all)
    app.cleanup_ctx.append(looplag.probe)
    if config.bot_token is not None and own is not None:
        from service.bot import attach_bot

        # Also with BOT_MODE=off: such a replica takes no updates, but the moves made through
        # it are its to tell (turn pings, timeout notices, group results).
        attach_bot(
            app, own, token=config.bot_token, mode=config.bot_mode,
            public_url=config.public_url, telegram_api_url=config.telegram_api_url,
            mini_app_name=config.mini_app_name,
        )
    add_unmatched(app)  # after every other route
    return app


def _own_service(app: web.Application, config: Config) -> TableService:
    """Open the store and the service now; start and stop their workers with the app."""
    from events.store import open_store
    from service.tables.service import TableService

    store = open_store(config.redis_url)
    service = TableService(
        store, namespace=config.namespace, idle_close_seconds=config.idle_close_seconds
    )

    async def lifecycle(_app: web.Application) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            # Bounded: a worker that swallows its cancellation must not keep SIGTERM from
            # ending the process (asyncio.run cancels whatever is left once more at exit).
            stopping = asyncio.create_task(service.stop())
            done, _pending = await asyncio.wait({stopping}, timeout=STOP_SECONDS)
            if not done:
                log.warning("table service workers did not stop within %s s", STOP_SECONDS)
            await store.close()

    app.cleanup_ctx.append(lifecycle)
    app[HEALTH_CHECK] = store.ping
    return service
