"""`/top` with real aiogram polling the fake Bot API: the weekly (or `/top all`) board of the
chat's scope -- global in a private chat, the group's in a group -- in every language, with
players' names as plain text beside bold entities (no parse mode reads them); /newtable
records its group on the table so that the group's board counts it. The stub answers the
boards in the language tests; the last test asks the real TableService on the real Redis."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest

from service.bot import top_texts
from service.tables.facade import User
from service.tables.profiles import LANGUAGES
from tests.bot.botkit import BotApp, say
from tests.bot.live import Live, Table, people, to_chat
from tests.bot.tables_stub import StubTables
from tests.support.fake_bot_api import Call, FakeBotAPI, message_update

ids = itertools.count(71_000)
EVIL = "<b>Eve</b> & <i>co</i> 🃏"


async def _send(fake: FakeBotAPI, text: str, language: str, *, group: bool = False) -> tuple[
        Call, int, int]:  # fmt: skip
    user = next(ids)
    chat = -user if group else user
    fake.push_update(message_update(text, user_id=user, chat_id=chat,
                                    chat_type="supergroup" if group else "private",
                                    language_code=language))  # fmt: skip
    call = await fake.wait_for("sendMessage", lambda c: int(c.params["chat_id"]) == chat,
                               within=10)
    return call, user, chat


def _entities(call: Call) -> list[dict[str, Any]]:
    raw = call.params.get("entities") or []
    return list(json.loads(raw) if isinstance(raw, str) else raw)


def _utf16(text: str, entity: dict[str, Any]) -> str:
    units = text.encode("utf-16-le")
    start, length = int(entity["offset"]) * 2, int(entity["length"]) * 2
    return units[start:start + length].decode("utf-16-le")


@pytest.mark.parametrize("language", LANGUAGES)
async def test_top_in_a_private_chat_is_the_global_weekly_board(
    language: str, fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    await bot_app(stub_tables, mode="polling")
    stub_tables.boards[("week", None)] = {
        "period": "week", "group": None, "you": {"rank": 2, "net": -40},
        "entries": [{"rank": 1, "user_id": 5, "name": EVIL, "net": 120},
                    {"rank": 2, "user_id": 6, "name": "Ana", "net": -40}]}
    call, user, _ = await _send(fake_api, "/top", language)
    assert stub_tables.asked[-1] == ("week", None, user)
    text = call.params["text"]
    assert call.params.get("parse_mode") in (None, "")
    header = say(language, lambda: top_texts.header(group=False, all_time=False))
    assert text.splitlines()[0] == header
    assert f"1. {EVIL}  +120" in text and "2. Ana  -40" in text
    assert say(language, lambda: top_texts.your_place(2, -40)) in text
    assert say(language, lambda: top_texts.hint(all_time=False)) in text
    bold = [_utf16(text, e) for e in _entities(call) if e["type"] == "bold"]
    assert bold == [header, EVIL, "Ana"]
    if language != "en":
        assert header != top_texts.header(group=False, all_time=False)


async def test_top_all_in_a_group_is_that_groups_board(
    fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    await bot_app(stub_tables, mode="polling")
    call, user, chat = await _send(fake_api, "/top all", "de", group=True)
    assert stub_tables.asked[-1] == ("all", chat, user)
    assert call.params["text"].splitlines() == [
        say("de", lambda: top_texts.header(group=True, all_time=True)),
        say("de", top_texts.empty),
        say("de", lambda: top_texts.hint(all_time=True)),
    ]


async def test_newtable_binds_the_table_to_its_group(
    fake_api: FakeBotAPI, bot_app: BotApp, stub_tables: StubTables
) -> None:
    await bot_app(stub_tables, mode="polling")
    _, _, chat = await _send(fake_api, "/newtable 20 4", "en", group=True)
    assert list(stub_tables.groups.values()) == [chat]


def _board_lines(language: str, board: dict[str, Any], *, group: bool) -> list[str]:
    """The lines /top must send for `board` (the service's own answer), in `language`."""
    lines = [say(language, lambda: top_texts.header(group=group, all_time=False))]
    lines += [f"{e['rank']}. {e['name']}  {e['net']:+d}" for e in board["entries"]]
    you = board["you"]
    lines.append(say(language, lambda: top_texts.your_place(you["rank"], you["net"])))
    lines.append(say(language, lambda: top_texts.hint(all_time=False)))
    return lines


async def _top(live: Live, user: User, chat: int, header: str) -> list[str]:
    live.fake.push_update(message_update(
        "/top", user_id=user.id, first_name=user.name, chat_id=chat,
        chat_type="private" if chat == user.id else "supergroup",
        language_code=user.language_code))
    call = await live.fake.wait_for("sendMessage", lambda c: int(c.params["chat_id"]) == chat
                                    and c.params["text"].startswith(header), within=10)
    return list(call.params["text"].splitlines())


@pytest.mark.redis
async def test_top_answers_the_real_boards_global_in_private_the_groups_in_its_group(
    live: Live,
) -> None:
    """The real TableService on the real Redis: a table opened with /newtable in a group and
    one opened elsewhere play hands; the projector counts them; /top in a private chat is the
    global board with the sender's rank, /top in the group only that group's table."""
    ana, boris, vera, georgi, dimo = people("en", "ru", "en", "de", "en")
    service, group = live.service, -random.randrange(10**9, 10**12)
    live.fake.push_update(message_update("/newtable 10 3", user_id=ana.id, first_name=ana.name,
                                         chat_id=group, chat_type="supergroup"))
    posted = await live.fake.wait_for("sendMessage", to_chat(group), within=10)
    [[link]] = posted.params["reply_markup"]["inline_keyboard"]
    grouped = link["url"].split("?start=table_", 1)[1]
    for user in (ana, boris, vera):
        await service.seat(user, grouped, 300)
    elsewhere = await live.table([georgi, dimo, vera])
    await Table(service, live.clock, grouped).play([ana, boris, vera], 3)
    await elsewhere.play([georgi, dimo, vera], 2)
    await service.stats.projector.catch_up_due()

    async def nets(table_id: str) -> dict[str, int]:  # no rebuy: net = stack - buy-in
        _, state = await service.state(table_id)
        assert state is not None
        return {s.name: s.stack - 300 for s in state.seats if s is not None}

    at_group, at_other = await nets(grouped), await nets(elsewhere.id)
    everyone = {n: at_group.get(n, 0) + at_other.get(n, 0) for n in {*at_group, *at_other}}
    global_board = await service.leaderboard("week", None, boris.id)
    assert {e["name"]: e["net"] for e in global_board["entries"]} == everyone
    header = say("ru", lambda: top_texts.header(group=False, all_time=False))
    assert await _top(live, boris, boris.id, header) == _board_lines("ru", global_board,
                                                                      group=False)
    group_board = await service.leaderboard("week", group, vera.id)
    assert {e["name"]: e["net"] for e in group_board["entries"]} == at_group  # not Georgi's
    header = say("en", lambda: top_texts.header(group=True, all_time=False))
    assert await _top(live, vera, group, header) == _board_lines("en", group_board, group=True)
