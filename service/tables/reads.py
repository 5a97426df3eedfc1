"""What the service answers without writing: a table's version, a player's view, the events
(read once or pushed live), the last hands, and a settled hand's audit and export file.

Every method is the body of the `TableService` method of the same name, behind the service's
boundary (`service_errors`), its arguments checked by `guards` first.
"""

from __future__ import annotations

from typing import Any

from events.codec import decode_table_event, event_type
from events.store.base import EventStore, StoredEvent
from events.table import TableEvent
from service.game.state import TableState
from service.game.view import project_event
from service.game.view import view as table_view
from service.tables import guards
from service.tables.audit import audit_hand, export_hand
from service.tables.errors import not_found
from service.tables.facade import JSON, FeedSink, User
from service.tables.history import recent_hands
from service.tables.live import Feeds
from service.tables.repo import TableRepo
from service.tables.streams import Streams


def project(stored: StoredEvent, viewer: int | None, event: TableEvent | None = None) -> JSON:
    """One stored event as `viewer` may see it (`{"version","type","at","data","hash"}`)."""
    if event is None:
        event = decode_table_event(stored.data)
    projected: dict[str, Any] = project_event(event, viewer)
    return {
        "version": stored.version,
        "type": projected.get("type", event_type(event)),
        "at": stored.at,
        "data": projected.get("data", {}),
        "hash": stored.hash,  # the chain hash: a player may pin it (docs/CHAIN.md)
    }


class Reads:
    def __init__(self, store: EventStore, streams: Streams, repo: TableRepo, feeds: Feeds) -> None:
        self.store = store
        self.streams = streams
        self.repo = repo
        self.feeds = feeds

    async def state(self, table_id: str) -> tuple[int, TableState | None]:
        loaded = await self.repo.load(table_id)
        return loaded.version, loaded.state

    async def version(self, table_id: str) -> int:
        guards.table_ref(table_id)
        followed = self.feeds.position(table_id)
        if followed is not None:
            return followed
        version = await self.store.version(self.streams.table(table_id))
        if version == 0:
            raise not_found(table_id)
        return version

    async def view(self, user: User | None, table_id: str) -> JSON:
        table = await guards.existing(self.repo, table_id)
        return table_view(table.state, user.id if user else None, table.version)

    async def events(self, user: User | None, table_id: str, after: int) -> tuple[int, list[JSON]]:
        guards.after(after)
        stream = self.streams.table(guards.table_ref(table_id))
        stored = await self.store.read(stream, after=after)
        version = stored[-1].version if stored else await self.store.version(stream)
        if version == 0:
            raise not_found(table_id)
        viewer = user.id if user else None
        return version, [project(e, viewer) for e in stored]

    async def watch(
        self,
        table_id: str,
        after: int,
        sink: FeedSink,
        *,
        views: bool,
        hold_limit: int,
    ) -> None:
        guards.after(after)
        if self.feeds.position(table_id) is None:  # a followed table exists: no read
            await guards.existing(self.repo, table_id)
        await self.feeds.watch(table_id, after, sink, views=views, hold_limit=hold_limit)

    async def hands(self, table_id: str, limit: int) -> list[JSON]:
        guards.history_limit(limit)
        table = await guards.existing(self.repo, table_id)
        stream = self.streams.table(table_id)
        return await recent_hands(self.store, stream, table.state, table.version, limit)

    async def audit(self, table_id: str, hand: int) -> JSON:
        guards.hand_ref(table_id, hand)
        return await audit_hand(self.store, self.streams.table(table_id), table_id, hand)

    async def export(self, table_id: str, hand: int) -> JSON:
        guards.hand_ref(table_id, hand)
        return await export_hand(self.store, self.streams.table(table_id), table_id, hand)
