"""A small in-memory `Tables` for fast API tests of the HTTP/WebSocket layer alone.

It is not the game: one seat list and a log of "acted" events, with the facade's idempotency
and version-check contract, so the adapter's own behaviour can be tested in milliseconds.
Its feed pushes like the real one (`watch`: a catch-up paced by the sink, then every append
handed on as it is made) and its presence is the real `Presence` on an in-memory key-value
store. The real service is exercised by the e2e tests.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import fakeredis
import msgspec

from events.store.kv import RedisKeyValue
from service.game.errors import GameError
from service.game.settings import TableSettings
from service.tables.facade import JSON, FeedSink, PresenceBook, ServiceError, Tables, User
from service.tables.presence import Presence
from service.tables.social import Social
from service.tables.tournaments_service import Tournaments

_encode = msgspec.json.Encoder().encode
PAGE = 100  # events per catch-up delivery


def memory_key_value() -> RedisKeyValue:
    """The real key-value store on an in-memory Redis (fakeredis, Lua via lupa)."""
    return RedisKeyValue(fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(version=(7, 0))))


class FakeItem:
    """One logged event as the feed hands it on (a `FeedItem`); its view is the fake's view
    at its version, tagged with the viewer it was made for."""

    __slots__ = ("event", "fake", "table_id", "version")

    def __init__(self, fake: FakeTables, table_id: str, event: JSON) -> None:
        self.fake = fake
        self.table_id = table_id
        self.event = event
        self.version = int(event["version"])

    def event_json(self, viewer: int | None) -> bytes:
        return _encode(self.event)

    def view_json(self, viewer: int | None) -> bytes | None:
        view = self.fake.view_of(self.table_id)
        return _encode({**view, "version": self.version, "viewer": viewer})


class FakeChat:
    """No chat at the fake tables: a socket's chat feed waits quietly, and nothing is said."""

    async def post(self, user: User, table_id: str, *, phrase: str | None = None,
                   reaction: str | None = None, invite: str | None = None) -> int:
        raise ServiceError(403, "chat_off", "the fake tables have no chat")

    async def messages(self, user: User | None, table_id: str, after: int,
                       invite: str | None = None) -> JSON:
        return {"seq": 0, "messages": []}

    async def follow(self, user: User | None, table_id: str, after: int | None,
                     invite: str | None = None) -> AsyncIterator[list[JSON]]:
        await asyncio.Event().wait()
        yield []


class FakeAway:
    """Nor who is away: a socket's away feed waits quietly too."""

    async def follow(self, user: User | None, table_id: str,
                     invite: str | None = None) -> AsyncIterator[list[JSON]]:
        await asyncio.Event().wait()
        yield []


class FakeSocial:
    """The social desk of tables with no chat and no private tables (the real one needs a
    Redis event store, which the fake has not); who is away is the real rule over the fake's
    presence book, and a socket's away feed waits quietly."""

    def __init__(self) -> None:
        self.chat = FakeChat()
        self.away = FakeAway()

    async def issue_invite(self, user: User | None, table_id: str) -> str:
        raise ServiceError(409, "not_private", "this table is open to everyone")

    async def with_invite(self, user: User | None, answer: JSON) -> JSON:
        return answer  # no table is private, so none has an invite

    async def shared_invite(self, user: User, table_id: str, given: str | None) -> str:
        raise ServiceError(409, "not_private", "this table is open to everyone")

    async def with_away(self, table_id: str, presence: PresenceBook, view: JSON) -> JSON:
        return await Social.with_away(table_id, presence, view)


class FakeTables:
    def __init__(self) -> None:
        self.tables: dict[str, list[JSON]] = {}
        self.seats: dict[str, list[int]] = {}
        self.actions: dict[tuple[str, str], int] = {}
        self.sinks: dict[str, set[FeedSink]] = {}  # the live watchers of each table
        self.burst = 0  # events one action appends at once, for slow-client tests
        self.pad = 0  # and their size
        self.language = "en"
        self.presence = Presence(memory_key_value())
        # the double runs no tournaments: their routes answer 404
        self.tournaments: Tournaments | None = None
        self.write_grants: list[tuple[int, bool, bool]] = []  # (user, allowed, explicit)
        self.social = FakeSocial()

    def _log(self, table_id: str) -> list[JSON]:
        if table_id not in self.tables:
            raise ServiceError(404, "unknown_table", f"no table {table_id}")
        return self.tables[table_id]

    async def _append(self, table_id: str, type_: str, data: JSON) -> int:
        log = self._log(table_id)
        log.append({"version": len(log) + 1, "type": type_, "at": time.time(), "data": data})
        item = [FakeItem(self, table_id, log[-1])]
        for sink in list(self.sinks.get(table_id, ())):  # as the real feed hands on an append
            sink.deliver(item)
        return len(log)

    async def create_table(self, user: User, settings: TableSettings, *,
                           practice_bots: int = 0, name: str | None = None,
                           private: bool = False, group_chat_id: int | None = None) -> str:
        table_id = f"t{len(self.tables) + 1}"
        self.tables[table_id] = []
        self.seats[table_id] = []
        await self._append(table_id, "table_created", {"ante": settings.ante, "by": user.id})
        return table_id

    async def list_tables(self, *, limit: int = 50, cursor: str | None = None) -> JSON:
        ids = sorted(t for t in self.tables if cursor is None or t > cursor)
        page = [{"table_id": t, "ante": 10, "max_seats": 6, "seated": len(self.seats[t]),
                 "phase": "waiting"} for t in ids[:limit]]
        return {"tables": page, "next": page[-1]["table_id"] if len(ids) > limit else None}

    async def me(self, user: User) -> JSON:
        return {"user": {"id": user.id, "name": user.name}, "balance": 1000, "tables": [],
                "language": self.language, "settings": {"language": None, "pings": True}}

    async def write_access(self, user: User, *, allowed: bool, explicit: bool) -> JSON:
        self.write_grants.append((user.id, allowed, explicit))
        return {**await self.me(user), "can_ping": allowed}

    async def set_preferences(self, user: User, *, language: str | None = None,
                              pings: bool | None = None) -> JSON:
        self.language = language or self.language
        return await self.me(user)

    async def seat(self, user: User, table_id: str, buy_in: int,
                   invite: str | None = None) -> JSON:
        self._log(table_id)
        if user.id in self.seats[table_id]:
            raise GameError("already_seated", "you already sit here")
        self.seats[table_id].append(user.id)
        await self._append(table_id, "player_seated", {"user_id": user.id, "buy_in": buy_in})
        return await self.view(user, table_id)

    async def leave(self, user: User, table_id: str) -> JSON:
        return await self.view(user, table_id)

    async def rebuy(self, user: User, table_id: str, buy_in: int) -> JSON:
        if user.id not in self.seats.get(table_id, []):
            raise ServiceError(403, "not_seated", "you have no seat at this table")
        return await self.view(user, table_id)

    async def hands(self, table_id: str, limit: int) -> list[JSON]:
        self._log(table_id)
        return []

    async def act(self, user: User, table_id: str, *, action_id: str, type: str,
                  amount: int | None = None, expected_version: int | None = None) -> int:
        log = self._log(table_id)
        if (table_id, action_id) in self.actions:
            return self.actions[(table_id, action_id)]
        if expected_version is not None and expected_version != len(log):
            raise ServiceError(409, "version_conflict", "the table moved on", version=len(log))
        if user.id not in self.seats[table_id]:
            raise GameError("not_seated", "you have no seat here")
        if type == "boom":
            raise RuntimeError("a bug in the service")
        if type not in {"call", "fold", "look"}:
            raise GameError("unknown_action", f"unknown action {type!r}")
        version = await self._append(table_id, "acted", {"user_id": user.id, "type": type})
        for _ in range(self.burst):
            version = await self._append(table_id, "noise", {"pad": "x" * self.pad})
        self.actions[(table_id, action_id)] = version
        return version

    async def version(self, table_id: str) -> int:
        return len(self._log(table_id))

    async def view(self, user: User | None, table_id: str, invite: str | None = None) -> JSON:
        return self.view_of(table_id)

    def view_of(self, table_id: str) -> JSON:
        log = self._log(table_id)
        return {"table_id": table_id, "version": len(log), "settings": {}, "hand": None,
                "seats": [], "you": {"seat": None, "cards": None, "score": None, "legal": []}}

    async def events(self, user: User | None, table_id: str, after: int,
                     invite: str | None = None) -> tuple[int, list[JSON]]:
        log = self._log(table_id)
        return len(log), log[after:]

    async def watch(self, user: User | None, table_id: str, after: int, sink: FeedSink, *,
                    views: bool = False, hold_limit: int = 1024,
                    invite: str | None = None) -> None:
        log = self._log(table_id)
        sent = after
        while sent < len(log):  # the catch-up, in pages, paced by the sink
            page = log[sent:sent + PAGE]
            sink.deliver([FakeItem(self, table_id, e) for e in page])
            sent += len(page)
            await sink.drained()
        # Live from here: nothing can be appended between the check above and this line.
        watchers = self.sinks.setdefault(table_id, set())
        watchers.add(sink)
        try:
            await asyncio.get_running_loop().create_future()  # until cancelled
        finally:
            watchers.discard(sink)

    async def audit(self, table_id: str, hand: int) -> JSON:
        self._log(table_id)
        raise ServiceError(409, "hand_in_progress", "the hand is not settled yet")

    async def export(self, table_id: str, hand: int) -> JSON:
        return await self.audit(table_id, hand)

    async def replay(self, user: User | None, table_id: str, hand: int) -> JSON:
        return await self.audit(table_id, hand)  # no hand of the double's is ever settled

    async def transcript(self, user: User | None, table_id: str, hand: int,
                         language: str | None = None) -> str:
        await self.audit(table_id, hand)
        return ""

    async def my_hands(self, user: User, cursor: str | None, limit: int) -> JSON:
        return {"hands": [], "next": None}  # none settles at the double's tables

    async def player_stats(self, user_id: int) -> JSON:
        raise ServiceError(404, "unknown_player", f"no stats for player {user_id}")

    async def leaderboard(self, period: str, group: int | None, you: int | None) -> JSON:
        return {"period": period, "group": group, "entries": [], "you": None}

    async def set_client_seed(self, user: User, table_id: str, client_seed: str) -> JSON:
        if user.id not in self.seats.get(table_id, []):
            raise ServiceError(403, "not_seated", "you have no seat at this table")
        return await self.view(user, table_id)


def _typecheck(tables: FakeTables) -> Tables:
    """Never called: mypy proves the double is the adapters' port."""
    return tables
