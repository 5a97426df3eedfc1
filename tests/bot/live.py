"""A live TableService with the bot attached, driven from the test: players (`people`) in
their languages, a `Table` whose clock the test moves, and `Live` to start the bot for them
(the `live` fixture in the conftest builds one)."""

from __future__ import annotations

import random
import uuid
from collections.abc import Sequence
from typing import Any

from service.bot import texts
from service.game.settings import TableSettings
from service.tables.facade import User
from service.tables.service import TableService
from tests.bot.botkit import say
from tests.support.clock import FakeClock
from tests.support.fake_bot_api import Call, FakeBotAPI, message_update


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


ALL_IN = ("raise", "call", "blind", "join_svara", "pass")


async def play_tournament(
    service: TableService, clock: FakeClock, tournament_id: str, users: Sequence[User]
) -> None:
    """Play a running tournament to its end, prizes paid: each player on turn bets the most
    the rules allow (so stacks go fast); when nobody may act the clock jumps to the deadline."""
    tournaments = service.tournaments
    for _ in range(3000):
        await tournaments.manager.catch_up()
        t = await tournaments.get(tournament_id)
        if t["status"] == "finished":
            _, state = await tournaments.store.load(tournament_id)
            if state is not None and state.paid:
                return
            continue
        table_id = t["table_id"]
        assert table_id is not None, t
        for user in users:
            you = (await service.view(user, table_id)).get("you") or {}
            legal = {a["type"]: a for a in you.get("legal", [])}
            kind = next((k for k in ALL_IN if k in legal), None)
            if kind is not None:
                amount = legal[kind].get("max", legal[kind].get("amount"))
                await service.act(user, table_id, action_id=uuid.uuid4().hex, type=kind,
                                  amount=amount if kind in ("raise", "blind") else None)
                break
        else:
            _, table = await service.state(table_id)
            assert table is not None and table.deadline is not None, "stuck"
            clock.now = max(clock.now, table.deadline)
            await service.driver.fire(table_id)
    raise AssertionError("the tournament did not finish")


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


async def open_table(service: TableService, clock: FakeClock, users: list[User],
                     **settings: Any) -> Table:
    table_id = await service.create_table(users[0], TableSettings(**{"ante": 10, **settings}))
    for user in users:
        await service.seat(user, table_id, 300)
    return Table(service, clock, table_id)


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
