"""Fixtures for the API tests: an in-process app on the fake service, and signed users."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from service.api.app import make_app
from service.api.config import Config
from tests.support.fake_tables import FakeTables
from tests.support.signed import TOKEN


@pytest.fixture
def fake() -> FakeTables:
    return FakeTables()


@pytest.fixture
def config() -> Config:
    return Config(bot_token=TOKEN, bot_mode="off", rate_per_second=50, rate_burst=50,
                  max_body_bytes=4096, ws_queue_size=8,
                  ws_send_timeout_seconds=0.3)


@pytest.fixture
async def client(
    fake: FakeTables, config: Config
) -> AsyncIterator[TestClient[web.Request, web.Application]]:
    async with TestClient(TestServer(make_app(config, tables=fake))) as c:
        yield c
