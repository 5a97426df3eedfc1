"""Bursts on the real Redis: a busy store is not an unreachable one,
and table creation does not contend on a shared stream."""

from __future__ import annotations

import asyncio

import pytest

from service.game.settings import TableSettings
from service.tables.facade import ServiceError
from tests.support.service_play import make_users, seated_table
from tests.support.services import Factory

pytestmark = [pytest.mark.redis, pytest.mark.serial]  # a busy store, timed: not beside other tests

BURST = 200


async def test_a_burst_of_reads_waits_for_connections_instead_of_failing(
    services: Factory,
) -> None:
    """More reads at once than the connection pool holds: each waits its turn (item 5; the old
    pool failed the 101st at once with "Too many connections", answered as a 503)."""
    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    results = await asyncio.gather(
        *(service.view(users[i % 2], table_id) for i in range(3 * BURST)),
        *(service.events(None, table_id, 0) for _ in range(BURST)),
        return_exceptions=True,
    )
    failures = [r for r in results if isinstance(r, BaseException)]
    assert failures == [], failures[:3]


async def test_a_burst_of_creations_all_succeed_at_the_first_try(services: Factory) -> None:
    """Item 6: 200 tables created at once, by 200 users, each at the first try (the old
    directory stream took a version-checked append per creation: ~550 `busy` refusals)."""
    service = await services()
    users = make_users(BURST)
    results = await asyncio.gather(
        *(service.create_table(user, TableSettings(ante=10)) for user in users),
        return_exceptions=True,
    )
    refused = [r for r in results if isinstance(r, ServiceError | BaseException)]
    assert refused == [], refused[:3]
    created = {r for r in results if isinstance(r, str)}
    assert len(created) == BURST
    listed: set[str] = set()
    cursor = None
    while True:
        page = await service.list_tables(limit=50, cursor=cursor)
        listed |= {t["table_id"] for t in page["tables"]}
        cursor = page["next"]
        if cursor is None:
            break
    assert listed == created
