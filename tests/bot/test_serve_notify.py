"""The turn pings and group results proved in real `svara serve` processes on the real Redis,
with the bot talking to the fake Bot API: players play through the public HTTP API and
WebSocket, Telegram (the fake) POSTs their updates to the webhook. Pings within 5 s with the
table's button, none to who has the table open or never started the bot, a 429 delivered once,
one ping per turn with two replicas, the timeout notice with Sit in (and pressing it), a group's
result after a hand."""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from typing import Any

import aiohttp
import pytest

from service.bot import texts
from service.bot.keyboards import SitIn
from tests.bot.botkit import TOKEN, say
from tests.bot.serving import (
    PUBLIC,
    Deployment,
    decided,
    is_ping,
    move,
    open_table,
    ping_decisions,
    ping_text,
    pings,
    players,
    to_chat,
    turn_of,
)
from tests.support.fake_bot_api import FakeBotAPI, callback_update, message_update
from tests.support.http_player import HttpPlayer

pytestmark = [pytest.mark.redis, pytest.mark.slow]


async def test_pings_in_svara_serve(
    deployment: Deployment, fake_api: FakeBotAPI, session: aiohttp.ClientSession
) -> None:
    server = await deployment.start()
    ana, boris, vera = players(session, server, ["Ana", "Boris", "Vera"])
    await deployment.start_bot(server, ana, "ru")
    await deployment.start_bot(server, vera, "tr")  # Boris never starts the bot
    fake_api.too_many_requests(ana.user_id, times=2, retry_after=1)  # Ana's first ping: 429s
    table_id = await open_table(ana, [], max_seats=3, turn_seconds=30)
    await vera.listen(table_id)  # Vera has the table open (before any hand starts)
    for player in (ana, boris, vera):
        await player.ok("POST", f"/api/tables/{table_id}/seat", {"buy_in": 300})
    by_id = {p.user_id: p for p in (ana, boris, vera)}
    ana_turns = 0
    turns_of = {boris.user_id: 0, vera.user_id: 0}
    # why each of the others gets no ping: Boris never started the bot, Vera has the table open
    outcome_of = {boris.user_id: "unreachable", vera.user_id: "watching"}
    last_turn: tuple[Any, ...] | None = None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 120
    while ana_turns < 2 or min(turns_of.values()) < 1:  # each reason seen at least once
        assert loop.time() < deadline, "not enough turns in 2 minutes"
        user, view = await turn_of(ana, table_id)
        hand = view["hand"]
        key = None if user is None else (hand["number"], hand["deal"], hand["phase"],
                                         hand["turn"], hand["deadline"])
        if user is None or key == last_turn:
            await asyncio.sleep(0.05)
            continue
        last_turn = key
        seen_at = time.monotonic()
        if user == ana.user_id:
            ana_turns += 1
            await fake_api.wait_until(
                lambda turns=ana_turns: len(pings(fake_api, ana, table_id)) >= turns, within=5)
            ping = pings(fake_api, ana, table_id)[-1]
            assert time.monotonic() - seen_at < 5
            assert ping_text("ru", table_id, hand["pot"], ping.params["text"]), ping.params
            [[button]] = ping.params["reply_markup"]["inline_keyboard"]
            assert button == {"text": say("ru", texts.open_table_button),
                              "web_app": {"url": f"{PUBLIC}/?table={table_id}"}}
            await move(ana, table_id)
            sent_id = ping.result["message_id"]
            await fake_api.wait_for(  # the turn is over: the ping goes
                "deleteMessage", lambda c, sent_id=sent_id: to_chat(ana.user_id)(c)
                and int(c.params["message_id"]) == sent_id, within=5)
        else:
            turns_of[user] += 1
            # the server looked at this turn and decided against a ping, for the right reason
            await decided(session, server, outcome_of[user], turns_of[user])
            await move(by_id[user], table_id)
    assert pings(fake_api, boris, table_id) == []  # never started the bot
    assert pings(fake_api, vera, table_id) == []  # has the table open
    ana_tries = [c.status for c in fake_api.calls_of("sendMessage", to_chat(ana.user_id))
                 if is_ping(c, table_id)]
    assert ana_tries[:3] == [429, 429, 200]  # the 429s waited out...
    assert ana_tries.count(200) == ana_turns  # ...and every ping delivered exactly once
    # every turn the test saw was decided for its reason (the turn after the last move may be
    # decided already too, hence at least)
    decisions = await ping_decisions(session, server)
    assert decisions.get("sent", 0) >= ana_turns, decisions
    assert decisions.get("unreachable", 0) >= turns_of[boris.user_id], decisions
    assert decisions.get("watching", 0) >= turns_of[vera.user_id], decisions
    assert decisions.get("elsewhere", 0) == 0, decisions  # one replica: nobody else claims
    async with session.get(f"{server.url}/metrics") as resp:  # the sender's counters
        exposition = await resp.text()
    sent = re.search(r'^svara_bot_messages_total\{method="sendMessage"\} ([0-9.e+]+)$',
                     exposition, re.M)
    limited = re.search(r'^svara_bot_rate_limited_total\{method="sendMessage"\} ([0-9.e+]+)$',
                        exposition, re.M)
    assert sent is not None and float(sent.group(1)) >= ana_turns, exposition
    assert limited is not None and float(limited.group(1)) == 2, exposition
    assert await asyncio.to_thread(server.stop) == 0


async def test_two_replicas_one_ping_per_turn_and_one_result_per_hand(
    deployment: Deployment, fake_api: FakeBotAPI, session: aiohttp.ClientSession
) -> None:
    one = await deployment.start()
    two = await deployment.start()
    ana, boris = players(session, one, ["Ana", "Boris"])
    await deployment.start_bot(one, ana, "en")
    await deployment.start_bot(two, boris, "de")
    group = -int(uuid.uuid4().int % 10**12) - 1
    await deployment.tell(one, message_update(
        "/newtable 10 2", user_id=ana.user_id, first_name="Ana", chat_id=group,
        chat_type="supergroup", language_code="en"))
    invite = await fake_api.wait_for("sendMessage", to_chat(group), within=15)
    table_id = invite.params["reply_markup"]["inline_keyboard"][0][0]["url"].split("table_")[1]
    # Boris watches the table through replica two: it follows the table's events, so both
    # replicas see every turn. Everyone acts through replica one.
    watcher = HttpPlayer(session, two.url, boris.user_id, TOKEN, "Boris")
    await watcher.listen(table_id)
    for player in (ana, boris):  # the hand starts as the second player sits down
        await player.ok("POST", f"/api/tables/{table_id}/seat", {"buy_in": 300})
    ana_turns: set[tuple[Any, ...]] = set()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 120
    while True:
        assert loop.time() < deadline, "the hand did not settle in 2 minutes"
        user, view = await turn_of(ana, table_id)
        hand = view["hand"]
        if hand is not None and hand["phase"] == "settled":
            break
        if user is None:
            await asyncio.sleep(0.05)
            continue
        if user == ana.user_id:
            turn = (hand["number"], hand["deal"], hand["phase"], hand["turn"], hand["deadline"])
            ana_turns.add(turn)
            turns = len(ana_turns)
            await fake_api.wait_until(
                lambda turns=turns: len(pings(fake_api, ana, table_id)) >= turns, within=5)
            await move(ana, table_id)
        else:
            await move(boris, table_id)
    await boris.ok("POST", f"/api/tables/{table_id}/leave")  # no second hand
    posted = await fake_api.wait_for(
        "sendMessage", lambda c: to_chat(group)(c)
        and c.params["text"].startswith(say("en", texts.result_header, table_id, 1)), within=10)
    names = re.findall(r"^(Ana|Boris)", posted.params["text"].split("\n", 1)[1])
    assert names, posted.params["text"]
    # Stopped, the replicas finish what they are sending and can send nothing more: what the
    # fake holds then is all there will ever be (no sleep hoping a duplicate shows up).
    codes = await asyncio.to_thread(deployment.stop)
    assert codes == [0, 0]
    assert pings(fake_api, boris, table_id) == []  # he has the table open
    results = [c for c in fake_api.sent_to(group) if c.params["text"].startswith("Table #")]
    assert len(results) == 1  # one per hand
    # Every ping claimed was delivered once, and each of Ana's turns was raced for by both
    # replicas: one sent the ping, the other stood back.
    logs = [s.output() for s in deployment.servers]
    sent = {m for log in logs for m in re.findall(rf"ping for (turn:{table_id}:\S+): sending it",
                                                  log)}
    stood_back = {m for log in logs for m in re.findall(
        rf"ping for (turn:{table_id}:\S+): another replica sends it", log)}
    assert len(pings(fake_api, ana, table_id)) == len(sent) >= len(ana_turns) > 0
    for mark in sent:
        assert sum(log.count(f"ping for {mark}: sending it") for log in logs) == 1
    for hand, deal, phase, seat, deadline in ana_turns:
        mark = f"turn:{table_id}:{hand}.{deal}.{phase}.{seat}.{deadline!r}"
        assert mark in sent and mark in stood_back, (mark, sent, stood_back)


async def test_timeout_notice_and_sit_in_in_svara_serve(
    deployment: Deployment, fake_api: FakeBotAPI, session: aiohttp.ClientSession
) -> None:
    server = await deployment.start()
    ana, boris = players(session, server, ["Ana", "Boris"])
    await deployment.start_bot(server, ana, "de")
    table_id = await open_table(ana, [ana, boris], max_seats=2, turn_seconds=5)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 90
    while True:  # Ana never acts; Boris always does
        assert loop.time() < deadline, "Ana was not sat out in 90 s"
        user, view = await turn_of(boris, table_id)
        mine = next(s for s in view["seats"] if s["user_id"] == ana.user_id)
        if mine["sat_out"]:
            break
        if user == boris.user_id:
            await move(boris, table_id)
        else:
            await asyncio.sleep(0.1)
    notice = await fake_api.wait_for(
        "sendMessage", lambda c: to_chat(ana.user_id)(c)
        and c.params["text"].endswith(say("de", texts.sat_out)), within=10)
    what = notice.params["text"].removesuffix(say("de", texts.sat_out)).strip()
    assert what in (say("de", texts.timed_out_passed, table_id),
                    say("de", texts.timed_out_folded, table_id))
    rows = notice.params["reply_markup"]["inline_keyboard"]
    assert rows[0] == [{"text": say("de", texts.sit_in_button),
                        "callback_data": SitIn(table=table_id).pack()}]
    assert rows[1][0]["web_app"] == {"url": f"{PUBLIC}/?table={table_id}"}
    # The first timeout was told too, without the button.
    first = [c for c in fake_api.sent_to(ana.user_id) if c.params["text"] in (
        say("de", texts.timed_out_passed, table_id), say("de", texts.timed_out_folded, table_id))]
    assert first and "sitin" not in str(first[0].params.get("reply_markup"))

    # Ana taps Sit in.
    press = callback_update(SitIn(table=table_id).pack(), notice.result, user_id=ana.user_id,
                            language_code="de")
    await deployment.tell(server, press)
    answer = await fake_api.wait_for(
        "answerCallbackQuery",
        lambda c: c.params["callback_query_id"] == press["callback_query"]["id"], within=10)
    assert answer.params["text"] == say("de", texts.sat_in)
    view = await ana.view(table_id)
    assert not next(s for s in view["seats"] if s["user_id"] == ana.user_id)["sat_out"]
    edited = await fake_api.wait_for("editMessageText", to_chat(ana.user_id), within=10)
    assert edited.params["text"].endswith(say("de", texts.sat_in))
    assert await asyncio.to_thread(server.stop) == 0
