"""The documented polling topology: one replica polls Telegram, the others run `BOT_MODE=off`.
Every move here goes through the `off` replica, which is then the only one that learns of the
turns those moves start (the polling one did not write them and follows no socket of the
table): it must still ping, tell of a timeout and post the group's result. Real `svara serve`
processes on the real Redis, the fake Bot API as Telegram."""

from __future__ import annotations

import asyncio
import re
import uuid
from typing import Any

import aiohttp
import pytest

from service.bot import texts
from tests.bot.botkit import say
from tests.bot.serving import (
    Deployment,
    move,
    ping_decisions,
    ping_text,
    pings,
    players,
    to_chat,
    turn_of,
)
from tests.support.fake_bot_api import Call, FakeBotAPI, message_update
from tests.support.http_player import HttpPlayer

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def is_timeout_notice(call: Call, language: str, table_id: str) -> bool:
    return call.params["text"] in (say(language, texts.timed_out_passed, table_id),
                                   say(language, texts.timed_out_folded, table_id))


def turn_pings(fake: FakeBotAPI, player: HttpPlayer, language: str, table_id: str) -> list[Call]:
    """The pings sent to `player` (the timeout notice has the table's button too)."""
    return [c for c in pings(fake, player, table_id)
            if not is_timeout_notice(c, language, table_id)]


async def test_moves_through_an_off_replica_are_pinged_told_and_posted_once(
    deployment: Deployment, fake_api: FakeBotAPI, session: aiohttp.ClientSession
) -> None:
    polling = await deployment.start("polling")
    off = await deployment.start("off")
    ana, boris = players(session, off, ["Ana", "Boris"])  # every API call goes to `off`
    language = {ana.user_id: "en", boris.user_id: "bg"}
    for player in (ana, boris):
        await deployment.start_bot(polling, player, language[player.user_id])
    group = -int(uuid.uuid4().int % 10**12) - 1
    await deployment.tell(polling, message_update(
        "/newtable 10 2", user_id=ana.user_id, first_name="Ana", chat_id=group,
        chat_type="supergroup", language_code="en"))
    invite = await fake_api.wait_for("sendMessage", to_chat(group), within=15)
    table_id = invite.params["reply_markup"]["inline_keyboard"][0][0]["url"].split("table_")[1]
    for player in (ana, boris):  # the hand starts as the second player sits down
        await player.ok("POST", f"/api/tables/{table_id}/seat", {"buy_in": 300})

    by_id = {p.user_id: p for p in (ana, boris)}
    turns: dict[int, set[tuple[Any, ...]]] = {ana.user_id: set(), boris.user_id: set()}
    lapsed: tuple[Any, ...] | None = None  # Ana's first turn: she lets it time out
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 150
    while True:
        assert loop.time() < deadline, "the hand did not settle in 150 s"
        user, view = await turn_of(ana, table_id)
        hand = view["hand"]
        if hand is not None and hand["phase"] == "settled":
            break
        if user is None:
            await asyncio.sleep(0.05)
            continue
        turn = (hand["number"], hand["deal"], hand["phase"], hand["turn"], hand["deadline"])
        player = by_id[user]
        if turn not in turns[user]:
            turns[user].add(turn)
            count = len(turns[user])
            await fake_api.wait_until(  # this turn's ping, in the player's language
                lambda p=player, n=count: len(turn_pings(fake_api, p, language[p.user_id],
                                                         table_id)) >= n, within=10)
            mine = turn_pings(fake_api, player, language[user], table_id)
            assert len(mine) == count
            assert ping_text(language[user], table_id, hand["pot"], mine[-1].params["text"])
        if user == ana.user_id and (lapsed is None or lapsed == turn):
            lapsed = turn
            await asyncio.sleep(0.1)  # until the turn times out (the loop sees it move on)
            continue
        await move(player, table_id)
    assert lapsed is not None
    await boris.ok("POST", f"/api/tables/{table_id}/leave")  # no second hand

    notice = await fake_api.wait_for(
        "sendMessage", lambda c: to_chat(ana.user_id)(c)
        and is_timeout_notice(c, "en", table_id), within=10)
    assert notice.params["text"]
    result_header = say("en", texts.result_header, table_id, 1)
    await fake_api.wait_for("sendMessage", lambda c: to_chat(group)(c)
                            and c.params["text"].startswith(result_header), within=10)
    # Every turn was decided and one replica claimed its ping: the counters of both add up to
    # one `sent` per turn the test saw (a decision still pending could only be `elsewhere`).
    total = sum(len(seen) for seen in turns.values())

    async def sent() -> float:
        return sum([(await ping_decisions(session, s)).get("sent", 0) for s in (polling, off)])

    async with asyncio.timeout(10):
        while True:
            if await sent() >= total:
                break
            await asyncio.sleep(0.05)
    assert await sent() == total
    # Stopped (each drains what it is sending first), the replicas can send nothing more: what
    # the fake holds now is all there will ever be.
    assert await asyncio.to_thread(deployment.stop) == [0, 0]
    for user, seen in turns.items():
        assert len(turn_pings(fake_api, by_id[user], language[user], table_id)) == len(seen)
    notices = [c for c in fake_api.sent_to(ana.user_id) if is_timeout_notice(c, "en", table_id)]
    assert len(notices) == 1
    assert not [c for c in fake_api.sent_to(boris.user_id)
                if is_timeout_notice(c, "bg", table_id)]
    results = [c for c in fake_api.sent_to(group) if c.params["text"].startswith(result_header)]
    assert len(results) == 1
    logs = [s.output() for s in deployment.servers]
    marks = re.findall(rf"ping for (turn:{table_id}:\S+): sending it", "".join(logs))
    assert len(marks) == len(set(marks)) == total
