"""Turn pings, timeout notices and group results, in one process: the real TableService on the
real Redis (a clock the test moves), the bot attached to it by `attach_bot`, real aiogram
against the fake Bot API. The same flows run in real `svara serve` processes in
test_serve_notify.py; here each rule is pinned down with the clock in hand."""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from collections.abc import Sequence
from typing import Any

import pytest

from service.bot import texts
from service.bot.config import WEBHOOK_PATH, webhook_secret
from service.bot.groups import GroupTables
from service.bot.keyboards import SitIn
from service.bot.results import Outcome, Shown, render
from service.game.settings import TableSettings
from service.tables.facade import FeedItem, User
from service.tables.service import TableService
from tests.bot.conftest import PUBLIC_URL, TOKEN, BotApp, say
from tests.bot.fakeapi import Call, FakeBotAPI, callback_update, member_update, message_update
from tests.service.conftest import Factory, FakeClock

pytestmark = pytest.mark.redis


def people(*languages: str) -> list[User]:
    base = random.randrange(10**9, 10**12)
    names = ["Ana", "Boris", "Vera", "Georgi", "Dimo"]
    return [User(base + i, names[i], language_code=code) for i, code in enumerate(languages)]


def to_chat(chat_id: int) -> Any:
    return lambda call: int(call.params["chat_id"]) == chat_id


class Table:
    """A table driven from the test: players act by a fixed preference, the timer fires when
    the test moves the clock to the deadline."""

    def __init__(self, service: TableService, clock: FakeClock, table_id: str) -> None:
        self.service = service
        self.clock = clock
        self.id = table_id

    async def turn(self) -> int | None:
        _, state = await self.service.state(self.id)
        assert state is not None
        hand = state.hand
        if hand is None or not hand.active or hand.turn is None:
            return None
        seat = state.seats[hand.turn]
        return seat.user_id if seat is not None else None

    async def tick(self) -> None:
        """Move the clock to the table's deadline and let the timer act."""
        _, state = await self.service.state(self.id)
        assert state is not None and state.deadline is not None, state
        self.clock.now = max(self.clock.now, state.deadline)
        await self.service.presence.refresh()  # what its refresher does as time goes by
        await self.service.driver.fire(self.id)

    async def move(self, user: User) -> None:
        """`user` acts a second after the last command (as people do: never in the same
        clock reading, which is what tells two turns of one player apart)."""
        self.clock.advance(1.0)
        await self.service.presence.refresh()
        view = await self.service.view(user, self.id)
        legal = {a["type"]: a for a in view["you"]["legal"]}
        for kind in ("pass", "call", "raise", "fold"):
            if kind in legal:
                amount = legal[kind].get("min") if kind == "raise" else None
                await self.service.act(user, self.id, action_id=uuid.uuid4().hex, type=kind,
                                       amount=amount)
                return
        raise AssertionError(f"{user.name} may not move: {legal}")

    async def play(self, users: Sequence[User], hands: int) -> None:
        """Everyone acts on their turn until hand number `hands` is settled."""
        by_id = {u.id: u for u in users}
        for _ in range(500):
            _, state = await self.service.state(self.id)
            assert state is not None
            hand = state.hand
            if hand is not None and hand.number >= hands and hand.phase == "settled":
                return
            turn = await self.turn()
            if turn is None:
                await self.tick()
            else:
                await self.move(by_id[turn])
        raise AssertionError(f"hand {hands} did not settle")

    async def until_turn_of(self, user: User, others: Sequence[User]) -> None:
        """Let the others move (and the timer deal) until it is `user`'s turn."""
        for _ in range(50):
            turn = await self.turn()
            if turn == user.id:
                return
            mover = next((o for o in others if o.id == turn), None)
            if mover is not None:
                await self.move(mover)
            else:
                await self.tick()
        raise AssertionError(f"never {user.name}'s turn")


class Live:
    def __init__(self, service: TableService, clock: FakeClock, fake: FakeBotAPI) -> None:
        self.service = service
        self.clock = clock
        self.fake = fake

    async def start_bot(self, user: User) -> None:
        self.fake.push_update(message_update(
            "/start", user_id=user.id, first_name=user.name, language_code=user.language_code))
        await self.fake.wait_for("sendMessage", to_chat(user.id), within=10)
        assert (await self.service.profile(user.id)).reachable

    async def table(self, users: Sequence[User], **settings: Any) -> Table:
        table_id = await self.service.create_table(
            users[0], TableSettings(ante=10, **settings))
        for user in users:
            await self.service.seat(user, table_id, 300)
        return Table(self.service, self.clock, table_id)


@pytest.fixture
async def live(services: Factory, clock: FakeClock, fake_api: FakeBotAPI,
               bot_app: BotApp) -> Live:
    service = await services()
    await bot_app(service, mode="polling")
    return Live(service, clock, fake_api)


async def expected_ping(table: Table, language: str) -> str:
    """The ping for the turn that just started (the clock stands still during a turn)."""
    _, state = await table.service.state(table.id)
    assert state is not None and state.hand is not None and state.hand.turn_deadline
    left = int(state.hand.turn_deadline - table.clock.now)
    return say(language, texts.your_turn, table.id, state.hand.pot, left)


def is_ping(call: Call) -> bool:
    return "reply_markup" in call.params and "?table=" in str(call.params["reply_markup"]) \
        and "sitin" not in str(call.params["reply_markup"])


def ping_to(user: User) -> Any:
    return lambda call: to_chat(user.id)(call) and is_ping(call)


def pings_to(fake: FakeBotAPI, user: User) -> list[Call]:
    return [c for c in fake.sent_to(user.id) if is_ping(c)]


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


async def test_no_ping_to_who_never_started_the_bot_has_pings_off_or_the_table_open(
    live: Live, fake_api: FakeBotAPI
) -> None:
    never, quiet, watching, control = people("en", "de", "tr", "bg")
    for user in (quiet, watching, control):
        await live.start_bot(user)
    await live.service.set_preferences(quiet, pings=False)  # as the web app's setting does
    table = await live.table([never, quiet, watching, control], turn_seconds=30)
    token = await live.service.presence.opened(table.id, watching.id)  # a socket is open
    everyone = {u.id: u for u in (never, quiet, watching, control)}
    had_turn: set[int] = set()
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
        await table.move(everyone[turn])
    await asyncio.sleep(0.5)  # a ping to the others would have been decided long before
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
    live: Live, fake_api: FakeBotAPI
) -> None:
    ana, boris = people("de", "en")
    await live.start_bot(ana)
    fake_api.blocked.add(ana.id)
    table = await live.table([ana, boris])
    await table.until_turn_of(ana, [boris])
    await fake_api.wait_until(
        lambda: any(c.status == 403 for c in fake_api.calls_of("sendMessage", to_chat(ana.id))))
    for _ in range(50):
        if (await live.service.profile(ana.id)).bot == "blocked":
            break
        await asyncio.sleep(0.05)
    assert (await live.service.profile(ana.id)).bot == "blocked"
    attempts = len(fake_api.calls_of("sendMessage", to_chat(ana.id)))
    await table.move(ana)
    await table.until_turn_of(ana, [boris])
    await asyncio.sleep(0.5)
    assert len(fake_api.calls_of("sendMessage", to_chat(ana.id))) == attempts  # not even tried

    # She unblocks it (Telegram says so) and is called again on her next turn.
    fake_api.blocked.discard(ana.id)
    fake_api.push_update(member_update(ana.id, old="kicked", new="member", language_code="de"))
    for _ in range(100):
        if (await live.service.profile(ana.id)).reachable:
            break
        await asyncio.sleep(0.05)
    assert (await live.service.profile(ana.id)).reachable
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

    await table.play([ana, boris], 2)  # within the minute
    edited = await fake_api.wait_for("editMessageText", to_chat(group), within=5)
    assert int(edited.params["message_id"]) == posted.result["message_id"]
    assert edited.params["text"].startswith(say("de", texts.result_header, table_id, 2))
    assert "\nHand 1: " in edited.params["text"]  # hand 1 folded into one line
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


class NullSink:
    def deliver(self, items: Sequence[FeedItem]) -> None:
        pass

    async def drained(self) -> None:
        await asyncio.sleep(0)


async def test_two_replicas_send_one_ping_per_turn_and_one_result_per_hand(
    services: Factory, clock: FakeClock, fake_api: FakeBotAPI, bot_app: BotApp,
    caplog: pytest.LogCaptureFixture,
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
        await asyncio.sleep(1.0)  # room for a wrong third
        assert [c.method for c in results()] == ["sendMessage", "editMessageText"]
    finally:
        follow.cancel()
        await asyncio.gather(follow, return_exceptions=True)


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
