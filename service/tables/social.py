"""The social table's parts beside the game: quick chat and private tables' invites, on the
event store's Redis client, with the one check every read of a private table goes through."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import msgspec

from events.store.base import EventStore
from events.store.kv import key_value_of
from service.game.names import table_name
from service.game.state import TableState
from service.tables.away_feed import AwayFeed
from service.tables.chat import Chat
from service.tables.chat_stream import ChatStream
from service.tables.facade import JSON, PresenceBook, ServiceError, User
from service.tables.presence import Presence
from service.tables.private import Invites, refused
from service.tables.streams import Streams

log = logging.getLogger(__name__)


def checked_name(name: str | None) -> str:
    """The table name to record ("" for none); 400 `invalid_name` for a refused one."""
    if name is None:
        return ""
    if not isinstance(name, str):
        raise ServiceError(400, "invalid_name", "a table's name is text")
    try:
        return table_name(name)
    except ValueError as error:
        raise ServiceError(400, "invalid_name", str(error)) from None


class Social:
    def __init__(self, store: EventStore, streams: Streams,
                 load: Callable[[str], Awaitable[TableState]],
                 clock: Callable[[], float], presence: Presence) -> None:
        client = getattr(store, "client")  # noqa: B009 - every store is a RedisEventStore
        health = getattr(store, "health", None)
        self.streams = streams
        self.kv = key_value_of(store)
        self._dropping: set[asyncio.Task[None]] = set()
        self._load = load
        self.invites = Invites(client, health)
        self.chat = Chat(ChatStream(client, health), self.invites, load, streams.table, clock,
                         getattr(store, "follow_key"))  # noqa: B009
        self.away = AwayFeed(client, health, presence, load, streams.table,
                             getattr(store, "follow_key"), clock,  # noqa: B009
                             self.may_watch)
        presence.changes.append(self.away.changed)

    async def may_watch(self, user: User | None, table_id: str, state: TableState,
                        invite: str | None) -> None:
        await self.invites.check_watch(self.streams.table(table_id), state,
                                       user.id if user else None, invite)

    async def may_sit(self, user: User, table_id: str, state: TableState,
                      invite: str | None) -> None:
        await self.invites.check_seat(self.streams.table(table_id), state, user.id, invite)

    async def issue_invite(self, user: User | None, table_id: str) -> str:
        """A new invite for a private table (its creator only); the old one stops working."""
        state = await self._load(table_id)
        if not state.private:
            await self.may_watch(user, table_id, state, None)
            raise ServiceError(409, "not_private", "this table is open to everyone")
        if user is None or user.id != state.created_by:
            if user is not None and state.seat_of(user.id) is not None:
                raise ServiceError(403, "not_host", "only the table's host makes invites")
            raise refused(table_id)
        return await self.invites.issue(self.streams.table(table_id))

    async def with_invite(self, user: User | None, answer: JSON) -> JSON:
        """A private table's view with its current `invite`, for its creator only: the host
        shares the table's link from any device, without making a new one."""
        if answer.get("private") and user is not None and user.id == answer.get("created_by"):
            invite = await self.invites.current(self.streams.table(str(answer["table_id"])))
            if invite is not None:
                answer = {**answer, "invite": invite}
        return answer

    async def shared_invite(self, user: User, table_id: str, given: str | None) -> str:
        """The invite a shared card of a private table links with: the current one, for its
        host, a player seated there, or whoever holds it. A guest who left after the host
        replaced their link hears 404 `invite_revoked`: they may still watch, but not hand
        out the new link."""
        stream = self.streams.table(table_id)
        current = await self.invites.current(stream)
        state = await self._load(table_id)
        if current is not None and (user.id == state.created_by
                                    or state.seat_of(user.id) is not None
                                    or await self.invites.valid(stream, given)):
            return current
        raise refused(table_id, revoked=bool(given))

    async def remember_photo(self, user: User) -> None:
        """Keep the player's photo link beside their profile (for the lobby's rows)."""
        if user.photo_url:
            await self.kv.put(self._photo(user.id), user.photo_url.encode(), ttl=30 * 86400)

    def _photo(self, user_id: int) -> str:
        return f"{self.streams.namespace}photo:{user_id}"

    async def with_photos(self, page: JSON) -> JSON:
        """The lobby page with each seated player's `photo_url` (None where unknown)."""
        for row in page.get("tables", ()):
            row["players"] = [p if isinstance(p, dict) else msgspec.structs.asdict(p)
                              for p in row.get("players", ())]
        players = [p for row in page.get("tables", ()) for p in row["players"]]
        found = await asyncio.gather(*(self.kv.get(self._photo(p["user_id"])) for p in players))
        for player, photo in zip(players, found, strict=True):
            player["photo_url"] = photo.decode() if photo else None
        return page

    @staticmethod
    async def with_away(table_id: str, presence: PresenceBook, view: JSON) -> JSON:
        """Each seat's `away`: a person with no socket open to the table (or its app
        minimised), across every replica; practice bots are never away."""
        seats = view.get("seats", ())
        humans = [s for s in seats if s["user_id"] > 0]
        found = await asyncio.gather(*(presence.watching(table_id, s["user_id"])
                                       for s in humans), return_exceptions=True)
        for seat in seats:
            seat["away"] = False
        for seat, watching in zip(humans, found, strict=True):
            seat["away"] = watching is False  # an outage shows nobody away
        return view

    def changed(self, table_id: str, version: int, state: TableState) -> None:
        """A repo hook: a table that closed takes its chat with it (the process that appended
        the closing deletes it; the keys expire by themselves if that fails)."""
        if state.closed:
            task = asyncio.create_task(self.closed(table_id))
            self._dropping.add(task)  # held until done: a bare task may be collected
            task.add_done_callback(self._dropped)

    def _dropped(self, task: asyncio.Task[None]) -> None:
        self._dropping.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("could not delete a closed table's chat", exc_info=task.exception())

    async def closed(self, table_id: str) -> None:
        await self.chat.stream.drop(self.streams.table(table_id))
