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
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from service.bot import texts
from service.bot.config import WEBHOOK_PATH, webhook_secret
from service.bot.keyboards import SitIn
from tests.api.player import Player
from tests.bot.conftest import TOKEN, free_port, say
from tests.bot.fakeapi import Call, FakeBotAPI, callback_update, message_update
from tests.webapp.server import Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]

PUBLIC = "https://svara.example"
JSON = dict[str, Any]


class Deployment:
    """`svara serve` replicas of one deployment (one namespace on the shared Redis)."""

    def __init__(self, tmp: Path, fake: FakeBotAPI, redis_url: str, namespace: str) -> None:
        self.tmp = tmp
        self.fake = fake
        self.env = {
            "REDIS_URL": redis_url, "SVARA_NAMESPACE": namespace, "BOT_TOKEN": TOKEN,
            "BOT_MODE": "webhook", "TELEGRAM_API_URL": fake.url, "PUBLIC_URL": PUBLIC,
            "RATE_LIMIT_PER_SECOND": "500", "RATE_LIMIT_BURST": "1000", "LOG_LEVEL": "INFO",
        }
        self.servers: list[Server] = []

    async def start(self) -> Server:
        hooks = len(self.fake.calls_of("setWebhook"))
        port = free_port()
        server = Server(self.tmp / f"serve-{len(self.servers)}.log", extra_env=self.env,
                        port=port)
        self.servers.append(server)
        # Importing aiogram alone takes 10 s on a loaded machine.
        await asyncio.to_thread(server.wait_ready, 60)
        # Ours, not another checkout's server on the same port: it called our fake Telegram
        # (at startup, just before it binds the port), and it still runs once that answers.
        await self.fake.wait_until(
            lambda: len(self.fake.calls_of("setWebhook")) > hooks, within=30)
        await asyncio.to_thread(server.wait_ready, 30)
        assert server.proc.poll() is None, server.log_path.read_text()[-2000:]
        return server

    async def tell(self, server: Server, update: JSON) -> None:
        """Telegram delivers `update` to this replica's webhook."""
        status = await self.fake.deliver(update, url=server.url + WEBHOOK_PATH,
                                         secret=webhook_secret(TOKEN))
        assert status == 200

    async def start_bot(self, server: Server, player: Player, language: str) -> None:
        await self.tell(server, message_update("/start", user_id=player.user_id,
                                               first_name=player.name, language_code=language))
        await self.fake.wait_for("sendMessage", to_chat(player.user_id), within=15)

    def stop(self) -> list[int]:
        return [s.stop() for s in self.servers if s.proc.poll() is None]


@pytest.fixture
async def deployment(
    tmp_path: Path, fake_api: FakeBotAPI, redis_url: str, unique: str
) -> AsyncIterator[Deployment]:
    made = Deployment(tmp_path, fake_api, redis_url, f"bot{unique}")
    yield made
    await asyncio.to_thread(made.stop)


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


def to_chat(chat_id: int) -> Callable[[Call], bool]:
    return lambda call: str(call.params["chat_id"]) == str(chat_id)


def is_ping(call: Call, table_id: str) -> bool:
    markup = str(call.params.get("reply_markup", ""))
    return f"?table={table_id}" in markup and "sitin" not in markup


def pings(fake: FakeBotAPI, player: Player, table_id: str) -> list[Call]:
    return [c for c in fake.sent_to(player.user_id) if is_ping(c, table_id)]


def players(session: aiohttp.ClientSession, server: Server, names: list[str]) -> list[Player]:
    base = int(uuid.uuid4().int % 10**11) + 10**12  # fresh wallets on the shared Redis
    return [Player(session, server.url, base + i, TOKEN, name) for i, name in enumerate(names)]


async def open_table(owner: Player, seated: list[Player], **settings: Any) -> str:
    status, body = await owner.call("POST", "/api/tables", {"ante": 10, **settings})
    assert status == 201, body
    table_id = str(body["table_id"])
    for player in seated:
        await player.ok("POST", f"/api/tables/{table_id}/seat", {"buy_in": 300})
    return table_id


async def turn_of(player: Player, table_id: str) -> tuple[int | None, JSON]:
    """The user whose turn it is now (None between turns) and the view."""
    view = await player.view(table_id)
    hand = view["hand"]
    if hand is None or hand["phase"] not in ("blind", "betting") or hand["turn"] is None:
        return None, view
    seat = next(s for s in view["seats"] if s["seat"] == hand["turn"])
    return int(seat["user_id"]), view


async def move(player: Player, table_id: str) -> None:
    view = await player.view(table_id)
    legal = {a["type"]: a for a in view["you"]["legal"]}
    for kind in ("pass", "call", "raise", "fold"):
        if kind in legal:
            amount = legal[kind].get("min") if kind == "raise" else None
            status, body = await player.act(table_id, kind, amount,
                                            expected_version=view["version"])
            assert status in (200, 409), body  # 409: the timer moved first
            return


def ping_text(language: str, table_id: str, pot: int, text: str) -> bool:
    """Is `text` this table's ping in `language` (the seconds left are whatever they were)?"""
    seconds = re.findall(r"\d+", text)
    return any(text == say(language, texts.your_turn, table_id, pot, int(n)) for n in seconds)


async def ping_decisions(session: aiohttp.ClientSession, server: Server) -> dict[str, float]:
    """The server's `svara_bot_pings_total` by outcome (what it decided about each turn)."""
    async with session.get(f"{server.url}/metrics") as resp:
        text = await resp.text()
    found = re.findall(r'^svara_bot_pings_total\{outcome="(\w+)"\} ([0-9.e+]+)$', text, re.M)
    return {outcome: float(value) for outcome, value in found}


async def decided(session: aiohttp.ClientSession, server: Server, outcome: str,
                  at_least: int) -> None:
    """Wait until the server has decided `outcome` for `at_least` turns: the proof that it
    looked at a turn and sent nothing, instead of a sleep that hopes nothing comes."""
    async with asyncio.timeout(10):
        while True:
            if (await ping_decisions(session, server)).get(outcome, 0) >= at_least:
                return
            await asyncio.sleep(0.05)


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
    watcher = Player(session, two.url, boris.user_id, TOKEN, "Boris")
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
    await asyncio.sleep(2.0)  # room for anything sent twice
    assert pings(fake_api, boris, table_id) == []  # he has the table open
    results = [c for c in fake_api.sent_to(group) if c.params["text"].startswith("Table #")]
    assert len(results) == 1  # one per hand
    codes = await asyncio.to_thread(deployment.stop)  # they finish what they are sending
    assert codes == [0, 0]
    # Every ping claimed was delivered once, and each of Ana's turns was raced for by both
    # replicas: one sent the ping, the other stood back.
    logs = [s.log_path.read_text() for s in deployment.servers]
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
