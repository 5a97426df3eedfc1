"""Test helpers: users, chip conservation, and playing hands through the service."""

from __future__ import annotations

import random
import uuid
from collections.abc import Sequence

from service.game.settings import TableSettings
from service.tables import bots
from service.tables.facade import User
from service.tables.service import TableService
from tests.support.clock import FakeClock

SETTINGS = TableSettings(ante=10, max_seats=6, turn_seconds=30, next_hand_seconds=3)


def make_users(n: int) -> list[User]:
    """Users with random ids: the shared Redis keeps wallets of earlier runs."""
    base = random.randrange(10**9, 10**12)
    return [User(id=base + i, name=f"Player {i}") for i in range(n)]


async def chip_totals(
    service: TableService,
    user_ids: list[int],
    table_ids: list[str],
    tournament_ids: Sequence[str] = (),
) -> dict[str, int]:
    """Σ grants, Σ wallets, Σ reservations not yet seated (or registered), Σ chips at the
    cash tables, Σ prize pools not yet paid, read from the service's own wallets, streams,
    tables and tournaments. A tournament table's stacks are tournament chips, another
    currency: not counted."""
    granted = balances = held = 0
    t = service.tournaments.store
    for user_id in user_ids:
        _, state = await service.bank.load(user_id)
        granted += state.granted
        balances += state.balance
        for transfer_id, reservation in state.reserved.items():
            if reservation.table_id.startswith("tournament:"):
                stream = t.stream(reservation.table_id.removeprefix("tournament:"))
                action = f"register:{transfer_id}"
            else:
                stream, action = service.streams.table(reservation.table_id), f"sit:{transfer_id}"
            if await service.store.find_action(stream, action) is None:
                held += reservation.amount
    at_tables = 0
    for table_id in table_ids:
        loaded = await service.repo.load(table_id)
        if loaded.state is not None:
            at_tables += loaded.state.chips_in_play()
    pools = 0
    for tournament_id in tournament_ids:
        _, tournament = await t.load(tournament_id)
        pools += tournament.pool if tournament is not None else 0
    return {
        "granted": granted, "wallets": balances, "held": held, "tables": at_tables,
        "pools": pools,
    }


async def assert_conserved(
    service: TableService,
    users: list[User],
    tables: list[str],
    tournaments: Sequence[str] = (),
) -> dict[str, int]:
    """Σ wallets + Σ reservations not yet seated + Σ (stacks + pots + rake) of cash tables
    + Σ unpaid prize pools == Σ grants."""
    totals = await chip_totals(service, [u.id for u in users], tables, tournaments)
    parts = totals["wallets"] + totals["held"] + totals["tables"] + totals["pools"]
    assert totals["granted"] == parts, totals
    return totals


async def seated_table(
    service: TableService, users: list[User], settings: TableSettings = SETTINGS, buy_in: int = 200
) -> str:
    table_id = await service.create_table(users[0], settings)
    for user in users:
        await service.seat(user, table_id, buy_in)
    return table_id


async def play_hands(
    service: TableService,
    clock: FakeClock,
    table_id: str,
    users: list[User],
    hands: int,
    *,
    rng: random.Random | None = None,
    max_steps: int = 2000,
    conserve: bool = True,
) -> int:
    """Play until hand number `hands` is settled: players act with the practice-bot strategy;
    when nobody may act, the clock jumps to the deadline and the timer fires. Checks chip
    conservation after every step (`conserve`; it needs every chip of `users` at this table).
    Returns the number of player actions taken."""
    rng = rng or random.Random(7)
    actions = 0
    for _ in range(max_steps):
        loaded = await service.repo.load(table_id)
        state = loaded.state
        assert state is not None
        if state.hand is not None and state.hand.number >= hands and state.phase == "settled":
            return actions
        for user in users:
            choice = bots.choose(await service.view(user, table_id), rng)
            if choice is not None:
                kind, amount = choice
                await service.act(
                    user, table_id, action_id=uuid.uuid4().hex, type=kind, amount=amount
                )
                actions += 1
                break
        else:
            deadline = state.deadline
            assert deadline is not None, f"stuck: nobody may act and no deadline ({state.phase})"
            clock.now = max(clock.now, deadline)
            await service.driver.fire(table_id)
        if conserve:
            await assert_conserved(service, users, [table_id])
    raise AssertionError(f"hand {hands} did not settle in {max_steps} steps")
