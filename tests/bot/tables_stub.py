"""A minimal in-memory `BotTables` for bot tests that need no game: tables exist or they
don't, and profiles fold the same decisions the service uses (`service.tables.profiles`)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

from service.game.settings import TableSettings
from service.tables import profiles
from service.tables.facade import JSON, ServiceError, User
from service.tables.profiles import Profile


class StubTables:
    def __init__(self) -> None:
        self.created: dict[str, tuple[User, TableSettings]] = {}
        self.profiles: dict[int, Profile] = {}

    async def create_table(
        self, user: User, settings: TableSettings, *, practice_bots: int = 0
    ) -> str:
        table_id = uuid.uuid4().hex[:12]
        self.created[table_id] = (user, settings)
        return table_id

    async def version(self, table_id: str) -> int:
        if table_id not in self.created:
            raise ServiceError(404, "table_not_found", f"no table {table_id}")
        return 1

    async def view(self, user: User | None, table_id: str) -> JSON:
        if table_id not in self.created:
            raise ServiceError(404, "table_not_found", f"no table {table_id}")
        _, settings = self.created[table_id]
        return {"table_id": table_id, "version": 1, "seats": [],
                "settings": {"ante": settings.ante, "max_seats": settings.max_seats}}

    # -- profiles -------------------------------------------------------------------------------

    def _decide(self, user_id: int, events: list[profiles.AnyProfileEvent]) -> Profile:
        profile = profiles.fold(events, self.profiles.get(user_id, profiles.EMPTY))
        self.profiles[user_id] = profile
        return profile

    async def profile(self, user_id: int) -> Profile:
        return self.profiles.get(user_id, profiles.EMPTY)

    async def bot_started(self, user: User) -> Profile:
        current = await self.profile(user.id)
        return self._decide(user.id, profiles.start_bot(current, user.language_code))

    async def bot_blocked(self, user_id: int) -> Profile:
        return self._decide(user_id, profiles.block_bot(await self.profile(user_id)))

    async def write_access(self, user: User, *, allowed: bool, explicit: bool) -> JSON:
        current = await self.profile(user.id)
        profile = self._decide(
            user.id, profiles.grant_writes(current, allowed=allowed, explicit=explicit))
        return {"can_ping": profile.reachable}

    async def set_preferences(
        self, user: User, *, language: str | None = None, pings: bool | None = None
    ) -> JSON:
        current = await self.profile(user.id)
        decided = profiles.set_preferences(current, language=language, pings=pings)
        profile = self._decide(user.id, decided)
        return {"language": profiles.effective_language(profile, user.language_code),
                "settings": {"language": profile.language, "pings": profile.pings}}

    # -- what the bot should never need ---------------------------------------------------------

    async def _unused(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the bot should not call this")

    list_tables = me = seat = leave = act = events = audit = _unused

    def subscribe(self, user: User | None, table_id: str, after: int) -> AsyncIterator[JSON]:
        raise AssertionError("the bot should not subscribe")
