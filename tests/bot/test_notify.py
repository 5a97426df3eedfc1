"""Turn pings and timeout notices, in one process: the real TableService on the real Redis (a
clock the test moves), the bot attached to it by `attach_bot`, real aiogram against the fake
Bot API (group results: test_results.py). The same flows run in real `svara serve` processes
in test_serve_notify.py; here each rule is pinned down with the clock in hand."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Sequence
from typing import Any

import pytest

from service.bot import texts
from service.bot.config import WEBHOOK_PATH, webhook_secret
from service.bot.keyboards import SitIn
from service.bot.pings import current_turn
from service.bot.watch import TableWatch
from service.tables.facade import FeedItem
from tests.bot.botkit import PUBLIC_URL, TOKEN, BotApp, say
from tests.bot.live import Live, Table, expected_ping, people, ping_to, pings_to, to_chat
from tests.support.clock import FakeClock
from tests.support.fake_bot_api import (
    Call,
    FakeBotAPI,
    callback_update,
    member_update,
    message_update,
)
from tests.support.services import Factory
from tests.support.waiting import eventually

pytestmark = pytest.mark.redis


async def test_a_ping_calls_the_player_to_the_table_and_goes_when_the_turn_is_over(
    live: Live, fake_api: FakeBotAPI
) -> None:
    ana, boris = people("ru", "en")
    await live.start_bot(ana)
    table = await live.table([ana, boris], turn_seconds=30)
    await table.until_turn_of(ana, [boris])
    ping = await fake_api.wait_for("sendMessage", ping_to(ana), within=5)
    _, state = await live.service.state(table.id)
    assert state is not None and state.hand is not None
    assert ping.params["text"] == say("ru", texts.your_turn, table.id, state.hand.pot, 30)
    [[button]] = ping.params["reply_markup"]["inline_keyboard"]
    assert button == {"text": say("ru", texts.open_table_button),
                      "web_app": {"url": f"{PUBLIC_URL}/?table={table.id}"}}
    assert not fake_api.sent_to(boris.id)  # Boris never started the bot

    await table.move(ana)  # the turn is over: the ping goes
    deleted = await fake_api.wait_for("deleteMessage", to_chat(ana.id), within=5)
    sent_id = next(m for (chat, m) in fake_api.deleted if chat == ana.id)
    assert int(deleted.params["message_id"]) == sent_id
    assert len(pings_to(fake_api, ana)) == 1


def pings_decided_against(caplog: pytest.LogCaptureFixture) -> set[str]:
    """The turns (their marks) the bot has decided to send no ping for, as its log says:
    the player may not be written to, has pings off, or has the table open."""
    return {str(r.args[0]) for r in caplog.records
            if isinstance(r.args, tuple) and r.msg.startswith("no ping for ")}


async def turn_mark(table: Table) -> str:
    _, state = await table.service.state(table.id)
    turn = current_turn(table.id, state)
    assert turn is not None
    return turn.mark


async def test_no_ping_to_who_never_started_the_bot_has_pings_off_or_the_table_open(
    live: Live, fake_api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="service.bot.pings")  # from the first turn on
    never, quiet, watching, control = people("en", "de", "tr", "bg")
    for user in (quiet, watching, control):
        await live.start_bot(user)
    await live.service.set_preferences(quiet, pings=False)  # as the web app's setting does
    table = await live.table([never, quiet, watching, control], turn_seconds=30)
    token = await live.service.presence.opened(table.id, watching.id)  # a socket is open
    everyone = {u.id: u for u in (never, quiet, watching, control)}
    had_turn: set[int] = set()
    marks: set[str] = set()  # the others' turns
    while len(had_turn) < 3 or len(pings_to(fake_api, control)) < 2:
        turn = await table.turn()
        if turn is None:
            await table.tick()
            continue
        if turn == control.id:  # the control player is called every time
            wanted = await expected_ping(table, "bg")
            await fake_api.wait_for("sendMessage", lambda c, wanted=wanted: to_chat(control.id)(c)
                                    and c.params["text"] == wanted, within=5)
        else:
            had_turn.add(turn)
            marks.add(await turn_mark(table))
        await table.move(everyone[turn])
    # The bot has decided about each of the others' turns (no ping); a ping would have been
    # sent by now.
    await eventually(lambda: marks <= pings_decided_against(caplog), 5)
    assert pings_to(fake_api, never) == []
    assert pings_to(fake_api, quiet) == []
    assert pings_to(fake_api, watching) == []
    # Once the socket closes, that player is called again.
    await live.service.presence.closed(token)
    await table.until_turn_of(watching, [u for u in everyone.values() if u is not watching])
    wanted = await expected_ping(table, "tr")
    await fake_api.wait_for("sendMessage", lambda c: to_chat(watching.id)(c)
                            and c.params["text"] == wanted, within=5)


async def test_a_429_delays_the_ping_and_it_arrives_exactly_once(
    live: Live, fake_api: FakeBotAPI
) -> None:
    ana, boris = people("bg", "en")
    await live.start_bot(ana)
    table = await live.table([ana, boris])
    fake_api.too_many_requests(ana.id, times=2, retry_after=1)
    await table.until_turn_of(ana, [boris])
    await fake_api.wait_for("sendMessage", ping_to(ana), within=5)
    tries = fake_api.calls_of("sendMessage", to_chat(ana.id))
    assert [c.status for c in tries][-3:] == [429, 429, 200]
    assert len(pings_to(fake_api, ana)) == 1


async def test_a_player_who_blocked_the_bot_is_left_alone_until_they_start_it_again(
    live: Live, fake_api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    ana, boris = people("de", "en")
    await live.start_bot(ana)
    fake_api.blocked.add(ana.id)
    table = await live.table([ana, boris])
    await table.until_turn_of(ana, [boris])
    await fake_api.wait_until(
        lambda: any(c.status == 403 for c in fake_api.calls_of("sendMessage", to_chat(ana.id))))

    async def blocked() -> bool:
        return (await live.service.profile(ana.id)).bot == "blocked"

    async def reachable() -> bool:
        return (await live.service.profile(ana.id)).reachable

    await eventually(blocked, 2.5, every=0.05)
    attempts = len(fake_api.calls_of("sendMessage", to_chat(ana.id)))
    caplog.set_level(logging.DEBUG, logger="service.bot.pings")
    await table.move(ana)
    await table.until_turn_of(ana, [boris])
    mark = await turn_mark(table)
    # The bot has decided about her new turn (no ping): a try would have been made by now.
    await eventually(lambda: mark in pings_decided_against(caplog), 5)
    assert len(fake_api.calls_of("sendMessage", to_chat(ana.id))) == attempts  # not even tried

    # She unblocks it (Telegram says so) and is called again on her next turn.
    fake_api.blocked.discard(ana.id)
    fake_api.push_update(member_update(ana.id, old="kicked", new="member", language_code="de"))
    await eventually(reachable, 5, every=0.05)
    await table.move(ana)
    await table.until_turn_of(ana, [boris])
    wanted = await expected_ping(table, "de")
    await fake_api.wait_for("sendMessage", lambda c: to_chat(ana.id)(c)
                            and c.params["text"] == wanted, within=5)


async def test_the_timeout_notice_and_sit_in(live: Live, fake_api: FakeBotAPI) -> None:
    ana, boris = people("ar", "en")
    await live.start_bot(ana)
    table = await live.table([ana, boris], turn_seconds=30)
    for _ in range(30):  # Ana never acts: her turns time out until she is sat out
        _, state = await live.service.state(table.id)
        assert state is not None
        seat = state.seat_by_user(ana.id)
        assert seat is not None
        if seat.sat_out:
            break
        turn = await table.turn()
        if turn == boris.id:
            await table.move(boris)
        else:
            await table.tick()
    first = await fake_api.wait_for(
        "sendMessage", lambda c: int(c.params["chat_id"]) == ana.id
        and c.params["text"] in (say("ar", texts.timed_out_passed, table.id),
                                 say("ar", texts.timed_out_folded, table.id)), within=5)
    assert first
    last = await fake_api.wait_for(
        "sendMessage", lambda c: int(c.params["chat_id"]) == ana.id
        and c.params["text"].endswith(say("ar", texts.sat_out)), within=5)
    rows = last.params["reply_markup"]["inline_keyboard"]
    assert rows[0] == [{"text": say("ar", texts.sit_in_button),
                        "callback_data": SitIn(table=table.id).pack()}]
    assert rows[1][0]["web_app"]["url"] == f"{PUBLIC_URL}/?table={table.id}"

    # She taps Sit in: the bot sits her in at the table and says so.
    message = next(m for (chat, _), m in fake_api.messages.items()
                   if chat == ana.id and m["text"] == last.params["text"])
    update = callback_update(SitIn(table=table.id).pack(), message, user_id=ana.id,
                             language_code="ar")
    fake_api.push_update(update)
    answer = await fake_api.wait_for("answerCallbackQuery", lambda c: c.params[
        "callback_query_id"] == update["callback_query"]["id"], within=5)
    assert answer.params["text"] == say("ar", texts.sat_in)
    _, state = await live.service.state(table.id)
    assert state is not None
    seat = state.seat_by_user(ana.id)
    assert seat is not None and not seat.sat_out
    edited = await fake_api.wait_for("editMessageText", to_chat(ana.id), within=5)
    assert edited.params["text"].endswith(say("ar", texts.sat_in))
    assert "sitin" not in str(edited.params["reply_markup"])  # the button is gone
    # Tapping the old button again is the same sit_in: answered, nothing appended twice.
    version, _ = await live.service.state(table.id)
    again = callback_update(SitIn(table=table.id).pack(), message, user_id=ana.id,
                            language_code="ar")
    fake_api.push_update(again)
    await fake_api.wait_for("answerCallbackQuery", lambda c: c.params[
        "callback_query_id"] == again["callback_query"]["id"], within=5)
    assert (await live.service.state(table.id))[0] == version


class NullSink:
    def deliver(self, items: Sequence[FeedItem]) -> None:
        pass

    async def drained(self) -> None:
        await asyncio.sleep(0)


@pytest.mark.serial  # the replicas' race for each ping is timed by a paced sender
async def test_two_replicas_send_one_ping_per_turn_and_one_result_per_hand(
    services: Factory, clock: FakeClock, fake_api: FakeBotAPI, bot_app: BotApp,
    bot_watches: list[TableWatch], caplog: pytest.LogCaptureFixture,
) -> None:
    one, two = await services(), await services()
    url_one = await bot_app(one, mode="webhook")
    await bot_app(two, mode="webhook")
    ana, boris = people("en", "ru")

    async def deliver(update: dict[str, Any]) -> None:
        assert await fake_api.deliver(update, url=url_one + WEBHOOK_PATH,
                                      secret=webhook_secret(TOKEN)) == 200

    for user in (ana, boris):
        await deliver(message_update("/start", user_id=user.id, language_code=user.language_code))
        await fake_api.wait_for("sendMessage", to_chat(user.id), within=10)
    group = -random.randrange(10**9, 10**12)
    await deliver(message_update("/newtable", user_id=ana.id, chat_id=group,
                                 chat_type="group", language_code="en"))
    invite = await fake_api.wait_for("sendMessage", to_chat(group), within=10)
    table_id = invite.params["reply_markup"]["inline_keyboard"][0][0]["url"].split("table_")[1]
    for user in (ana, boris):
        await one.seat(user, table_id, 300)
    # Replica two follows the table (as it does for its own sockets there): it sees every
    # event replica one appends, so both race for every ping and every result.
    version, _ = await two.state(table_id)
    follow = asyncio.create_task(two.watch(None, table_id, version, NullSink()))
    try:
        with caplog.at_level(logging.INFO, logger="service.bot.pings"):
            await Table(one, clock, table_id).play([ana, boris], 2)
            # Both replicas looked at every turn: each was claimed by one and lost by the
            # other (the second replica learns of them through its feed, a moment later).
            def told(what: str) -> list[str]:
                return [r.getMessage().split(" ")[2] for r in caplog.records
                        if r.getMessage().endswith(what)]

            await fake_api.wait_until(
                lambda: len(told("sending it")) > 0
                and sorted(told("sending it")) == sorted(told("another replica sends it")))
            sending = told("sending it")
            assert len(sending) == len(set(sending))  # no turn claimed twice
            await fake_api.wait_until(  # every claimed ping arrives (paced 1 s per chat)
                lambda: len(pings_to(fake_api, ana)) + len(pings_to(fake_api, boris))
                == len(sending))

        def results() -> list[Call]:
            posted = [c for c in fake_api.sent_to(group) if c.params["text"].startswith("Table #")]
            return posted + fake_api.calls_of("editMessageText", to_chat(group))

        await fake_api.wait_until(lambda: len(results()) >= 2)  # the group is paced too
        # No wrong third: both bots have looked at every event of the table and every job
        # they started for it (pings, results, each paced and sent) has finished.
        head, _ = await one.state(table_id)

        def idle() -> bool:
            return all(w._seen.get(table_id, 0) >= head and not w._tasks for w in bot_watches)

        await eventually(idle, 30)
        assert [c.method for c in results()] == ["sendMessage", "editMessageText"]
    finally:
        follow.cancel()
        await asyncio.gather(follow, return_exceptions=True)
