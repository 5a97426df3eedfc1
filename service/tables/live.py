"""Live fan-out of a table's events to this process's watchers (the API's sockets).

One `TableFeed` per table with local watchers, whatever their number: it reads the store's
feed in batches (`subscribe_batches`: everything one XREAD brought), decodes each event once,
folds it once into the repo's trail (which keeps the cache and the timer driver current), and
hands the batch -- the same `LiveEvent` objects -- to every watcher with a plain call. A
`LiveEvent` projects and encodes itself once per distinct projection (every viewer but the
looker of a `looked` event sees the public one) and computes the view at its version once per
viewer, only when asked (a socket asks for the newest event of a batch only).

This process's own appends do not wait for the store to bring them back: the repo tells the
feed of each append as its reply arrives (`TableFeed.appended`), and when they are the next
versions in line the feed hands them on at once and tells the store it holds them
(`skip_to`), so the reader neither wakes the feed for them nor, soon, fetches them at all.
Other processes' appends, and own ones whose reply lost the race, come through the store.

A watcher's catch-up (resume after N) is read from the store for that watcher alone; while it
runs, what the feed delivers is held, and on going live the held events are passed on with
every version at or below the last one sent dropped, so the hand-over neither loses nor
repeats an event. The feed's hand-over from the store is the store's own (gap-free) guarantee.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from events.codec import decode_table_event, event_type
from events.store.base import EventStore, StoredEvent, StoreUnavailable, SubscriberTooSlow
from events.table import Looked, TableEvent
from service.game.shared_views import SharedViews
from service.game.state import TableState
from service.game.view import project_event, public_data_json
from service.tables.facade import FeedSink as Sink
from service.tables.repo import TableRepo

log = logging.getLogger(__name__)

_encode = msgspec.json.Encoder().encode


def projection_key(event: TableEvent, viewer: int | None) -> int | None:
    """Whose projection of `event` `viewer` gets: None for the public one (what a spectator
    sees), else the viewer's own. Only a `looked` event shows its looker more than everyone
    else (`service.game.view.project_event`; tests/service/test_live.py checks every event of
    played hands against it). Sharing the public projection can never show too much."""
    if isinstance(event, Looked) and viewer is not None and event.user_id == viewer:
        return viewer
    return None


class LiveEvent:
    """One table event as every local watcher receives it (the facade's `FeedItem`)."""

    __slots__ = (
        "_own", "_public", "_shared", "_views", "at", "event", "hash", "state", "version"
    )  # fmt: skip

    def __init__(
        self, version: int, at: float, event: TableEvent, state: TableState | None, hash: str
    ) -> None:
        self.version = version
        self.at = at
        self.event = event
        self.state = state  # the fold up to `version`, when at hand
        self.hash = hash  # the event's chain hash: every player may pin it
        self._public: bytes | None = None
        self._own: tuple[int, bytes] | None = None
        self._views: dict[int | None, bytes] | None = None
        self._shared: SharedViews | None = None

    @classmethod
    def of(cls, stored: StoredEvent, state: TableState | None = None) -> LiveEvent:
        return cls(stored.version, stored.at, decode_table_event(stored.data), state, stored.hash)

    def project(self, key: int | None) -> dict[str, Any]:
        projected: dict[str, Any] = project_event(self.event, key)
        return {
            "version": self.version,
            "type": projected.get("type", event_type(self.event)),
            "at": self.at,
            "data": projected.get("data", {}),
            "hash": self.hash,
        }

    def event_json(self, viewer: int | None) -> bytes:
        """`{"version","type","at","data","hash"}` as `viewer` may see it, JSON-encoded."""
        key = projection_key(self.event, viewer)
        if key is None:
            if self._public is None:
                data = public_data_json(self.event)
                if data is None:
                    self._public = _encode(self.project(None))
                else:  # the same bytes, without building and encoding the dicts
                    self._public = b'{"version":%d,"type":"%b","at":%b,"data":%b,"hash":"%b"}' % (
                        self.version, event_type(self.event).encode(), _encode(self.at), data,
                        self.hash.encode())
            return self._public
        own = self._own
        if own is None or own[0] != key:
            own = self._own = (key, _encode(self.project(key)))
        return own[1]

    def view_json(self, viewer: int | None) -> bytes | None:
        """The viewer's view at this version, JSON-encoded; None when the state is not at
        hand (the client falls back to a GET)."""
        if self.state is None:
            return None
        views = self._views
        if views is None:
            views = self._views = {}
        encoded = views.get(viewer)
        if encoded is None:
            shared = self._shared
            if shared is None:
                shared = self._shared = SharedViews(self.state, self.version)
            encoded = views[viewer] = shared.encoded(viewer)
        return encoded


class Watcher:
    """One subscriber of a `TableFeed`: holds the feed's events while its catch-up runs, then
    passes them on. `last` is the newest version handed to the sink."""

    __slots__ = ("done", "held", "hold_limit", "last", "live", "sink")

    def __init__(self, sink: Sink, last: int, hold_limit: int) -> None:
        self.sink = sink
        self.last = last
        self.live = False
        self.held: list[LiveEvent] = []
        self.hold_limit = hold_limit
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def deliver(self, items: Sequence[LiveEvent]) -> None:
        if self.done.done():
            return
        if not self.live:
            self.held += items
            if len(self.held) > self.hold_limit:
                self.fail(SubscriberTooSlow("too many events during catch-up; resume"))
            return
        self.pass_on(items)

    def pass_on(self, items: Sequence[LiveEvent]) -> None:
        last = self.last
        if items[0].version <= last:
            items = [i for i in items if i.version > last]
            if not items:
                return
        if items[0].version != last + 1:
            self.fail(SubscriberTooSlow(f"gap after version {last}; resume"))
            return
        self.last = items[-1].version
        self.sink.deliver(items)

    def go_live(self) -> None:
        held, self.held = self.held, []
        self.live = True
        if held:
            self.pass_on(held)

    def fail(self, error: BaseException) -> None:
        if not self.done.done():
            self.done.set_exception(error)


class TableFeed:
    """The one reader of a table's live events in this process, for all its watchers."""

    def __init__(
        self,
        feeds: Feeds,
        table_id: str,
        stream: str,
        after: int,
    ) -> None:
        self.feeds = feeds
        self.table_id = table_id
        self.stream = stream
        self.position = after  # the newest version handed to the watchers
        self.watchers: set[Watcher] = set()
        self.batches = feeds.store.subscribe_batches(stream, after)
        self.task = asyncio.create_task(self._run(), name=f"svara-feed-{table_id}")

    def appended(
        self,
        first: int,
        events: Sequence[TableEvent],
        at: float,
        hashes: Sequence[str],
        state: TableState,
    ) -> None:
        """This process just appended `events` at versions `first`...: hand them on now,
        without waiting for the store to bring them back (it then never does). Only when
        they are next in line; otherwise the store's delivery stays the one path."""
        if first != self.position + 1 or self.task.done():
            return
        last = first + len(events) - 1
        items = [
            LiveEvent(first + i, at, e, None, h)
            for i, (e, h) in enumerate(zip(events, hashes, strict=True))
        ]
        items[-1].state = state
        self.position = last
        self.batches.skip_to(last)
        self._deliver(items)

    def _deliver(self, items: list[LiveEvent]) -> None:
        for watcher in list(self.watchers):
            try:
                watcher.deliver(items)
            except Exception as exc:  # a sink's bug must not reach the appender
                log.exception("a live watcher of %s failed", self.table_id)
                watcher.fail(exc)

    def remove(self, watcher: Watcher) -> None:
        self.watchers.discard(watcher)
        if not self.watchers:
            self.close()

    def close(self, error: Exception | None = None) -> None:
        if self.feeds.tables.get(self.table_id) is self:
            del self.feeds.tables[self.table_id]
        self.task.cancel()
        if error is not None:
            for watcher in list(self.watchers):
                watcher.fail(error)

    async def _run(self) -> None:
        repo = self.feeds.repo
        table_id = self.table_id
        state_at = repo.state_at
        appended = repo.appended
        try:
            async for batch in self.batches:
                items = []
                for stored in batch:
                    if stored.version <= self.position:
                        continue  # handed on already, from our own append (see `appended`)
                    # Our own append's event object, or the stored bytes decoded.
                    event = appended(table_id, stored.version) or decode_table_event(
                        stored.data
                    )
                    # Folded once per process, not per watcher: it keeps the cached state and
                    # the timer driver current (other replicas' appends too).
                    state = state_at(table_id, stored.version, event)
                    items.append(LiveEvent(stored.version, stored.at, event, state, stored.hash))
                if not items:
                    continue
                newest = items[-1]
                if newest.state is None:  # the trail lost the thread: read the state once
                    loaded = await repo.load(table_id)
                    if loaded.version == newest.version:
                        newest.state = loaded.state
                    if newest.version <= self.position:  # handed on while we read
                        continue
                    items = [i for i in items if i.version > self.position]
                self.position = newest.version
                self._deliver(items)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            for watcher in list(self.watchers):
                watcher.fail(exc)
            if not isinstance(exc, Exception):
                raise
        finally:
            self.batches.close()
            if self.feeds.tables.get(table_id) is self:
                del self.feeds.tables[table_id]


class Feeds:
    """This process's table feeds, by table id."""

    def __init__(
        self, store: EventStore, repo: TableRepo, stream_of: Callable[[str], str]
    ) -> None:
        self.store = store
        self.repo = repo
        self.stream_of = stream_of
        self.tables: dict[str, TableFeed] = {}
        repo.append_hooks.append(self._appended)

    def _appended(
        self, table_id: str, first: int, events: Sequence[TableEvent], at: float,
        hashes: Sequence[str], state: TableState,
    ) -> None:
        feed = self.tables.get(table_id)
        if feed is not None and len(hashes) == len(events):
            feed.appended(first, events, at, hashes, state)

    def position(self, table_id: str) -> int | None:
        """The newest version this process's live feed of the table has handed on, if it
        follows the table (None: no feed, or one that has ended)."""
        feed = self.tables.get(table_id)
        if feed is None or feed.task.done():
            return None
        return feed.position

    async def watch(
        self,
        table_id: str,
        after: int,
        sink: Sink,
        *,
        views: bool,
        hold_limit: int = 1024,
        page: int = 1000,
    ) -> None:
        """Deliver every event after `after` to `sink`, then the live ones, until cancelled or
        the feed fails (its error is raised)."""
        stream = self.stream_of(table_id)
        last = after
        reloaded = False
        followed = self.position(table_id)
        # A resume from close behind a feed this process runs needs no read of its own: the
        # gap (if any) is filled below, in one read of at most a page.
        caught_up = followed is not None and followed - after <= page
        while not caught_up:  # the catch-up: this watcher's own reads, paced by its socket
            items, reloaded = await self._read(table_id, stream, last, page, views, reloaded)
            if not items:
                break
            sink.deliver(items)
            last = items[-1].version
            await sink.drained()
            if len(items) < page:
                break
        feed = self.tables.get(table_id)
        if feed is None or feed.task.done():
            feed = self.tables[table_id] = TableFeed(self, table_id, stream, last)
        watcher = Watcher(sink, last, hold_limit)
        feed.watchers.add(watcher)
        try:
            while feed.position > watcher.last and not watcher.done.done():
                # The feed is ahead of our catch-up: fill the gap (its deliveries are held).
                items, reloaded = await self._read(
                    table_id, stream, watcher.last, feed.position - watcher.last, views, reloaded
                )
                if not items:
                    break
                watcher.pass_on(items)
                await sink.drained()
            watcher.go_live()
            await watcher.done
        finally:
            feed.remove(watcher)
            if not watcher.done.done():
                watcher.done.cancel()
            elif not watcher.done.cancelled():
                watcher.done.exception()  # retrieved: it was raised above, or is moot now

    async def _read(
        self, table_id: str, stream: str, after: int, limit: int, views: bool, reloaded: bool
    ) -> tuple[list[LiveEvent], bool]:
        """Up to `limit` stored events after `after`, the newest with its state if `views`
        (see `_with_state`, which `reloaded` is passed through)."""
        items = [LiveEvent.of(s) for s in await self.store.read(stream, after, limit)]
        if items and views:
            reloaded = await self._with_state(table_id, items, reloaded)
        return items, reloaded

    async def _with_state(self, table_id: str, items: list[LiveEvent], reloaded: bool) -> bool:
        """Give the newest item its state (trail first, else one read of the table)."""
        newest = items[-1]
        state = self.repo.trail.get(table_id, newest.version)
        if state is None and not reloaded:
            reloaded = True
            loaded = await self.repo.load(table_id)
            if loaded.version == newest.version:
                state = loaded.state
        newest.state = state
        return reloaded

    def close(self) -> None:
        for feed in list(self.tables.values()):
            feed.close(StoreUnavailable("the service is stopping"))
