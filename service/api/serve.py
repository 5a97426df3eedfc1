"""`svara serve [--host H] [--port P] [--workers N]`: run the app until SIGTERM/SIGINT, then
drain and exit.

In dev mode (no BOT_TOKEN) it opens a practice table at start and prints the URL to open.
With more than one worker (`--workers`, `WORKERS`; by default one per core on Redis) the
processes share the port (service/api/workers.py); the embedded store lives in its process,
so it always runs one.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from aiohttp import web

from service import logs, metrics
from service.api import gcpolicy
from service.api.app import make_app
from service.api.config import Config, ConfigError
from service.api.context import TABLES
from service.api.workers import default_count, supervise
from service.game.settings import TableSettings, validated
from service.tables.facade import Tables, User

log = logging.getLogger("svara.serve")
HOUSE = User(id=1, name="House")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="svara serve", description=__doc__)
    parser.add_argument("--host", default=os.environ.get("HOST") or "127.0.0.1")
    parser.add_argument("--port", type=int, default=os.environ.get("PORT") or "8080")
    parser.add_argument("--workers", type=int, default=None,
                        help="processes serving the port (default: WORKERS, else one per core "
                             "on Redis; always 1 on the embedded store)")
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
    count = worker_count(args.workers, config)
    if count == 1:
        return _run(config, args.host, args.port)
    parent = os.getpid()

    def one(index: int, sock: socket.socket | None, ready: Callable[[], None]) -> int:
        return _run(config, args.host, args.port, Worker(index, count, parent, sock, ready))

    return supervise(count, one, host=args.host, port=args.port, backlog=config.listen_backlog)


def worker_count(requested: int | None, config: Config) -> int:
    """`--workers`, else `WORKERS`, else one per core on Redis; 1 on the embedded store."""
    if requested is not None and requested < 1:
        raise SystemExit("svara serve: --workers must be at least 1")
    asked = requested or config.workers
    if config.redis_url is None:
        if asked and asked > 1:
            log.warning("the embedded store lives in this process: serving with 1 worker, "
                        "not %d (set REDIS_URL for more)", asked)
        return 1
    count = asked or default_count()
    if count > 1 and not hasattr(os, "fork"):  # the workers are forked (service/api/workers.py)
        log.warning("no fork on this system: serving with 1 worker, not %d", count)
        return 1
    return count


class Worker:
    """One of several processes on the port: its index (0 takes the bot's updates and opens
    the practice table), how many there are, the parent to outlive, the listening socket it
    inherited (None: bind its own with SO_REUSEPORT), and what to call once it serves."""

    def __init__(self, index: int, count: int, parent: int, sock: socket.socket | None,
                 ready: Callable[[], None]) -> None:
        self.index, self.count, self.parent, self.sock = index, count, parent, sock
        self.ready = ready


def _run(config: Config, host: str, port: int, worker: Worker | None = None) -> int:
    try:
        asyncio.run(_serve(config, host, port, worker))
    except OSError as exc:
        print(f"svara serve: {exc}", file=sys.stderr)
        return 1
    return 0


async def _serve(config: Config, host: str, port: int, worker: Worker | None = None) -> None:
    index = worker.index if worker is not None else 0
    if index > 0 and config.bot_mode == "polling":
        # Telegram hands updates to one getUpdates at a time: the others only send (their
        # players' turn pings, timeouts, results), as a replica with BOT_MODE=off does.
        config = replace(config, bot_mode="off")
    metrics.worker_started(index)
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
    collector: asyncio.Task[None] | None = None
    try:
        # The practice table exists before the port opens: whoever can connect can play.
        practice = config.dev_mode and index == 0
        table_id = await _practice_table(app, config) if practice else None
        site: web.BaseSite
        if worker is not None and worker.sock is not None:
            site = web.SockSite(runner, worker.sock)
        else:
            site = web.TCPSite(runner, host, port, backlog=config.listen_backlog,
                               reuse_port=worker is not None)
        await site.start()
        collector = gcpolicy.install()
        if worker is not None:
            worker.ready()
            _outlive_parent(worker.parent, stop)
        url = f"http://{host}:{port}/"
        if index == 0:
            _announce(config, url, table_id, worker)
        else:
            log.info("worker %d (pid %d) serving on %s", index, os.getpid(), url)
        await stop.wait()
        log.info("stopping: closing sockets and draining requests")
    finally:
        if collector is not None:
            collector.cancel()
        await runner.cleanup()
        log.info("stopped")


def _announce(config: Config, url: str, table_id: str | None, worker: Worker | None) -> None:
    where = "Redis" if config.redis_url else "the embedded store"
    if worker is not None:
        how = "SO_REUSEPORT" if worker.sock is None else "one shared socket"
        where += f", {worker.count} workers on {how}"
    if config.dev_mode:
        banner = (f"svara: dev mode on {where}; open {url} in a browser"
                  f" (practice table {table_id}: {url}?table={table_id})")
    else:
        banner = f"svara: serving on {url} ({where}, bot {config.bot_mode})"
    if config.log_format == "json":
        log.info("%s", banner)  # nothing on stdout: every line is a JSON log object
    else:
        print(banner, flush=True)


def _outlive_parent(parent: int, stop: asyncio.Event) -> None:
    """A worker whose parent died (kill -9) stops: nothing would stop it, or restart it."""
    loop = asyncio.get_running_loop()

    def look() -> None:
        if os.getppid() != parent:
            log.warning("the parent process is gone: stopping")
            stop.set()
        elif not stop.is_set():
            loop.call_later(1.0, look)

    loop.call_later(1.0, look)


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
