"""Every reply of the bot in each of its six languages: /start, /help, /rules, the group
invite, every error reply, /settings, and the command menu and menu button per language. Real
aiogram polling the fake Bot API; the tables are the in-memory stub (no game needed here)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

import pytest

from service.bot import texts
from service.bot.keyboards import SetPings, SitIn
from service.tables.facade import ServiceError
from service.tables.profiles import LANGUAGES
from tests.bot.botkit import PUBLIC_URL, BotApp, say
from tests.bot.tables_stub import StubTables
from tests.support.fake_bot_api import Call, FakeBotAPI, callback_update, message_update

CYRILLIC = re.compile("[\u0400-\u04ff]")
ARABIC = re.compile("[\u0600-\u06ff]")
ids = itertools.count(60_000)


def in_script(language: str, text: str) -> bool:
    if language in ("ru", "bg"):
        return bool(CYRILLIC.search(text))
    if language == "ar":
        return bool(ARABIC.search(text))
    return True


class Conversation:
    """Sends updates as one Telegram user speaking `language` and collects the replies."""

    def __init__(self, fake: FakeBotAPI, language: str) -> None:
        self.fake = fake
        self.language = language

    def expect(self, text: Callable[..., str], *args: Any) -> str:
        said = say(self.language, text, *args)
        if self.language != "en":
            assert said != say("en", text, *args), f"{text.__name__} is not translated"
            assert in_script(self.language, said), said
        return said

    async def reply_to(self, text: str, *, chat_type: str = "private", **kw: Any) -> Call:
        user = next(ids)
        chat = -user if chat_type != "private" else user
        self.fake.push_update(message_update(
            text, user_id=user, chat_id=chat, chat_type=chat_type,
            language_code=self.language, **kw))
        return await self.fake.wait_for(
            "sendMessage", lambda c: int(c.params["chat_id"]) == chat, within=10)

    async def press(self, data: str, message: dict[str, Any]) -> Call:
        update = callback_update(data, message, user_id=int(message["chat"]["id"]),
                                 language_code=self.language)
        self.fake.push_update(update)
        query_id = update["callback_query"]["id"]
        return await self.fake.wait_for(
            "answerCallbackQuery", lambda c: c.params["callback_query_id"] == query_id,
            within=10)


def labels(call: Call) -> list[str]:
    return [b["text"] for row in call.params["reply_markup"]["inline_keyboard"] for b in row]


@pytest.mark.parametrize("language", LANGUAGES)
async def test_every_reply_in_each_language(
    language: str, fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    await bot_app(stub_tables, mode="polling")
    talk = Conversation(fake_api, language)
    expect = talk.expect

    start = await talk.reply_to("/start")
    assert start.params["text"] == expect(texts.greeting)
    assert labels(start) == [expect(texts.play_button)]
    assert labels(start)[0] in start.params["text"]  # it says to tap the button it comes with
    assert (await talk.reply_to("/help")).params["text"] == expect(texts.help_text)
    assert (await talk.reply_to("/rules")).params["text"] == expect(texts.rules)
    assert (await talk.reply_to("/rules", chat_type="group")).params["text"] == expect(
        texts.rules)

    # The group invite, and the deep link it leads to.
    invite = await talk.reply_to("/newtable 20 4", chat_type="supergroup")
    assert invite.params["text"] == expect(texts.newtable_created, "Ana", 20, 4)
    assert labels(invite) == [expect(texts.join_table_button)]
    table_id = next(iter(stub_tables.created))
    opened = await talk.reply_to(f"/start table_{table_id}")
    assert opened.params["text"] == expect(texts.table_invite, table_id)
    assert labels(opened) == [expect(texts.open_table_button)]

    # Every error reply.
    usage = expect(texts.newtable_usage)
    assert (await talk.reply_to("/newtable ten", chat_type="group")).params["text"] == usage
    assert (await talk.reply_to("/newtable 0", chat_type="group")).params["text"] == (
        f"{expect(texts.newtable_bad_ante, 10**9)} {usage}")
    assert (await talk.reply_to("/newtable 10 11", chat_type="group")).params["text"] == (
        f"{expect(texts.newtable_bad_seats)} {usage}")
    for command, text in (("/newtable", texts.newtable_private), ("/tables", texts.tables_private)):
        private = await talk.reply_to(command)
        assert private.params["text"] == expect(text)
        assert labels(private) == [expect(texts.play_button)]
        assert labels(private)[0] in private.params["text"]
    assert (await talk.reply_to("/tables", chat_type="group")).params["text"] == expect(
        texts.group_no_tables)
    assert (await talk.reply_to("/settings", chat_type="group")).params["text"] == expect(
        texts.settings_in_group)
    gone = await talk.reply_to("/start table_nosuchtable")
    assert gone.params["text"] == expect(texts.table_gone, "nosuchtable")
    anonymous = message_update("/newtable", user_id=next(ids), chat_id=-9_000_001,
                               chat_type="supergroup", language_code=language)
    anonymous["message"]["from"]["is_bot"] = True  # what Telegram shows for anonymous admins
    anonymous["message"]["chat"]["id"] = chat = -next(ids)
    fake_api.push_update(anonymous)
    sent = await fake_api.wait_for("sendMessage", lambda c: int(c.params["chat_id"]) == chat)
    # An anonymous admin has no language of their own: the bot answers in English.
    assert sent.params["text"] == say("en", texts.newtable_anonymous)

    async def refused(*args: Any, **kwargs: Any) -> str:
        raise ServiceError(503, "unavailable", "the store is away")

    stub_tables.create_table = refused  # type: ignore[method-assign]
    failed = await talk.reply_to("/newtable", chat_type="group")
    assert failed.params["text"] == expect(texts.newtable_failed)

    async def broken(*args: Any, **kwargs: Any) -> str:
        raise RuntimeError("a bug")

    stub_tables.view = broken  # type: ignore[method-assign]
    sorry = await talk.reply_to("/start table_abc")
    assert sorry.params["text"] == expect(texts.sorry)


@pytest.mark.parametrize("language", LANGUAGES)
async def test_settings_and_buttons_in_each_language(
    language: str, fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    await bot_app(stub_tables, mode="polling")
    talk = Conversation(fake_api, language)
    expect = talk.expect
    shown = await talk.reply_to("/settings")
    assert shown.params["text"] == expect(texts.settings_text, language, True)
    assert labels(shown)[:6] == [texts.LANGUAGE_NAMES[code] for code in LANGUAGES]
    assert labels(shown)[6] == expect(texts.pings_off_button)
    user = int(shown.params["chat_id"])
    [message] = [m for (chat, _), m in fake_api.messages.items() if chat == user]

    answer = await talk.press(SetPings(on=False).pack(), message)
    assert answer.params["text"] == expect(texts.settings_saved)
    assert (await stub_tables.profile(user)).pings is False
    edited = fake_api.calls_of("editMessageText", lambda c: int(c.params["chat_id"]) == user)
    assert edited[-1].params["text"] == expect(texts.settings_text, language, False)

    other = "de" if language != "de" else "ru"
    answer = await talk.press(f"lang:{other}", message)
    assert answer.params["text"] == say(other, texts.settings_saved)  # in the new language
    assert (await stub_tables.profile(user)).language == other
    # From now on the bot speaks the chosen language to this player, whatever Telegram says.
    fake_api.push_update(message_update("/help", user_id=user, language_code=language))
    await fake_api.wait_for(
        "sendMessage", lambda c: int(c.params["chat_id"]) == user
        and c.params["text"] == say(other, texts.help_text), within=10)

    bad = await talk.press("lang:klingon", message)  # a forged button
    assert bad.params["text"] == say(other, texts.settings_failed)
    stale = await talk.press("something-old", message)
    assert stale.params["text"] == say(other, texts.stale_button)


@pytest.mark.parametrize("language", LANGUAGES)
async def test_sit_in_refusals_in_each_language(
    language: str, fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    await bot_app(stub_tables, mode="polling")
    talk = Conversation(fake_api, language)
    user = next(ids)
    message = {"message_id": 1, "date": 0, "chat": {"id": user, "type": "private"},
               "text": "timed out"}
    for error, text in [
        (ServiceError(404, "table_not_found", "gone"), texts.table_gone),
        (ServiceError(403, "not_seated", "no seat"), texts.sit_in_no_seat),
        (ServiceError(422, "not_sat_out", "playing"), texts.sit_in_not_sat_out),
        (ServiceError(503, "unavailable", "away"), texts.sit_in_failed),
    ]:
        async def act(*args: Any, error: ServiceError = error, **kwargs: Any) -> int:
            raise error

        stub_tables.act = act  # type: ignore[method-assign]
        answer = await talk.press(SitIn(table="t0123456789").pack(), message)
        wanted = talk.expect(text, "t0123456789") if text is not texts.sit_in_failed else (
            talk.expect(text))
        assert answer.params["text"] == wanted
        assert answer.params["show_alert"] in (True, "true")


async def test_commands_per_language_and_the_menu_button(
    fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    await bot_app(stub_tables, mode="polling")
    await fake_api.wait_until(lambda: len(fake_api.calls_of("setMyCommands")) == 12, within=10)
    seen = {}
    for call in fake_api.calls_of("setMyCommands"):
        scope = call.params["scope"]["type"]
        code = call.params.get("language_code")
        seen[(scope, code)] = {c["command"]: c["description"] for c in call.params["commands"]}
    for language in LANGUAGES:
        code = None if language == "en" else language
        described = say(language, texts.command_descriptions)
        assert seen[("all_private_chats", code)] == {
            name: described[name] for name in ("start", "settings", "top", "rules", "help")}
        assert seen[("all_group_chats", code)] == {
            name: described[name]
            for name in ("newtable", "tables", "tournament", "top", "rules", "help")}
        if language != "en":
            assert described != say("en", texts.command_descriptions)
    default = await fake_api.wait_for("setChatMenuButton")
    assert "chat_id" not in default.params
    assert default.params["menu_button"] == {
        "type": "web_app", "text": say("en", texts.menu_button),
        "web_app": {"url": PUBLIC_URL + "/"}}

    # /start sets the player's own chat's button, labelled in their language.
    fake_api.push_update(message_update("/start", user_id=61_001, language_code="ar"))
    mine = await fake_api.wait_for(
        "setChatMenuButton", lambda c: str(c.params.get("chat_id")) == "61001")
    assert mine.params["menu_button"]["text"] == say("ar", texts.menu_button)


async def test_a_language_telegram_does_not_name_falls_back_to_english(
    fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    await bot_app(stub_tables, mode="polling")
    for code, language in [("uk", "en"), ("ru-RU", "ru"), ("pt-br", "en"), ("AR", "ar")]:
        talk = Conversation(fake_api, code)
        sent = await talk.reply_to("/help")
        assert sent.params["text"] == say(language, texts.help_text)


async def test_without_https_there_is_no_menu_button(
    fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    await bot_app(stub_tables, mode="polling", public_url="http://127.0.0.1:9")
    await fake_api.wait_until(lambda: len(fake_api.calls_of("setMyCommands")) == 12, within=10)
    fake_api.push_update(message_update("/start", user_id=61_002))
    await fake_api.wait_for("sendMessage", lambda c: int(c.params["chat_id"]) == 61_002)
    assert not fake_api.calls_of("setChatMenuButton")  # Telegram refuses http web apps

