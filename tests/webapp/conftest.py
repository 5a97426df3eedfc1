"""Fixtures: the real server (one for the session), a headless Chromium (Debian's, never a
downloaded one) with bounded timeouts everywhere, and a store on the test Redis for the
tests that write a hand's log there themselves."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, async_playwright

from events.store.factory import open_redis_store
from events.store.redis_store import RedisEventStore
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, Contexts
from tests.support.redis import REDIS_TEST_URL
from tests.support.serve import APP_ENV, DEV_TOKEN, Server


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server({**APP_ENV, "DEV_TOKEN": DEV_TOKEN},
                 log=tmp_path_factory.mktemp("serve") / "serve.log").spawn()
    try:
        srv.wait_ready(within=60)  # a loaded machine (parallel test runs) starts it slowly
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (never playwright install)")
    return CHROMIUM


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def chromium(chromium_path: str) -> AsyncIterator[Browser]:
    """One Chromium for the whole run (each test opens its own contexts: no shared state)."""
    async with async_playwright() as pw:
        launched = await pw.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS,
                                            timeout=15_000)
        yield launched
        await launched.close()


@pytest_asyncio.fixture(loop_scope="session")
async def browser(chromium: Browser) -> AsyncIterator[Contexts]:
    contexts = Contexts(chromium)
    yield contexts
    for context in contexts.opened:
        await context.close()


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the screenshots go: $SVARA_SHOTS if set (to look at them), else a temp dir."""
    chosen = os.environ.get("SVARA_SHOTS")
    if chosen:
        path = Path(chosen)
        path.mkdir(parents=True, exist_ok=True)
        return path
    return tmp_path_factory.mktemp("shots")


@pytest_asyncio.fixture(loop_scope="session")
async def store() -> AsyncIterator[RedisEventStore]:
    opened = open_redis_store(REDIS_TEST_URL)
    yield opened
    await opened.close()
