"""What is left in Redis of an archived table: its id and when it was archived, one field of a
hash per namespace (`svara:<ns>archived`: table id -> archived_at), some 50 bytes a table.

The archive (`service.tables.archive`) writes it before it deletes the table's keys, so a
table is never gone without its tombstone; the API reads it only where it would otherwise
answer 404 for the table (`archived_errors`) and to mark a player's hands of archived tables
(`GET /api/me/hands`), so serving a live table never reads it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

from events.store.connection import Health
from service.tables.errors import service_errors
from service.tables.facade import ServiceError

# The codes a request about a table that is not (any more) in the store is refused with.
GONE_CODES = frozenset({"table_not_found", "unknown_table"})


def tombstones_key(namespace: str) -> str:
    return f"svara:{namespace}archived"


class Tombstones:
    """The archived tables of one namespace, on the event store's Redis client."""

    def __init__(self, client: Any, health: Health | None, namespace: str) -> None:
        self._client = client
        self._health = health if health is not None else Health()
        self.key = tombstones_key(namespace)

    async def bury(self, table_id: str, archived_at: float) -> None:
        with self._health.errors():
            await self._client.hset(self.key, table_id, repr(float(archived_at)))

    async def archived_at(self, table_id: str) -> float | None:
        with self._health.errors():
            value = await self._client.hget(self.key, table_id)
        return float(value) if value is not None else None

    async def archived(self, table_ids: Iterable[str]) -> set[str]:
        """Which of `table_ids` are archived (one command however many)."""
        ids = sorted(set(table_ids))
        if not ids:
            return set()
        with self._health.errors():
            values = await self._client.hmget(self.key, ids)
        return {t for t, v in zip(ids, values, strict=True) if v is not None}


def archived_error(table_id: str, archived_at: float) -> ServiceError:
    return ServiceError(
        410, "table_archived",
        f"table {table_id} was closed and archived; its hands are no longer served "
        "(the operator keeps its archive files)",
        archived_at=archived_at,
    )


@asynccontextmanager
async def archived_errors(tombstones: Tombstones, table_id: object) -> AsyncIterator[None]:
    """`service_errors`, where a 404 for a table that was archived becomes 410
    `table_archived` (the tombstone is read only then)."""
    try:
        async with service_errors():
            yield
    except ServiceError as error:
        if error.status != 404 or error.code not in GONE_CODES or not isinstance(table_id, str):
            raise
        async with service_errors():  # a store failing just now: 503, not a 404 it may not be
            at = await tombstones.archived_at(table_id)
        if at is None:
            raise
        raise archived_error(table_id, at) from error


def tombstones_of(store: object, namespace: str) -> Tombstones:
    """The tombstones on `store`'s own Redis client (as `events.store.kv.key_value_of`)."""
    client = getattr(store, "client", None)
    if client is None:
        raise TypeError(f"{type(store).__name__} has no Redis client to share")
    return Tombstones(client, getattr(store, "health", None), namespace)
