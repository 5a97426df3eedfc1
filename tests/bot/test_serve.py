"""The bot inside the real `svara serve` process (embedded store), wired by the API's app
factory from the environment, talking to the fake Bot API in both modes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from service.bot import texts
from service.bot.config import WEBHOOK_PATH, webhook_secret
from tests.bot.botkit import PORTS, TOKEN, free_port, say
from tests.support.fake_bot_api import FakeBotAPI, message_update
from tests.support.serve import APP_ENV, Server

pytestmark = pytest.mark.slow

StartServer = Callable[..., Server]


@pytest.fixture
async def serve(tmp_path: Path) -> AsyncIterator[StartServer]:
    servers: list[Server] = []

    def start(**env: str) -> Server:
        port = free_port()
        env = {k: v.format(port=port) for k, v in env.items()}
        srv = Server({**APP_ENV, **env}, port, log=tmp_path / f"serve-{len(servers)}.log").spawn()
        servers.append(srv)
        srv.wait_ready(within=60)  # importing aiogram alone takes 10 s on a loaded machine
        return srv

    yield start
    for srv in servers:
        if srv.running():
            srv.stop()


def to_chat(chat_id: int) -> Callable[..., bool]:
    return lambda call: str(call.params["chat_id"]) == str(chat_id)


async def test_polling_bot_in_svara_serve(fake_api: FakeBotAPI, serve: StartServer) -> None:
    srv = await asyncio.to_thread(serve, BOT_TOKEN=TOKEN, BOT_MODE="polling",
                                  TELEGRAM_API_URL=fake_api.url,
                                  PUBLIC_URL="https://svara.example")
    assert srv.port in PORTS
    fake_api.push_update(message_update("/newtable 15 3", user_id=41, first_name="Gala",
                                        chat_id=-400, chat_type="group"))
    posted = await fake_api.wait_for("sendMessage", to_chat(-400), within=10)
    [[link]] = posted.params["reply_markup"]["inline_keyboard"]
    payload = link["url"].split("?start=", 1)[1]
    fake_api.push_update(message_update(f"/start {payload}", user_id=42))
    sent = await fake_api.wait_for("sendMessage", to_chat(42), within=10)
    [[button]] = sent.params["reply_markup"]["inline_keyboard"]
    table_id = payload.removeprefix("table_")
    assert button["web_app"]["url"] == f"https://svara.example/?table={table_id}"

    assert await asyncio.to_thread(srv.stop) == 0  # SIGTERM: a clean exit
    polls = len(fake_api.calls_of("getUpdates"))
    await asyncio.sleep(0.5)
    assert len(fake_api.calls_of("getUpdates")) == polls


async def test_webhook_bot_in_svara_serve(fake_api: FakeBotAPI, serve: StartServer) -> None:
    srv = await asyncio.to_thread(serve, BOT_TOKEN=TOKEN, BOT_MODE="webhook",
                                  TELEGRAM_API_URL=fake_api.url,
                                  PUBLIC_URL="http://127.0.0.1:{port}")
    hook = (await fake_api.wait_for("setWebhook", within=10)).params
    assert hook["url"] == srv.url + WEBHOOK_PATH
    assert hook["secret_token"] == webhook_secret(TOKEN)
    # The fake plays Telegram: it POSTs to the registered URL with the registered secret.
    assert await fake_api.deliver(message_update("/start", user_id=43)) == 200
    sent = await fake_api.wait_for("sendMessage", to_chat(43), within=10)
    assert sent.params["text"] == say("en", texts.greeting)
    [[button]] = sent.params["reply_markup"]["inline_keyboard"]
    assert button["url"] == srv.url + "/"  # plain http: a link, not a Web App button
    assert await fake_api.deliver(message_update("/help", user_id=44), secret="wrong") == 401
    assert await asyncio.to_thread(srv.stop) == 0
