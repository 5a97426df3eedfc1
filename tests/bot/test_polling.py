"""The bot in long-polling mode, driven through the fake Bot API's getUpdates."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest
from aiohttp import web

from service.bot import attach_bot, texts
from service.bot.runner import BOT_KEY
from service.game.settings import TableSettings
from service.tables.facade import User
from tests.bot.botkit import PUBLIC_URL, TOKEN, BotApp, say
from tests.bot.tables_stub import StubTables
from tests.support.fake_bot_api import Call, FakeBotAPI, message_update


def button(call: Call) -> dict[str, object]:
    [[only]] = call.params["reply_markup"]["inline_keyboard"]
    assert isinstance(only, dict)
    return only


def to_chat(chat_id: int) -> object:
    return lambda call: int(call.params["chat_id"]) == chat_id


async def test_start_answers_with_a_play_button(
    fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    await bot_app(stub_tables, mode="polling")
    fake_api.push_update(message_update("/start", user_id=11))
    sent = await fake_api.wait_for("sendMessage", to_chat(11))
    assert sent.params["text"] == say("en", texts.greeting)
    assert button(sent) == {"text": say("en", texts.play_button),
                            "web_app": {"url": PUBLIC_URL + "/"}}
    # getUpdates is refused while a webhook is set, so the bot deletes it first.
    names = [c.method for c in fake_api.calls]
    assert names.index("deleteWebhook") < names.index("getUpdates")


async def test_deep_link_opens_that_table(
    fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    await bot_app(stub_tables, mode="polling")
    table_id = await stub_tables.create_table(User(1, "Ana"), TableSettings(ante=10))
    fake_api.push_update(message_update(f"/start table_{table_id}", user_id=12))
    sent = await fake_api.wait_for("sendMessage", to_chat(12))
    assert sent.params["text"] == say("en", texts.table_invite, table_id)
    assert button(sent)["web_app"] == {"url": f"{PUBLIC_URL}/?table={table_id}"}


async def test_deep_link_to_an_unknown_table_says_so(
    fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    await bot_app(stub_tables, mode="polling")
    fake_api.push_update(message_update("/start table_nosuchtable", user_id=13))
    sent = await fake_api.wait_for("sendMessage", to_chat(13))
    assert sent.params["text"] == say("en", texts.table_gone, "nosuchtable")
    assert button(sent)["web_app"] == {"url": PUBLIC_URL + "/"}


async def test_foreign_start_payload_is_a_plain_start(
    fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    await bot_app(stub_tables, mode="polling")
    fake_api.push_update(message_update("/start table_../../etc", user_id=14))
    sent = await fake_api.wait_for("sendMessage", to_chat(14))
    assert sent.params["text"] == say("en", texts.greeting)


async def test_help_and_rules(
    fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    await bot_app(stub_tables, mode="polling")
    fake_api.push_update(message_update("/help", user_id=15))
    fake_api.push_update(message_update("/rules", user_id=16))
    help_sent = await fake_api.wait_for("sendMessage", to_chat(15))
    assert help_sent.params["text"] == say("en", texts.help_text)
    rules_sent = await fake_api.wait_for("sendMessage", to_chat(16))
    assert rules_sent.params["text"] == say("en", texts.rules)


async def test_without_public_url_there_is_no_button(
    fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    await bot_app(stub_tables, mode="polling", public_url=None)
    fake_api.push_update(message_update("/start", user_id=17))
    sent = await fake_api.wait_for("sendMessage", to_chat(17))
    assert sent.params["text"] == say("en", texts.greeting_no_app)
    assert "reply_markup" not in sent.params


async def test_polling_stops_cleanly(fake_api: FakeBotAPI, stub_tables: StubTables) -> None:
    app = web.Application()
    attach_bot(app, stub_tables, token=TOKEN, mode="polling", public_url=PUBLIC_URL,
               telegram_api_url=fake_api.url)
    runner = web.AppRunner(app)
    await runner.setup()
    await fake_api.wait_for("getUpdates")
    started = time.monotonic()
    await asyncio.wait_for(runner.cleanup(), 5)
    assert time.monotonic() - started < 3  # a long poll in flight is cancelled, not awaited
    assert app[BOT_KEY].session._session is None or app[BOT_KEY].session._session.closed
    polls = len(fake_api.calls_of("getUpdates"))
    await asyncio.sleep(0.3)
    assert len(fake_api.calls_of("getUpdates")) == polls  # nobody polls any more



async def test_a_refused_token_is_logged_and_shutdown_stays_clean(
    fake_api: FakeBotAPI, stub_tables: StubTables, caplog: pytest.LogCaptureFixture
) -> None:
    app = web.Application()
    attach_bot(app, stub_tables, token="999:revoked", mode="polling", public_url=PUBLIC_URL,
               telegram_api_url=fake_api.url)  # the fake answers 401 to any other token
    runner = web.AppRunner(app)
    with caplog.at_level(logging.ERROR, logger="service.bot.runner"):
        await runner.setup()
        async with asyncio.timeout(5):
            while not any("stopped polling" in r.message for r in caplog.records):  # noqa: ASYNC110
                await asyncio.sleep(0.05)
    await asyncio.wait_for(runner.cleanup(), 5)  # no exception escapes the cleanup
