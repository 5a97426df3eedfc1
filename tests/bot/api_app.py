"""The whole app in one process -- the API (`make_app`) on a real TableService on the real
Redis, with the bot attached and talking to the fake Bot API -- and players calling it over
HTTP with initData signed by the bot's token: for what the API and the bot do together
(prepared messages, write access)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from service.api.app import make_app
from service.api.auth import sign_init_data
from service.api.config import Config
from service.tables.facade import User
from service.tables.service import TableService
from tests.bot.botkit import PUBLIC_URL, TOKEN, free_port
from tests.support.fake_bot_api import FakeBotAPI


class ApiApp:
    def __init__(self, url: str, service: TableService, session: aiohttp.ClientSession,
                 token: str) -> None:
        self.url = url
        self.service = service
        self.session = session
        self.token = token

    def headers(self, user: User, *, allows_write_to_pm: bool = False) -> dict[str, str]:
        init = sign_init_data(self.token, user_id=user.id, name=user.name,
                              language_code=user.language_code,
                              allows_write_to_pm=allows_write_to_pm)
        return {"Authorization": f"tma {init}"}

    async def call(self, method: str, path: str, user: User, body: Any = None,
                   **signed: bool) -> tuple[int, Any]:
        async with self.session.request(method, self.url + path, json=body,
                                        headers=self.headers(user, **signed)) as resp:
            return resp.status, await resp.json()


StartApp = Callable[..., Awaitable[ApiApp]]


@pytest.fixture
async def api_app(services: Any, fake_api: FakeBotAPI) -> AsyncIterator[StartApp]:
    runners: list[web.AppRunner] = []
    sessions: list[aiohttp.ClientSession] = []

    async def start(*, bot: bool = True, mode: str = "off", mini_app_name: str | None = None,
                    public_url: str | None = PUBLIC_URL) -> ApiApp:
        service = await services()
        config = Config(bot_token=TOKEN if bot else None, bot_mode=mode if bot else "off",
                        public_url=public_url, telegram_api_url=fake_api.url,
                        mini_app_name=mini_app_name)
        runner = web.AppRunner(make_app(config, tables=service), shutdown_timeout=0.1)
        await runner.setup()
        runners.append(runner)
        port = free_port()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        session = aiohttp.ClientSession()
        sessions.append(session)
        return ApiApp(f"http://127.0.0.1:{port}", service, session, config.signing_token)

    yield start
    for session in sessions:
        await session.close()
    for runner in runners:
        await runner.cleanup()
