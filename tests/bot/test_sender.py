"""The sender: Telegram's limits kept, 429 waited out and sent again (delivered once), 403
remembered, and only safe calls repeated after an error. Real aiogram against the fake Bot API
(small limits, so the tests take seconds), plus the pacing rule itself under Hypothesis."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramForbiddenError, TelegramServerError
from hypothesis import example, given, settings
from hypothesis import strategies as st

from service.bot.runner import make_bot
from service.bot.sender import Limits, Sender, chat_of
from tests.bot.botkit import TOKEN
from tests.support.fake_bot_api import Call, FakeBotAPI

EPS = 0.002  # between booking a call's slot and its departure: no await, microseconds


class Departures:
    """A request middleware inside the sender: when each call really leaves the process
    (what the limits are about; the fake's arrival times add the machine's jitter), by the
    sender's clock."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.times: list[tuple[int | None, float]] = []

    async def __call__(self, make_request: Any, bot: Bot, method: Any) -> Any:
        self.times.append((chat_of(method), self.clock()))
        return await make_request(bot, method)

    def of(self, chat: int | None = None) -> list[float]:
        return [t for c, t in self.times if chat is None or c == chat]


@pytest.fixture
async def make_sender(fake_api: FakeBotAPI) -> AsyncIterator[Any]:
    bots: list[Bot] = []

    def make(
        limits: Limits | None = None, virtual: VirtualTime | None = None
    ) -> tuple[Bot, Sender, Departures]:
        """`virtual`: the sender waits on that clock (no real waiting) instead of the real one."""
        bot = make_bot(TOKEN, fake_api.url)
        if virtual is None:
            sender, departures = Sender(limits), Departures()
        else:
            sender = Sender(limits, clock=virtual.clock, sleep=virtual.sleep)
            departures = Departures(virtual.clock)
        bot.session.middleware(sender)
        bot.session.middleware(departures)  # registered later: runs inside the sender
        bots.append(bot)
        return bot, sender, departures

    yield make
    for bot in bots:
        await bot.session.close()


def accepted(fake: FakeBotAPI, chat: int) -> list[Call]:
    return fake.sent_to(chat)


async def test_a_429_is_waited_out_and_the_message_delivered_exactly_once(
    fake_api: FakeBotAPI, make_sender: Any
) -> None:
    bot, sender, _ = make_sender()
    retries: list[tuple[str, int | None, float]] = []
    sent: list[tuple[str, int | None]] = []
    sender.on_retry_after.append(
        lambda method, chat, seconds: retries.append((method, chat, seconds)))
    sender.on_sent.append(lambda method, chat: sent.append((method, chat)))
    fake_api.too_many_requests(701, times=2, retry_after=1)
    started = time.monotonic()
    message = await bot.send_message(701, "your turn")
    assert message.text == "your turn"
    tries = fake_api.calls_of("sendMessage")
    assert [c.status for c in tries] == [429, 429, 200]
    assert len(accepted(fake_api, 701)) == 1  # delivered once: never dropped, never twice
    assert tries[1].at - tries[0].at >= 0.9 and tries[2].at - tries[1].at >= 0.9
    assert time.monotonic() - started >= 1.98
    assert retries == [("sendMessage", 701, 1), ("sendMessage", 701, 1)]
    assert sent == [("sendMessage", 701)]


async def test_a_429_is_waited_out_for_its_retry_after_not_the_pacing(
    fake_api: FakeBotAPI, make_sender: Any
) -> None:
    """Telegram's `retry_after` longer than the chat's pacing: the retry waits all of it (on
    the sender's clock, so the test does not wait 3 s)."""
    virtual = VirtualTime()
    bot, _, left = make_sender(Limits(per_chat_interval=1.0), virtual)
    fake_api.too_many_requests(709, times=1, retry_after=3)
    await bot.send_message(709, "after three seconds")
    assert [c.status for c in fake_api.calls_of("sendMessage")] == [429, 200]
    first, second = left.of(709)
    assert second - first >= 3.0


async def test_a_429_on_a_call_to_no_chat_is_waited_out_too(
    fake_api: FakeBotAPI, make_sender: Any
) -> None:
    """A call no chat's pacing covers (answerCallbackQuery has no chat_id) waits `retry_after`
    itself before it goes again, and is then delivered once."""
    virtual = VirtualTime()
    bot, sender, left = make_sender(Limits(), virtual)
    retries: list[tuple[str, int | None, float]] = []
    sender.on_retry_after.append(
        lambda method, chat, seconds: retries.append((method, chat, seconds)))
    fake_api.too_many_calls("answerCallbackQuery", times=2, retry_after=3)
    assert await bot.answer_callback_query("q1", text="ok")
    assert [c.status for c in fake_api.calls_of("answerCallbackQuery")] == [429, 429, 200]
    times = left.of()
    assert len(times) == 3
    assert times[1] - times[0] >= 3.0 and times[2] - times[1] >= 3.0
    assert retries == [("answerCallbackQuery", None, 3), ("answerCallbackQuery", None, 3)]


async def test_a_chat_waiting_on_a_429_holds_up_no_other_chat(
    fake_api: FakeBotAPI, make_sender: Any
) -> None:
    bot, _, _ = make_sender()
    fake_api.too_many_requests(702, times=1, retry_after=2)
    slow = asyncio.create_task(bot.send_message(702, "later"))
    await fake_api.wait_until(lambda: bool(fake_api.calls_of("sendMessage")))
    started = time.monotonic()
    await bot.send_message(703, "now")
    assert time.monotonic() - started < 1.0
    await slow
    assert len(accepted(fake_api, 702)) == 1


async def test_a_403_in_private_means_blocked_and_is_not_retried(
    fake_api: FakeBotAPI, make_sender: Any
) -> None:
    bot, sender, _ = make_sender()
    blocked: list[int] = []

    async def remember(user_id: int) -> None:
        blocked.append(user_id)

    sender.on_blocked.append(remember)
    fake_api.blocked.update({704, -705})
    with pytest.raises(TelegramForbiddenError):
        await bot.send_message(704, "hello?")
    with pytest.raises(TelegramForbiddenError):  # a group that removed the bot: no user
        await bot.send_message(-705, "hello?")
    assert blocked == [704]
    assert len(fake_api.calls_of("sendMessage")) == 2


async def test_one_chat_gets_its_messages_in_order_a_second_apart(
    fake_api: FakeBotAPI, make_sender: Any
) -> None:
    bot, _, left = make_sender(Limits(per_chat_interval=0.3))
    await asyncio.gather(*(bot.send_message(706, f"m{i}") for i in range(4)))
    calls = accepted(fake_api, 706)
    assert [c.params["text"] for c in calls] == ["m0", "m1", "m2", "m3"]
    gaps = [b - a for a, b in itertools.pairwise(left.of(706))]
    assert len(gaps) == 3 and min(gaps) >= 0.3 - EPS, gaps


async def test_a_group_gets_at_most_its_limit_per_window(
    fake_api: FakeBotAPI, make_sender: Any
) -> None:
    bot, _, left = make_sender(
        Limits(per_chat_interval=0.01, group_limit=3, group_window=1.0))
    await asyncio.gather(*(bot.send_message(-707, f"r{i}") for i in range(5)))
    times = left.of(-707)
    assert len(times) == 5 and len(accepted(fake_api, -707)) == 5
    assert times[3] - times[0] >= 1.0 - EPS and times[4] - times[1] >= 1.0 - EPS
    assert times[2] - times[0] < 0.9  # the first three went without waiting for the window


async def test_all_chats_together_keep_the_overall_limit(
    fake_api: FakeBotAPI, make_sender: Any
) -> None:
    bot, _, left = make_sender(Limits(overall_limit=4, overall_window=0.5))
    await asyncio.gather(*(bot.send_message(800 + i, "x") for i in range(10)))
    times = sorted(left.of())
    assert len(times) == 10 and len(fake_api.calls_of("sendMessage")) == 10
    for i in range(len(times) - 4):
        assert times[i + 4] - times[i] >= 0.5 - EPS  # any 5 span at least the window


async def test_edits_are_paced_and_retried_after_a_server_error_sends_are_not(
    fake_api: FakeBotAPI, make_sender: Any
) -> None:
    bot, _, _ = make_sender(Limits(backoff=0.01))
    message = await bot.send_message(708, "v1")
    fake_api.server_errors["editmessagetext"] = 2
    await bot.edit_message_text("v2", chat_id=708, message_id=message.message_id)
    assert [c.status for c in fake_api.calls_of("editMessageText")] == [500, 500, 200]
    assert fake_api.messages[(708, message.message_id)]["text"] == "v2"
    fake_api.server_errors["sendmessage"] = 1
    with pytest.raises(TelegramServerError):  # it may have arrived: never risk it twice
        await bot.send_message(708, "once")
    assert [c.status for c in fake_api.calls_of("sendMessage")] == [200, 500]


def test_what_is_paced() -> None:
    from aiogram.methods import (
        AnswerCallbackQuery,
        DeleteMessage,
        EditMessageText,
        GetUpdates,
        SendMessage,
        SetMyCommands,
    )

    assert chat_of(SendMessage(chat_id=5, text="x")) == 5
    assert chat_of(SendMessage(chat_id="-100200", text="x")) == -100200
    assert chat_of(SendMessage(chat_id="@channel", text="x")) is None
    assert chat_of(EditMessageText(chat_id=7, message_id=1, text="x")) == 7
    assert chat_of(DeleteMessage(chat_id=7, message_id=1)) == 7
    assert chat_of(AnswerCallbackQuery(callback_query_id="1")) is None
    assert chat_of(GetUpdates()) is None
    assert chat_of(SetMyCommands(commands=[])) is None


class VirtualTime:
    def __init__(self) -> None:
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


# Bursts of messages (all at once) after pauses, to two busy groups and many private chats:
# every limit gets to bind.
chats = st.one_of(st.sampled_from([-10, -11]), st.integers(1, 60))
crowd = st.lists(st.integers(100, 999), min_size=31, max_size=45, unique=True)  # all at once
bursts = st.lists(
    st.tuples(
        st.sampled_from([0.0, 0.3, 2.0, 30.0]),
        st.one_of(st.lists(chats, min_size=1, max_size=45), crowd),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=200, deadline=None)
@given(bursts)
# Found by this test: 1.3 + 1.0 - 2.3 == 0.0 but 1.3 > 2.3 - 1.0 in floats, so the window was
# "full" and "no wait" at once, and 63 calls went within one second.
@example([(1.3, list(range(100, 131))), (0.0, list(range(200, 232)))])
def test_pacing_never_breaks_a_limit(plan: list[tuple[float, list[int]]]) -> None:
    """Messages arriving at random to private chats and groups, one process: every booking
    keeps 1 s per chat, 20 per minute per group, 30 per second overall, in arrival order."""
    limits = Limits()
    virtual = VirtualTime()
    sender = Sender(limits, clock=virtual.clock, sleep=virtual.sleep)
    booked: list[tuple[int, float]] = []

    async def run() -> None:
        for pause, burst in plan:
            virtual.now += pause
            arrived = virtual.now
            for chat in burst:
                await sender._take_slot(chat)
                assert virtual.now >= arrived
                booked.append((chat, virtual.now))

    asyncio.run(run())
    eps = 1e-9
    for chat in {c for c, _ in booked}:
        times = [t for c, t in booked if c == chat]
        assert all(b - a >= limits.per_chat_interval - eps for a, b in itertools.pairwise(times))
        if chat < 0:
            for i in range(len(times) - limits.group_limit):
                assert times[i + limits.group_limit] - times[i] >= limits.group_window - eps
    everything = [t for _, t in booked]
    for i in range(len(everything) - limits.overall_limit):
        assert everything[i + limits.overall_limit] - everything[i] >= limits.overall_window - eps
