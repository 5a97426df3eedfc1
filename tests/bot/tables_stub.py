"""A minimal in-memory `LiveTables` for bot tests that need no game: tables exist or they
don't (with no state: no game is played, so the bot's watch never hears of one), profiles fold
the same decisions the service uses (`service.game.profile`), and the key-value store and
presence are the real ones on an in-memory Redis."""

from __future__ import annotations

import time
import uuid
from typing import Any

from events.profile import AnyProfileEvent
from service.bot.ports import LiveTables
from service.game import profile as profiles
from service.game.errors import GameError
from service.game.profile import Profile
from service.game.settings import TableSettings
from service.game.state import TableState
from service.tables.errors import from_game_error
from service.tables.facade import JSON, ServiceError, User
from service.tables.presence import Presence
from service.tables.repo import TableObserver
from service.tables.streams import Streams
from tests.support.fake_tables import FakeSocial, memory_key_value


class StubTables:
    def __init__(self) -> None:
        self.created: dict[str, tuple[User, TableSettings]] = {}
        self.groups: dict[str, int | None] = {}  # table -> the group it was opened in
        # what `leaderboard` answers, by (period, group); asked boards are recorded
        self.boards: dict[tuple[str, int | None], JSON] = {}
        self.asked: list[tuple[str, int | None, int | None]] = []
        self.profiles: dict[int, Profile] = {}
        self.kv = memory_key_value()
        self.presence = Presence(self.kv)
        self.streams = Streams(f"stub{uuid.uuid4().hex[:8]}:")
        self.observers: list[TableObserver] = []
        self.clock = time.time

    async def state(self, table_id: str) -> tuple[int, TableState | None]:
        return (1 if table_id in self.created else 0), None

    async def create_table(
        self, user: User, settings: TableSettings, *, practice_bots: int = 0,
        name: str | None = None, private: bool = False, group_chat_id: int | None = None,
    ) -> str:
        table_id = uuid.uuid4().hex[:12]
        self.groups[table_id] = group_chat_id
        self.created[table_id] = (user, settings)
        return table_id

    async def version(self, table_id: str) -> int:
        if table_id not in self.created:
            raise ServiceError(404, "table_not_found", f"no table {table_id}")
        return 1

    async def view(self, user: User | None, table_id: str, invite: str | None = None) -> JSON:
        if table_id not in self.created:
            raise ServiceError(404, "table_not_found", f"no table {table_id}")
        _, settings = self.created[table_id]
        return {"table_id": table_id, "version": 1, "seats": [],
                "settings": {"ante": settings.ante, "max_seats": settings.max_seats}}

    # -- profiles -------------------------------------------------------------------------------

    def _decide(self, user_id: int, command: profiles.AnyProfileCommand) -> Profile:
        current = self.profiles.get(user_id, profiles.EMPTY)
        try:
            events: list[AnyProfileEvent] = profiles.decide(current, command)
        except GameError as error:  # as the service's boundary answers it
            raise from_game_error(error) from error
        profile = profiles.fold(events, current)
        self.profiles[user_id] = profile
        return profile

    async def profile(self, user_id: int) -> Profile:
        return self.profiles.get(user_id, profiles.EMPTY)

    async def bot_started(self, user: User) -> Profile:
        return self._decide(user.id, profiles.StartBot(language_code=user.language_code))

    async def bot_blocked(self, user_id: int) -> Profile:
        return self._decide(user_id, profiles.BlockBot())

    async def write_access(self, user: User, *, allowed: bool, explicit: bool) -> JSON:
        profile = self._decide(user.id, profiles.GrantWrites(allowed=allowed, explicit=explicit))
        return {"can_ping": profile.reachable}

    async def set_preferences(
        self, user: User, *, language: str | None = None, pings: bool | None = None
    ) -> JSON:
        command = profiles.SetPreferences(language=language, pings=pings)
        profile = self._decide(user.id, command)
        return {"language": profiles.effective_language(profile, user.language_code),
                "settings": {"language": profile.language, "pings": profile.pings}}

    # -- what the bot should never need ---------------------------------------------------------

    async def leaderboard(self, period: str, group: int | None, you: int | None) -> JSON:
        self.asked.append((period, group, you))
        empty: JSON = {"period": period, "group": group, "entries": [], "you": None}
        return self.boards.get((period, group), empty)

    async def _unused(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the bot should not call this")

    list_tables = me = seat = leave = rebuy = hands = set_client_seed = act = _unused
    events = watch = audit = export = replay = transcript = my_hands = _unused
    player_stats = _unused
    tournaments = None  # the stub runs no tournaments
    social = FakeSocial()  # nor chat, nor private tables


def _typecheck(tables: StubTables) -> LiveTables:
    """Never called: mypy proves the double is the bot's port."""
    return tables
