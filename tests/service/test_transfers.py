"""Transfers interrupted between their two steps are finished by the reconciler, on the real
Redis, with nothing created or lost (Σ wallets + held + tables == Σ grants throughout)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from events.store.base import AppendResult, EventStore, StoreUnavailable
from service.game.commands import Leave, SitDown
from service.game.errors import GameError
from service.game.settings import TableSettings
from service.tables.facade import ServiceError
from service.tables.service import TableService
from service.tables.transfers import leave_action, sit_action
from tests.support.clock import FakeClock
from tests.support.service_play import assert_conserved, chip_totals, make_users, seated_table
from tests.support.services import Factory

pytestmark = pytest.mark.redis

EXPIRED = 60.0 + 60.0 + 1  # transfer ttl + grace + a second
SETTINGS_TWO_SEATS = TableSettings(ante=10, max_seats=2)


async def test_reserved_but_never_seated_is_released(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(3)
    table_id = await seated_table(service, users[:2])
    await service.me(users[2])
    transfer_id = await service.transfers.reserve(users[2], table_id, 300)  # then "crash"
    totals = await assert_conserved(service, users, [table_id])
    assert totals["held"] == 300
    assert (await service.me(users[2]))["balance"] == 700
    reconciler = await services()  # another process runs the reconciler
    assert await reconciler.reconcile() == 0  # too early: the first process may still seat
    clock.advance(EXPIRED)
    assert await reconciler.reconcile() == 1
    assert (await service.me(users[2]))["balance"] == 1000
    # the stalled first process wakes up: it can no longer seat with that reservation
    with pytest.raises(GameError):
        await service.transfers.seat(users[2], table_id, transfer_id)
    assert (await service.view(users[2], table_id))["you"]["seat"] is None
    await assert_conserved(service, users, [table_id])


async def test_expired_reservation_is_not_seated_even_before_the_reconciler(
    services: Factory, clock: FakeClock
) -> None:
    service = await services()
    users = make_users(3)
    table_id = await seated_table(service, users[:2])
    await service.me(users[2])
    transfer_id = await service.transfers.reserve(users[2], table_id, 300)
    clock.advance(61)  # past expires_at, before expires_at + grace
    with pytest.raises(GameError) as info:
        await service.transfers.seat(users[2], table_id, transfer_id)
    assert info.value.code == "transfer_expired"
    assert (await service.me(users[2]))["balance"] == 1000  # released at once
    await assert_conserved(service, users, [table_id])


async def test_seated_but_not_completed_is_completed(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(3)
    table_id = await seated_table(service, users[:2])
    await service.me(users[2])
    transfer_id = await service.transfers.reserve(users[2], table_id, 300)
    await service.repo.execute(  # the second step, then "crash" before completing
        table_id,
        lambda: SitDown(
            user_id=users[2].id,
            name=users[2].name,
            buy_in=300,
            transfer_id=transfer_id,
            now=clock(),
            seed=service.seed(),
        ),
        action_id=sit_action(transfer_id),
    )
    totals = await assert_conserved(service, users, [table_id])
    assert totals["held"] == 0  # the table has the chips; the wallet still shows them pending
    reconciler = await services()
    assert await reconciler.reconcile() == 1  # no waiting needed: the table says it happened
    me = await service.me(users[2])
    assert me["balance"] == 700 and me["tables"] == [table_id]
    assert await reconciler.reconcile() == 0
    await assert_conserved(service, users, [table_id])


async def test_left_but_not_credited_is_credited(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    transfer_id = await service.transfers.request_leave(users[0], table_id)
    outcome = await service.repo.execute(
        table_id,
        lambda: Leave(user_id=users[0].id, transfer_id=transfer_id, now=clock()),
        action_id=leave_action(transfer_id),
    )
    assert outcome.status == "appended"
    totals = await chip_totals(service, [u.id for u in users], [table_id])
    lost = totals["granted"] - totals["wallets"] - totals["tables"]
    assert lost > 0  # in flight: the table paid out, the wallet has not credited yet
    reconciler = await services()
    assert await reconciler.reconcile() == 1
    await assert_conserved(service, users, [table_id])
    assert (await service.me(users[0]))["balance"] == 800 + lost
    assert await reconciler.reconcile() == 0


async def test_leave_intent_only_is_finished(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    await service.transfers.request_leave(users[0], table_id)  # then "crash"
    reconciler = await services()
    assert await reconciler.reconcile() == 0
    clock.advance(EXPIRED)
    assert await reconciler.reconcile() == 1  # the user asked to leave: the leave happens
    assert (await service.view(users[0], table_id))["you"]["seat"] is None
    me = await service.me(users[0])
    assert me["tables"] == [] and me["balance"] > 800
    await assert_conserved(service, users, [table_id])


class FlakyTableAppends:
    """A store whose table appends fail: before writing (`lose="request"`) or after writing
    (`lose="reply"`), like a connection dropped in either direction."""

    def __init__(self, inner: EventStore, lose: str) -> None:
        self.inner = inner
        self.lose = lose
        self.failures = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def append(self, stream: str, events: Sequence[bytes], **kwargs: Any) -> AppendResult:
        if ":table:" in stream and self.failures == 0:
            self.failures += 1
            if self.lose == "reply":
                await self.inner.append(stream, events, **kwargs)
            raise StoreUnavailable("connection lost")
        return await self.inner.append(stream, events, **kwargs)


@pytest.mark.parametrize("lose", ["request", "reply"])
async def test_store_outage_between_steps(services: Factory, clock: FakeClock, lose: str) -> None:
    """An unknown outcome is never guessed: the reservation stays until the table decides."""
    service = await services()
    users = make_users(3)
    table_id = await seated_table(service, users[:2])
    await service.me(users[2])
    flaky = TableService(
        FlakyTableAppends(service.store, lose),  # type: ignore[arg-type]
        clock=clock,
        namespace=service.streams.namespace,
    )
    with pytest.raises(ServiceError) as info:
        await flaky.seat(users[2], table_id, 300)
    assert info.value.status == 503
    await assert_conserved(service, users, [table_id])
    clock.advance(EXPIRED)
    assert await service.reconcile() == 1
    seat = (await service.view(users[2], table_id))["you"]["seat"]
    me = await service.me(users[2])
    if lose == "reply":
        assert seat is not None and me["balance"] == 700 and me["tables"] == [table_id]
    else:
        assert seat is None and me["balance"] == 1000 and me["tables"] == []
    await assert_conserved(service, users, [table_id])


CRASHING_PROCESS = """
import asyncio, os, sys
from events.store import open_store
from service.tables.facade import User
from service.tables.service import TableService

url, namespace, table_id, user_id, when = sys.argv[1:6]

async def main() -> None:
    store = open_store(url)
    real_append = store.append

    async def append(stream, events, **kwargs):
        if ":table:" in stream and when == "before_table":
            os._exit(3)  # dies after reserving, before seating
        result = await real_append(stream, events, **kwargs)
        if ":table:" in stream and when == "after_table":
            os._exit(3)  # dies after seating, before completing the reservation
        return result

    store.append = append
    service = TableService(store, namespace=namespace)
    await service.seat(User(id=int(user_id), name="Crash"), table_id, 300)

asyncio.run(main())
"""


@pytest.mark.parametrize("when", ["before_table", "after_table"])
async def test_a_process_dying_mid_transfer(
    services: Factory, clock: FakeClock, redis_url: str, when: str
) -> None:
    """A real process dies between the steps of a buy-in; the reconciler finishes it."""
    import asyncio
    import sys
    import time

    service = await services()
    users = make_users(3)
    table_id = await seated_table(service, users[:2])
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CRASHING_PROCESS,
        redis_url,
        service.streams.namespace,
        table_id,
        str(users[2].id),
        when,
    )
    assert await asyncio.wait_for(process.wait(), 30) == 3
    await assert_conserved(service, users, [table_id])
    # The crashing process used the real clock: expiry counts from when it reserved, which
    # is before now however slowly it started (a loaded machine takes seconds to).
    clock.now = time.time()
    clock.advance(EXPIRED)
    assert await service.reconcile() == 1
    me = await service.me(users[2])
    seated = (await service.view(users[2], table_id))["you"]["seat"] is not None
    if when == "after_table":
        assert seated and me["balance"] == 700 and me["tables"] == [table_id]
    else:
        assert not seated and me["balance"] == 1000 and me["tables"] == []
    await assert_conserved(service, users, [table_id])


async def test_a_seat_refused_as_full_writes_nothing_to_the_wallet(services: Factory) -> None:
    """What can be checked before reserving is checked there, so a refusal the
    table's state already decides (full, closed, already seated, buy-in out of range) leaves
    the wallet stream untouched."""
    service = await services()
    users = make_users(3)
    table_id = await service.create_table(users[0], SETTINGS_TWO_SEATS)
    for user in users[:2]:
        await service.seat(user, table_id, 200)
    await service.me(users[2])  # the wallet exists (its start grant)
    wallet = service.streams.wallet(users[2].id)
    before = await service.store.version(wallet)
    with pytest.raises(ServiceError) as refused:
        await service.seat(users[2], table_id, 200)
    assert (refused.value.status, refused.value.code) == (409, "table_full")
    assert await service.store.version(wallet) == before  # no reservation, no release
    await assert_conserved(service, users, [table_id])


async def test_a_table_filling_between_the_check_and_the_seat_still_releases(
    services: Factory,
) -> None:
    """The race the early check cannot close: two players pass it for the last seat; the
    table seats one, refuses the other (`table_full`), and that one's reservation goes back."""
    service = await services()
    users = make_users(3)
    table_id = await service.create_table(users[0], SETTINGS_TWO_SEATS)
    await service.seat(users[0], table_id, 200)
    for user in users[1:]:
        await service.me(user)
    barrier = asyncio.Barrier(2)
    original = service.repo.execute

    async def execute_together(table: str, command_for: Any, **kwargs: Any) -> Any:
        if str(kwargs.get("action_id", "")).startswith("sit:"):
            await asyncio.wait_for(barrier.wait(), 5)  # both reserved: now both sit down
        return await original(table, command_for, **kwargs)

    service.repo.execute = execute_together  # type: ignore[method-assign]
    results = await asyncio.gather(
        *(service.seat(user, table_id, 200) for user in users[1:]), return_exceptions=True
    )
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(refused) == 1 and refused[0].code == "table_full", results
    balances = sorted([(await service.me(u))["balance"] for u in users[1:]])
    assert balances == [800, 1000]  # the refused player has every chip back
    await service.reconcile()
    await assert_conserved(service, users, [table_id])
