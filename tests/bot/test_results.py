"""A hand's result posted to the table's group, in one process (the real TableService on the
real Redis, a clock the test moves, real aiogram against the fake Bot API): one message per
hand, edited while hands come fast, with a button to join or watch the table; a group that
removed the bot is no longer posted to."""

from __future__ import annotations

import asyncio
import random

import pytest

from service.bot import texts
from service.bot.groups import GroupTables
from service.bot.results import Outcome, Shown, render
from tests.bot.botkit import say
from tests.bot.live import Live, Table, people, to_chat
from tests.support.clock import FakeClock
from tests.support.fake_bot_api import FakeBotAPI, message_update

pytestmark = pytest.mark.redis


async def test_a_group_table_posts_each_hand_and_edits_when_hands_are_fast(
    live: Live, fake_api: FakeBotAPI, clock: FakeClock
) -> None:
    ana, boris = people("de", "en")
    group = -random.randrange(10**9, 10**12)
    fake_api.push_update(message_update("/newtable 10 4", user_id=ana.id, first_name="Ana",
                                        chat_id=group, chat_type="supergroup",
                                        language_code="de"))
    invite = await fake_api.wait_for("sendMessage", to_chat(group), within=10)
    link = invite.params["reply_markup"]["inline_keyboard"][0][0]["url"]
    table_id = link.split("table_", 1)[1]
    for user in (ana, boris):
        await live.service.seat(user, table_id, 300)

    fake_api.push_update(message_update("/tables", user_id=boris.id, chat_id=group,
                                        chat_type="supergroup", language_code="de"))
    listed = await fake_api.wait_for(
        "sendMessage", lambda c: to_chat(group)(c) and c is not invite, within=10)
    assert listed.params["text"] == "\n".join([
        say("de", texts.group_tables_header),
        say("de", texts.group_table_line, table_id, 10, 2)])

    table = Table(live.service, clock, table_id)
    await table.play([ana, boris], 1)
    posted = await fake_api.wait_for(
        "sendMessage", lambda c: to_chat(group)(c)
        and c.params["text"].startswith(say("de", texts.result_header, table_id, 1)), within=5)
    text = posted.params["text"]
    assert ("Ana" in text or "Boris" in text) and "Pot" in text
    # Under it, the invitation's link to the table (to sit down, or to watch), and the
    # hand's own link to watch it again.
    def buttons(hand: int) -> dict[str, object]:
        again = f"https://t.me/{fake_api.username}?start=hand_{table_id}_{hand}"
        return {"inline_keyboard": [
            [{"text": say("de", texts.join_or_watch_button), "url": link}],
            [{"text": say("de", texts.watch_again_button), "url": again}]]}

    assert posted.params["reply_markup"] == buttons(1)

    await table.play([ana, boris], 2)  # within the minute
    edited = await fake_api.wait_for("editMessageText", to_chat(group), within=5)
    assert int(edited.params["message_id"]) == posted.result["message_id"]
    assert edited.params["text"].startswith(say("de", texts.result_header, table_id, 2))
    assert "\nHand 1: " in edited.params["text"]  # hand 1 folded into one line
    # an edit without the buttons would drop them; Watch again is the newest hand now
    assert edited.params["reply_markup"] == buttons(2)
    results = [c for c in fake_api.sent_to(group)
               if c.params["text"].startswith(say("de", texts.result_header, table_id, 1))]
    assert len(results) == 1  # still one message

    clock.advance(61)  # a slow hand later: a message of its own
    await table.play([ana, boris], 3)
    await fake_api.wait_for(
        "sendMessage", lambda c: to_chat(group)(c)
        and c.params["text"].startswith(say("de", texts.result_header, table_id, 3)), within=5)


def test_a_result_reads_like_this_in_english() -> None:
    outcome = Outcome("3f2a9c0d11", 12, "showdown", 120, ("Ana",), 120, (
        Shown("Ana", ("7c", "Kh", "Kd"), 31), Shown("Boris", ("As", "Ad", "Tc"), 22)))
    assert say("en", render, outcome) == (
        "Table #3f2a9c, hand 12\n"
        "Ana wins the pot of 120 at the showdown.\n"
        "Ana: 7♣ K♥ K♦ (31)\n"
        "Boris: A♠ A♦ 10♣ (22)")


async def test_a_group_that_removed_the_bot_is_no_longer_posted_to(
    live: Live, fake_api: FakeBotAPI, clock: FakeClock
) -> None:
    ana, boris = people("en", "en")
    group = -random.randrange(10**9, 10**12)
    fake_api.push_update(message_update("/newtable", user_id=ana.id, chat_id=group,
                                        chat_type="group"))
    invite = await fake_api.wait_for("sendMessage", to_chat(group), within=10)
    table_id = invite.params["reply_markup"]["inline_keyboard"][0][0]["url"].split("table_")[1]
    groups = GroupTables(live.service.kv, live.service.streams.namespace)
    assert (await groups.group_of(table_id)) is not None
    fake_api.blocked.add(group)  # Telegram answers 403: the bot is not in the group any more
    for user in (ana, boris):
        await live.service.seat(user, table_id, 300)
    await Table(live.service, clock, table_id).play([ana, boris], 1)
    await fake_api.wait_until(lambda: any(
        c.status == 403 for c in fake_api.calls_of("sendMessage", to_chat(group))))
    for _ in range(100):
        if await groups.group_of(table_id) is None:
            break
        await asyncio.sleep(0.05)
    assert await groups.group_of(table_id) is None
    assert await groups.tables_of(group) == []
    assert (await live.service.profile(-group)).bot == "never"  # a group is nobody's profile
