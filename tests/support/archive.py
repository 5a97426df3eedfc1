"""Helpers for the archive's tests: closed tables with hands, and what Redis holds of one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from service.tables.archive import DAY, Archiver, Outcome
from service.tables.facade import User
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.service_play import SETTINGS, play_hands, seated_table

IDLE = 60.0  # the services' idle limit: a table closes a minute after its last player left


async def closed_table(
    service: TableService, clock: FakeClock, users: list[User], hands: int
) -> str:
    """A table where `users` played `hands` hands and left; then it closed (idle)."""
    table_id = await seated_table(service, users, SETTINGS)
    if hands:
        await play_hands(service, clock, table_id, users, hands)
    for user in users:
        await service.leave(user, table_id)
    clock.advance(IDLE + 1)
    await service.driver.fire(table_id)
    assert (await service.repo.load(table_id)).state.phase == "closed"  # type: ignore[union-attr]
    return table_id


async def keys_naming(service: TableService, table_id: str) -> list[str]:
    """Every key in Redis whose name holds the table's id (a SCAN of the whole keyspace)."""
    client: Any = service.store.client
    return sorted([k.decode() async for k in client.scan_iter(match=f"*{table_id}*", count=1000)])


async def memory_of(service: TableService, table_id: str) -> int:
    """MEMORY USAGE summed over the keys that name the table."""
    client: Any = service.store.client
    return sum([int(await client.memory_usage(k, samples=0) or 0)
                for k in await keys_naming(service, table_id)])  # fmt: skip


async def archive(
    service: TableService, clock: FakeClock, directory: Path, *, days: float = 0.0,
    dry_run: bool = False,
) -> dict[str, Outcome]:
    """One run of the archive; each closed table's outcome by its id."""
    archiver = Archiver(service, service.store, directory,  # type: ignore[arg-type]
                        closed_days=days, dry_run=dry_run, clock=clock)  # fmt: skip
    return {o.table_id: o async for o in archiver.run()}


__all__ = ["DAY", "IDLE", "archive", "closed_table", "keys_naming", "memory_of"]
