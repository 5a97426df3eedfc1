"""/newtable and deep links against the real TableService on the embedded store."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from events.store import open_store
from service.bot import texts
from service.bot.config import WEBHOOK_PATH, webhook_secret
from service.tables.facade import User
from service.tables.service import TableService
from tests.bot.botkit import PUBLIC_URL, TOKEN, BotApp, say
from tests.support.fake_bot_api import FakeBotAPI, message_update


@pytest.fixture
async def service() -> AsyncIterator[TableService]:
    store = open_store(None)
    yield TableService(store)
    await store.close()


async def test_group_table_then_deep_link_then_web_app(
    fake_api: FakeBotAPI, bot_app: BotApp, service: TableService
) -> None:
    base = await bot_app(service, mode="webhook")
    url, secret = base + WEBHOOK_PATH, webhook_secret(TOKEN)

    # In the group: /newtable creates a real table and posts a deep link to it.
    group = message_update("/newtable@svara_test_bot 20 4", user_id=31, first_name="Dana",
                           chat_id=-300, chat_type="supergroup")
    assert await fake_api.deliver(group, url=url, secret=secret) == 200
    posted = await fake_api.wait_for("sendMessage", lambda c: c.params["chat_id"] == "-300")
    [[link]] = posted.params["reply_markup"]["inline_keyboard"]
    prefix = f"https://t.me/{fake_api.username}?start="
    assert link["url"].startswith(prefix)
    payload = link["url"][len(prefix):]
    table_id = payload.removeprefix("table_")
    view = await service.view(User(31, "Dana"), table_id)
    assert (view["settings"]["ante"], view["settings"]["max_seats"]) == (20, 4)
    assert [t["table_id"] for t in (await service.list_tables())["tables"]] == [table_id]

    # A member taps it: Telegram sends /start <payload> in the private chat.
    private = message_update(f"/start {payload}", user_id=32, first_name="Emil")
    assert await fake_api.deliver(private, url=url, secret=secret) == 200
    sent = await fake_api.wait_for("sendMessage", lambda c: c.params["chat_id"] == "32")
    [[button]] = sent.params["reply_markup"]["inline_keyboard"]
    assert button["web_app"]["url"] == f"{PUBLIC_URL}/?table={table_id}"


async def test_deep_link_to_a_table_the_service_does_not_know(
    fake_api: FakeBotAPI, bot_app: BotApp, service: TableService
) -> None:
    await bot_app(service, mode="polling")
    fake_api.push_update(message_update("/start table_0123456789abcdef", user_id=33))
    sent = await fake_api.wait_for("sendMessage", lambda c: c.params["chat_id"] == "33")
    assert sent.params["text"] == say("en", texts.table_gone, "0123456789abcdef")


async def test_a_private_tables_link_opens_it_with_its_invite(
    fake_api: FakeBotAPI, bot_app: BotApp, service: TableService
) -> None:
    from service.game.settings import TableSettings

    await bot_app(service, mode="polling")
    table_id = await service.create_table(User(41, "Host"), TableSettings(ante=10), private=True)
    invite = await service.social.issue_invite(User(41, "Host"), table_id)
    fake_api.push_update(message_update(f"/start table_{table_id}_{invite}", user_id=42))
    sent = await fake_api.wait_for("sendMessage", lambda c: c.params["chat_id"] == "42")
    [[button]] = sent.params["reply_markup"]["inline_keyboard"]
    assert button["web_app"]["url"] == f"{PUBLIC_URL}/?table={table_id}&invite={invite}"
    assert "parse_mode" not in sent.params
    # a replaced link says so (in the player's language); without one the table is not
    # confirmed to exist
    await service.social.issue_invite(User(41, "Host"), table_id)
    fake_api.push_update(message_update(f"/start table_{table_id}_{invite}", user_id=43,
                                        language_code="ru"))  # fmt: skip
    replaced = await fake_api.wait_for("sendMessage", lambda c: c.params["chat_id"] == "43")
    assert replaced.params["text"] == say("ru", texts.invite_replaced, table_id)
    assert "parse_mode" not in replaced.params
    fake_api.push_update(message_update(f"/start table_{table_id}", user_id=44))
    gone = await fake_api.wait_for("sendMessage", lambda c: c.params["chat_id"] == "44")
    assert gone.params["text"] == say("en", texts.table_gone, table_id)
