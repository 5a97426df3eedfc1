"""Property: whatever users do through the service (seat, leave, act, wait), no chip is
created or lost: Σ wallets + Σ held + Σ (stacks + pots + rake) == Σ grants after every step,
and every refusal is a ServiceError with a client status."""

from __future__ import annotations

import asyncio
import random
import uuid

from hypothesis import given, settings
from hypothesis import strategies as st

from events.store import open_store
from service.game.settings import TableSettings
from service.tables import bots
from service.tables.facade import ServiceError, User
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.service_play import assert_conserved

OPS = st.lists(
    st.tuples(
        st.sampled_from(["seat", "leave", "act", "act", "act", "act", "wait"]),
        st.integers(0, 3),
        st.integers(-10, 600),
    ),
    min_size=5,
    max_size=40,
)


@settings(max_examples=40, deadline=None)
@given(OPS)
def test_random_operations_conserve_chips(ops: list[tuple[str, int, int]]) -> None:
    asyncio.run(_run(ops))


async def _run(ops: list[tuple[str, int, int]]) -> None:
    clock = FakeClock()
    service = TableService(open_store(None), clock=clock, starting_grant=500)
    users = [User(id=i + 1, name=f"P{i}") for i in range(4)]
    table_id = await service.create_table(
        users[0], TableSettings(ante=5, max_seats=3, min_buy_in=20, max_buy_in=400)
    )
    rng = random.Random(len(ops))
    try:
        for op, who, amount in ops:
            user = users[who]
            try:
                if op == "seat":
                    await service.seat(user, table_id, amount)
                elif op == "leave":
                    await service.leave(user, table_id)
                elif op == "act":
                    choice = bots.choose(await service.view(user, table_id), rng) or ("fold", None)
                    await service.act(
                        user, table_id, action_id=uuid.uuid4().hex, type=choice[0], amount=choice[1]
                    )
                else:
                    clock.advance(max(amount, 0) / 10)
                    await service.driver.fire(table_id)
            except ServiceError as error:
                assert 400 <= error.status < 500, (error.status, error.code)
            await assert_conserved(service, users, [table_id])
    finally:
        await service.store.close()
