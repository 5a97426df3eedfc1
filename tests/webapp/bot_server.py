"""`svara serve` with a bot token whose Bot API is the fake one (tests/support/fake_bot_api.py), as
deployed behind an https address: the web app's share button gets real prepared messages
(`savePreparedInlineMessage`), and its download links are https, as Telegram's
`downloadFile` needs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp

from tests.support.fake_bot_api import FakeBotAPI
from tests.support.http_player import HttpPlayer
from tests.support.serve import APP_ENV, Server
from tests.support.telegram import sign
from tests.webapp.tables import new_user_id

TOKEN = "7312204456:AAH-webapp-share-tests-not-a-real-bot"
BOT = "svara_test_bot"
APP = "play"  # MINI_APP_NAME
PUBLIC_URL = "https://svara.test"  # where the links point; the tests fetch them from `url`


@asynccontextmanager
async def serving_with_bot(log: Path, **env: str) -> AsyncIterator[tuple[Server, FakeBotAPI]]:
    """The server (BOT_MODE=off: it sends, it takes no updates) and its fake Bot API."""
    api = FakeBotAPI(TOKEN, username=BOT)
    await api.start()
    srv = Server({**APP_ENV, "BOT_TOKEN": TOKEN, "BOT_MODE": "off",
                  "TELEGRAM_API_URL": api.url, "PUBLIC_URL": PUBLIC_URL, "MINI_APP_NAME": APP,
                  **env}, log=log).spawn()
    try:
        srv.wait_ready()
        yield srv, api
    finally:
        srv.stop()
        await api.stop()


def local(server: Server, url: str) -> str:
    """A link the server gave (on its PUBLIC_URL) as this machine reaches it."""
    assert url.startswith(PUBLIC_URL + "/"), url
    return server.url + url[len(PUBLIC_URL):]


async def telegram_player(http: aiohttp.ClientSession, server: Server, name: str,
                          user_id: int | None = None, **user: Any) -> HttpPlayer:
    """A Telegram user of this server's bot, signed as Telegram signs them."""
    uid = user_id or new_user_id()
    init_data = await sign(TOKEN, {"id": uid, "first_name": name, **user})
    return HttpPlayer(http, server.url, uid, name=name, init_data=init_data)
