"""The same service on the embedded store (fakeredis, same Lua): fast, no server needed."""

from __future__ import annotations

import pytest

from service.tables.facade import ServiceError
from tests.support.clock import FakeClock
from tests.support.service_play import assert_conserved, make_users, play_hands, seated_table
from tests.support.services import Factory


async def test_hands_leave_and_idempotency_on_the_embedded_store(
    embedded: Factory, clock: FakeClock
) -> None:
    service = await embedded()
    users = make_users(3)
    table_id = await seated_table(service, users)
    await play_hands(service, clock, table_id, users, hands=2)
    report = await service.audit(table_id, 2)
    assert report["verified"], report["checks"]
    await play_hands(service, clock, table_id, users, hands=3)
    version = await service.store.version(service.streams.table(table_id))
    with pytest.raises(ServiceError) as info:
        await service.act(users[0], table_id, action_id="x", type="look", expected_version=1)
    assert info.value.code == "version_conflict" and info.value.extra["version"] == version
    for user in users:
        await service.leave(user, table_id)
    totals = await assert_conserved(service, users, [table_id])
    assert totals["tables"] == 0 and totals["wallets"] == 3000
