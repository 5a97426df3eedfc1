"""`svara serve [--host H] [--port P]`: run the app until SIGTERM/SIGINT, then drain and exit.

In dev mode (no BOT_TOKEN) it opens a practice table at start and prints the URL to open.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import os
import signal
import sys
from typing import Any

from aiohttp import web

from service import logs
from service.api.app import make_app
from service.api.config import Config, ConfigError
from service.api.context import TABLES
from service.game.settings import TableSettings, validated
from service.tables.facade import Tables, User

log = logging.getLogger("svara.serve")
HOUSE = User(id=1, name="House")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="svara serve", description=__doc__)
    parser.add_argument("--host", default=os.environ.get("HOST") or "127.0.0.1")
    parser.add_argument("--port", type=int, default=os.environ.get("PORT") or "8080")
    args = parser.parse_args(argv)
    try:
        config = Config.from_env(os.environ)
    except ConfigError as exc:
        print(f"svara serve: {exc}", file=sys.stderr)
        return 2
    logs.configure(os.environ.get("LOG_LEVEL") or "INFO", config.log_format,
                   secrets=(config.bot_token, config.dev_token))
    with contextlib.suppress(ImportError):
        import uvloop

        uvloop.install()
    try:
        asyncio.run(_serve(config, args.host, args.port))
    except OSError as exc:
        print(f"svara serve: {exc}", file=sys.stderr)
        return 1
    return 0


async def _serve(config: Config, host: str, port: int) -> None:
    app = make_app(config)
    runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=5.0)
    await runner.setup()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_signal() -> None:
        if stop.is_set():  # a second signal while draining: say what we are waiting for
            _log_tasks()
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_signal)
    try:
        # The practice table exists before the port opens: whoever can connect can play.
        table_id = await _practice_table(app, config) if config.dev_mode else None
        site = web.TCPSite(runner, host, port, backlog=config.listen_backlog)
        await site.start()
        _tune_gc()
        url = f"http://{host}:{port}/"
        where = "Redis" if config.redis_url else "the embedded store"
        if config.dev_mode:
            banner = (f"svara: dev mode on {where}; open {url} in a browser"
                      f" (practice table {table_id}: {url}?table={table_id})")
        else:
            banner = f"svara: serving on {url} ({where}, bot {config.bot_mode})"
        if config.log_format == "json":
            log.info("%s", banner)  # nothing on stdout: every line is a JSON log object
        else:
            print(banner, flush=True)
        await stop.wait()
        log.info("stopping: closing sockets and draining requests")
    finally:
        await runner.cleanup()
        log.info("stopped")


def _tune_gc() -> None:
    """Fewer, cheaper collections: everything alive at start-up (modules, the app) is moved
    out of the collector's sight, and the youngest generation is collected every 10 000
    allocations instead of 700 (a request allocates hundreds of short-lived, acyclic objects;
    collecting them that often cost a few percent of CPU and added pauses to the tail)."""
    if os.environ.get("SVARA_GC_TUNING", "1") == "0":
        return
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 20, 20)


def _log_tasks() -> None:
    lines = []
    for task in asyncio.all_tasks():
        chain: list[str] = []
        coro: Any = task.get_coro()
        while coro is not None and len(chain) < 20:  # follow the awaits down
            frame = getattr(coro, "cr_frame", None) or getattr(coro, "ag_frame", None)
            if frame is not None:
                chain.append(f"{frame.f_code.co_name}:{frame.f_lineno}")
            coro = getattr(coro, "cr_await", None) or getattr(coro, "ag_await", None)
        lines.append(f"  {task.get_name()}: {' > '.join(chain)}")
    log.warning("still draining; pending tasks:\n%s", "\n".join(lines))


async def _practice_table(app: web.Application, config: Config) -> str | None:
    """A table with practice bots, so a newcomer has someone to play against at once."""
    try:
        return await open_practice_table(app[TABLES], config.practice_bots)
    except Exception:
        log.exception("could not open the practice table")
        return None


async def open_practice_table(tables: Tables, practice_bots: int) -> str:
    """The house's practice table with a free seat, opened only when there is none: its bots
    never leave, so a table opened at every start would pile up in the lobby, each one more
    "Practice table" beside the others."""
    cursor: str | None = None
    for _ in range(20):  # the house's tables rank among the first pages (live or waiting)
        page = await tables.list_tables(limit=100, cursor=cursor)
        for row in page["tables"]:
            if row.get("created_by") == HOUSE.id and row.get("practice") and row["seats_free"]:
                return str(row["table_id"])
        cursor = page.get("next")
        if cursor is None:
            break
    return await tables.create_table(
        HOUSE, validated(TableSettings(ante=10)), practice_bots=practice_bots
    )
