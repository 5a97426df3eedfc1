"""`svara serve` with two workers and a polling bot, against the real Redis and the fake Bot
API: Telegram sees one getUpdates loop (worker 0's), and an update is answered once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.bot.botkit import TOKEN, free_port
from tests.bot.serving import to_chat
from tests.support.fake_bot_api import FakeBotAPI, message_update
from tests.support.serve import Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]


async def test_two_workers_poll_once(fake_api: FakeBotAPI, redis_url: str, unique: str,
                                     tmp_path: Path) -> None:
    env = {"REDIS_URL": redis_url, "SVARA_NAMESPACE": f"workers-{unique}", "BOT_TOKEN": TOKEN,
           "BOT_MODE": "polling", "TELEGRAM_API_URL": fake_api.url, "WORKERS": "2",
           "PUBLIC_URL": "https://svara.example", "LOG_LEVEL": "INFO"}
    server = Server(env, free_port(), log=tmp_path / "serve.log").spawn()
    try:
        await asyncio.to_thread(server.wait_ready)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60
        while "worker 1 (pid" not in server.output():  # both are up
            assert loop.time() < deadline, server.output()[-2000:]
            await asyncio.sleep(0.1)
        calls = len(fake_api.calls_of("getUpdates"))
        # Long polls of a second loop would overlap the first's: let several go by.
        await fake_api.wait_until(lambda: len(fake_api.calls_of("getUpdates")) >= calls + 3,
                                  within=30)
        fake_api.push_update(message_update("/start", user_id=51))
        await fake_api.wait_for("sendMessage", to_chat(51), within=15)
        await fake_api.wait_until(lambda: len(fake_api.calls_of("getUpdates")) >= calls + 5,
                                  within=30)
        assert fake_api.most_polling == 1
        assert len(fake_api.calls_of("deleteWebhook")) == 1  # only a poller clears the webhook
        assert len(fake_api.sent_to(51)) == 1
    finally:
        code = await asyncio.to_thread(server.stop)
    assert code == 0, server.output()[-2000:]
    assert "(Redis, 2 workers on SO_REUSEPORT, bot polling)" in server.output()
