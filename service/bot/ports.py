"""What the bot needs from the application layer, beyond the adapters' `Tables`.

`BotTables` is enough to answer commands (profiles for the language, and whether the bot may
write to a player). `LiveTables` adds what the bot's notifications watch: the tables' events
as this process learns them, the tables' states and clock, and the key-value store for marks
that must hold across replicas (one ping per turn) and for the tables bound to a group; who
has a table open is the adapters' `Tables.presence`. `TableService` implements both, and
`attach_bot` takes a `LiveTables`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from events.store.kv import KeyValue
from service.game.state import TableState
from service.tables.facade import Tables, User
from service.tables.profiles import Profile
from service.tables.repo import TableObserver
from service.tables.streams import Streams


class BotTables(Tables, Protocol):
    async def profile(self, user_id: int) -> Profile: ...

    async def bot_started(self, user: User) -> Profile: ...

    async def bot_blocked(self, user_id: int) -> Profile: ...


class LiveTables(BotTables, Protocol):
    @property
    def observers(self) -> list[TableObserver]: ...

    @property
    def kv(self) -> KeyValue: ...

    @property
    def streams(self) -> Streams: ...  # its namespace prefixes the bot's keys too

    @property
    def clock(self) -> Callable[[], float]: ...  # the turns' deadlines are on this clock

    async def state(self, table_id: str) -> tuple[int, TableState | None]: ...
