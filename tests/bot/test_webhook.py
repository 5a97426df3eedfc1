"""The bot in webhook mode: Telegram (the fake) POSTs updates to /telegram/webhook."""

from __future__ import annotations

import asyncio

from aiohttp import web

from service.bot import attach_bot, texts
from service.bot.config import WEBHOOK_PATH, webhook_secret
from service.game.settings import TableSettings
from service.tables.facade import User
from tests.bot.botkit import PUBLIC_URL, TOKEN, BotApp, free_port, say
from tests.bot.tables_stub import StubTables
from tests.support.fake_bot_api import FakeBotAPI, message_update


async def test_startup_registers_the_webhook_with_a_secret(
    fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    await bot_app(stub_tables, mode="webhook")
    hook = (await fake_api.wait_for("setWebhook")).params
    assert hook["url"] == PUBLIC_URL + WEBHOOK_PATH
    assert hook["secret_token"] == webhook_secret(TOKEN)
    assert "message" in hook["allowed_updates"]
    assert not fake_api.calls_of("getUpdates")  # webhook mode never polls


async def test_update_posted_to_the_webhook_is_answered(
    fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    base = await bot_app(stub_tables, mode="webhook")
    table_id = await stub_tables.create_table(User(1, "Ana"), TableSettings(ante=5))
    status = await fake_api.deliver(
        message_update(f"/start table_{table_id}", user_id=21), url=base + WEBHOOK_PATH,
        secret=webhook_secret(TOKEN),
    )
    assert status == 200
    sent = await fake_api.wait_for("sendMessage", lambda c: c.params["chat_id"] == "21")
    [[button]] = sent.params["reply_markup"]["inline_keyboard"]
    assert button["web_app"]["url"] == f"{PUBLIC_URL}/?table={table_id}"
    assert sent.params["text"] == say("en", texts.table_invite, table_id)


async def test_webhook_refuses_a_wrong_secret(
    fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    base = await bot_app(stub_tables, mode="webhook")
    for secret in ("", "guess"):
        status = await fake_api.deliver(
            message_update("/start", user_id=22), url=base + WEBHOOK_PATH, secret=secret
        )
        assert status == 401
    await asyncio.sleep(0.2)
    assert not fake_api.calls_of("sendMessage")


async def test_newtable_in_a_group_posts_a_deep_link(
    fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    base = await bot_app(stub_tables, mode="webhook")
    url, secret = base + WEBHOOK_PATH, webhook_secret(TOKEN)
    update = message_update("/newtable 20 4", user_id=23, first_name="Boris", chat_id=-100,
                            chat_type="supergroup")
    assert await fake_api.deliver(update, url=url, secret=secret) == 200
    sent = await fake_api.wait_for("sendMessage", lambda c: c.params["chat_id"] == "-100")
    [(table_id, (user, settings))] = stub_tables.created.items()
    assert user == User(23, "Boris")
    assert (settings.ante, settings.max_seats) == (20, 4)
    [[button]] = sent.params["reply_markup"]["inline_keyboard"]
    assert button["url"] == f"https://t.me/{fake_api.username}?start=table_{table_id}"
    assert "web_app" not in button  # Telegram allows web_app buttons in private chats only


async def test_newtable_with_bad_arguments_explains(
    fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    base = await bot_app(stub_tables, mode="webhook")
    url, secret = base + WEBHOOK_PATH, webhook_secret(TOKEN)
    for n, args in enumerate(["ten", "10 11", "0", "1 2 3"]):
        update = message_update(f"/newtable {args}", user_id=24, chat_id=-200 - n,
                                chat_type="group")
        assert await fake_api.deliver(update, url=url, secret=secret) == 200
        chat = str(-200 - n)
        sent = await fake_api.wait_for(
            "sendMessage", lambda c, chat=chat: c.params["chat_id"] == chat
        )
        assert say("en", texts.newtable_usage) in sent.params["text"]
    assert not stub_tables.created


async def test_newtable_in_private_points_to_the_lobby(
    fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    base = await bot_app(stub_tables, mode="webhook")
    update = message_update("/newtable", user_id=25)
    assert await fake_api.deliver(update, url=base + WEBHOOK_PATH,
                                  secret=webhook_secret(TOKEN)) == 200
    sent = await fake_api.wait_for("sendMessage", lambda c: c.params["chat_id"] == "25")
    assert sent.params["text"] == say("en", texts.newtable_private)
    assert not stub_tables.created


async def test_webhook_mode_stops_cleanly_and_keeps_the_webhook(
    fake_api: FakeBotAPI, stub_tables: StubTables
) -> None:
    app = web.Application()
    attach_bot(app, stub_tables, token=TOKEN, mode="webhook", public_url=PUBLIC_URL,
               telegram_api_url=fake_api.url)
    runner = web.AppRunner(app, shutdown_timeout=0.1)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", free_port()).start()
    await fake_api.wait_for("setWebhook")
    await asyncio.wait_for(runner.cleanup(), 5)
    # Other replicas still serve the webhook, so shutting one down must not delete it.
    assert not fake_api.calls_of("deleteWebhook")


async def test_a_failing_handler_apologises_and_the_bot_goes_on(
    fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    async def broken(*args: object, **kwargs: object) -> str:
        raise RuntimeError("store on fire")

    stub_tables.create_table = broken  # type: ignore[method-assign]
    base = await bot_app(stub_tables, mode="webhook")
    url, secret = base + WEBHOOK_PATH, webhook_secret(TOKEN)
    update = message_update("/newtable", user_id=26, chat_id=-600, chat_type="group")
    assert await fake_api.deliver(update, url=url, secret=secret) == 200
    sent = await fake_api.wait_for("sendMessage", lambda c: c.params["chat_id"] == "-600")
    assert sent.params["text"] == say("en", texts.sorry)
    assert await fake_api.deliver(message_update("/help", user_id=27), url=url,
                                  secret=secret) == 200
    sent = await fake_api.wait_for("sendMessage", lambda c: c.params["chat_id"] == "27")
    assert sent.params["text"] == say("en", texts.help_text)
