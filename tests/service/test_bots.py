"""Practice bots: a strategy that only picks legal actions, and tables of bots that play on."""

from __future__ import annotations

import asyncio
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events.codec import decode_table_event
from events.table import HandSettled
from service.game.commands import CreateTable, SitDown, Tick, command_for_action
from service.game.decider import step
from service.game.settings import TableSettings
from service.game.state import TableState
from service.game.view import view
from service.tables import bots
from service.tables.facade import User
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.service_play import assert_conserved, make_users
from tests.support.services import Factory


def test_bot_ids_are_negative_stable_and_distinct() -> None:
    ids = {bots.bot_user_id("t1", i) for i in range(10)}
    assert len(ids) == 10 and all(i < 0 for i in ids)
    assert bots.bot_user_id("t1", 3) == bots.bot_user_id("t1", 3) != bots.bot_user_id("t2", 3)
    assert bots.bot_name(0) == "Bot Ana"


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2**32), st.sampled_from(["play", "split"]))
def test_strategy_only_chooses_legal_actions(players: int, seed: int, svara: str) -> None:
    """Bots play hands on the pure decider: every chosen action is accepted; chips conserved."""
    rng = random.Random(seed)
    table = TableSettings(ante=5, max_seats=players, svara=svara)  # type: ignore[arg-type]
    now = 1_800_000_000.0
    _, state = step(None, CreateTable(table_id="t", settings=table, created_by=1, now=now))
    version = 1
    ids = [-(i + 1) for i in range(players)]
    for user_id in ids:
        command = SitDown(
            user_id=user_id,
            name="b",
            buy_in=100,
            transfer_id=str(user_id),
            now=now,
            seed=rng.randbytes(32),
        )
        events, state = step(state, command)
        version += len(events)
    hands_done = 0
    for _ in range(600):
        if hands_done >= 3:
            break
        acted = False
        for user_id in ids:
            choice = bots.choose(view(state, user_id, version), rng)
            if choice is None:
                continue
            seed_bytes = rng.randbytes(32)
            command = command_for_action(
                choice[0], user_id=user_id, amount=choice[1], now=now, seed=seed_bytes
            )
            events, state = step(state, command)  # a GameError here fails the test
            version += len(events)
            hands_done += sum(isinstance(e, HandSettled) for e in events)
            acted = True
            break
        if not acted:
            deadline = state.deadline
            if deadline is None:
                break  # everyone else is broke: nothing more can happen
            now = max(now, deadline)
            events, state = step(state, Tick(now=now, seed=rng.randbytes(32)))
            version += len(events)
            hands_done += sum(isinstance(e, HandSettled) for e in events)
        assert isinstance(state, TableState)
        assert state.chips_in_play() == 100 * players
    assert hands_done >= 1


async def _advance_clock(clock: FakeClock) -> None:
    while True:
        clock.advance(1.0)  # the next-hand pause passes quickly; turns never time out
        await asyncio.sleep(0.01)


async def _settled_hands(service: TableService, table_id: str) -> int:
    stored = await service.store.read(service.streams.table(table_id))
    return sum(isinstance(decode_table_event(e.data), HandSettled) for e in stored)


async def _bots_play(services: list[TableService], clock: FakeClock, hands: int) -> str:
    creator = make_users(1)[0]
    table_id = await services[0].create_table(
        creator, TableSettings(ante=10, max_seats=4, turn_seconds=30), practice_bots=3
    )
    for service in services:
        await service.start()
    ticker = asyncio.create_task(_advance_clock(clock))
    try:
        for _ in range(1500):
            if await _settled_hands(services[0], table_id) >= hands:
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("the practice bots did not finish their hands")
    finally:
        ticker.cancel()
        for service in services:
            await service.stop()
    state = (await services[0].repo.load(table_id)).state
    assert state is not None
    bot_users = [User(id=s.user_id, name=s.name) for s in state.seats if s is not None]
    assert len(bot_users) == 3 and all(bots.is_bot(u.id) for u in bot_users)
    await services[0].reconcile()
    await assert_conserved(services[0], bot_users, [table_id])
    return table_id


async def test_practice_bots_finish_hands_on_the_embedded_store(
    embedded: Factory, clock: FakeClock
) -> None:
    service = await embedded(bots_play_alone=True)
    await _bots_play([service], clock, hands=4)


async def test_bots_wait_for_a_human(embedded: Factory, clock: FakeClock) -> None:
    """Alone, bots do not play (a forgotten practice table costs nothing); with a human they do."""
    service = await embedded()
    [human] = make_users(1)
    table_id = await service.create_table(human, TableSettings(ante=10), practice_bots=2)
    await service.start()
    # Bots think for no time here: were they to play alone, the wake index would say so and
    # the worker's next poll would start them. Three polls, and nothing in flight, later:
    polls = service.driver.polls
    for _ in range(500):
        if service.driver.polls >= polls + 3:
            break
        await asyncio.sleep(0.01)
    await service.driver.drain()
    stored = await service.store.read(service.streams.table(table_id))
    kinds = [type(decode_table_event(e.data)).__name__ for e in stored]
    assert kinds.count("ClientSeedSet") == 2  # each bot's fixed seed, set as it sat down
    kinds = [k for k in kinds if k != "ClientSeedSet"]
    assert kinds[-1] in ("TurnDeadlineSet", "CardsDealt") and "Looked" not in kinds
    await service.seat(human, table_id, 200)
    seen = len(stored)
    for _ in range(200):
        if (await service.store.version(service.streams.table(table_id))) > seen + 1:
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("the bots did not play with a human seated")


@pytest.mark.redis
async def test_two_processes_drive_the_same_bots(services: Factory, clock: FakeClock) -> None:
    first, second = await services(bots_play_alone=True), await services(bots_play_alone=True)
    table_id = await _bots_play([first, second], clock, hands=4)
    stored = await first.store.read(first.streams.table(table_id))
    assert [e.version for e in stored] == list(range(1, len(stored) + 1))
    assert await first.store.verify(first.streams.table(table_id)) == len(stored)
    for hand in range(1, 5):
        audit = await first.audit(table_id, hand)
        assert audit["verified"], audit["checks"]


async def test_dev_mode_reopens_the_house_practice_table_instead_of_piling_them_up(
    services: Factory,
) -> None:
    """Each `svara serve` start in dev mode asks for the house's practice table: its bots never
    leave, so opening one at every start left the lobby with several "Practice table" rows.
    A later start (here: another replica) is given the open one while it has a free seat."""
    from service.api.serve import open_practice_table

    first, second = await services(), await services()
    table_id = await open_practice_table(first, 2)
    assert await open_practice_table(second, 2) == table_id
    rows = (await second.list_tables())["tables"]
    assert [row["table_id"] for row in rows if row["practice"]] == [table_id]
    # Full (the bots and the guests take every seat): then, and only then, another one opens.
    settings = (await first.view(None, table_id))["settings"]
    for user in make_users(settings["max_seats"] - 2):
        await first.seat(user, table_id, 10 * settings["ante"])
    other = await open_practice_table(second, 2)
    assert other != table_id
    assert await open_practice_table(first, 2) == other
