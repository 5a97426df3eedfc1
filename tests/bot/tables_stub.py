"""A minimal in-memory `Tables` for bot tests that need no game: tables exist or they don't."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

from service.game.settings import TableSettings
from service.tables.facade import JSON, ServiceError, User


class StubTables:
    def __init__(self) -> None:
        self.created: dict[str, tuple[User, TableSettings]] = {}

    async def create_table(
        self, user: User, settings: TableSettings, *, practice_bots: int = 0
    ) -> str:
        table_id = uuid.uuid4().hex[:12]
        self.created[table_id] = (user, settings)
        return table_id

    async def view(self, user: User | None, table_id: str) -> JSON:
        if table_id not in self.created:
            raise ServiceError(404, "table_not_found", f"no table {table_id}")
        return {"table_id": table_id, "version": 1}

    async def _unused(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the bot should not call this")

    list_tables = me = seat = leave = act = events = audit = _unused

    def subscribe(self, user: User | None, table_id: str, after: int) -> AsyncIterator[JSON]:
        raise AssertionError("the bot should not subscribe")
