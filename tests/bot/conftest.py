"""Fixtures: a fake Bot API server and an aiohttp app with the bot attached to it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from service.bot import attach_bot
from service.bot.ports import LiveTables
from service.bot.runner import WATCH_KEY
from service.bot.watch import TableWatch
from tests.bot.botkit import PUBLIC_URL, TOKEN, BotApp, free_port
from tests.bot.live import Live
from tests.bot.serving import Deployment
from tests.bot.tables_stub import StubTables
from tests.support.clock import FakeClock
from tests.support.fake_bot_api import FakeBotAPI
from tests.support.redis import REDIS_TEST_URL, delete_matching
from tests.support.services import Factory


@pytest.fixture(autouse=True)
async def _delete_what_the_test_made(unique: str) -> AsyncIterator[None]:
    """Every key a test of this suite writes to the shared Redis has its `unique` id in it
    (namespaces, key-value names): delete them afterwards."""
    yield
    await delete_matching(REDIS_TEST_URL, f"*{unique}*")


@pytest.fixture
async def fake_api() -> AsyncIterator[FakeBotAPI]:
    api = FakeBotAPI(TOKEN)
    await api.start()
    yield api
    await api.stop()


@pytest.fixture
def stub_tables() -> StubTables:
    return StubTables()


@pytest.fixture
def bot_watches() -> list[TableWatch]:
    """The table watch of every bot `bot_app` started, in order (to wait until they are idle)."""
    return []


@pytest.fixture
async def bot_app(fake_api: FakeBotAPI, bot_watches: list[TableWatch]) -> AsyncIterator[BotApp]:
    """Start an aiohttp app (on a real port) with the bot attached; returns its base URL."""
    runners: list[web.AppRunner] = []

    async def start(tables: LiveTables, *, mode: str, public_url: str | None = PUBLIC_URL,
                    mini_app_name: str | None = None) -> str:
        app = web.Application()
        attach_bot(app, tables, token=TOKEN, mode=mode, public_url=public_url,
                   telegram_api_url=fake_api.url, mini_app_name=mini_app_name)
        runner = web.AppRunner(app, shutdown_timeout=0.1)
        await runner.setup()
        runners.append(runner)
        bot_watches.append(app[WATCH_KEY])
        port = free_port()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        return f"http://127.0.0.1:{port}"

    yield start
    for runner in runners:
        await runner.cleanup()


@pytest.fixture
async def deployment(
    tmp_path: Path, fake_api: FakeBotAPI, redis_url: str, unique: str
) -> AsyncIterator[Deployment]:
    """`svara serve` replicas of one deployment (`tests.bot.serving`), stopped afterwards."""
    made = Deployment(tmp_path, fake_api, redis_url, f"bot{unique}")
    yield made
    await asyncio.to_thread(made.stop)


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


@pytest.fixture
async def live(services: Factory, clock: FakeClock, fake_api: FakeBotAPI,
               bot_app: BotApp) -> Live:
    """A TableService on the real Redis with the bot attached (polling the fake Bot API)."""
    service = await services()
    await bot_app(service, mode="polling")
    return Live(service, clock, fake_api)
