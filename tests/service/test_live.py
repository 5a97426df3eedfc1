"""`TableService.watch`: the pushed feed behind the sockets. One table feed per table and
process, however many watchers; every watcher gets a gap-free, repeat-free sequence from its
`after` through catch-up into live events; the shared projections are exactly
`project_event`'s for each viewer (privacy); the newest item of a delivery carries the view at
its version."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Sequence

import msgspec
import pytest

from events.codec import decode_table_event
from events.store.base import StoredEvent
from service.game.decider import evolve, fold
from service.game.shared_views import SharedViews
from service.game.view import project_event
from service.game.view import view as table_view
from service.tables import bots
from service.tables.facade import FeedItem, User
from service.tables.live import LiveEvent
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.service_play import make_users, play_hands, seated_table
from tests.support.services import Factory
from tests.support.waiting import eventually

pytestmark = pytest.mark.redis


class Sink:
    """Records what a socket would get: versions, the encoded event, and views."""

    def __init__(self, viewer: int | None) -> None:
        self.viewer = viewer
        self.versions: list[int] = []
        self.events: list[dict[str, object]] = []
        self.views: dict[int, bytes] = {}
        self.deliveries = 0
        self.delivered_in: list[asyncio.Task[object] | None] = []  # whose task delivered
        self.arrived = asyncio.Event()

    def deliver(self, items: Sequence[FeedItem]) -> None:
        self.deliveries += 1
        self.delivered_in.append(asyncio.current_task())
        for item in items:
            self.versions.append(item.version)
            self.events.append(msgspec.json.decode(item.event_json(self.viewer)))
        view = items[-1].view_json(self.viewer)
        if view is not None:
            self.views[items[-1].version] = view
        self.arrived.set()

    async def drained(self) -> None:
        await asyncio.sleep(0)

    async def until(self, version: int) -> None:
        async with asyncio.timeout(10):
            while not self.versions or self.versions[-1] < version:
                self.arrived.clear()
                await self.arrived.wait()


def watching(service: TableService) -> int:
    """How many watchers the process's feeds serve (a watcher joins its table's feed once it
    has caught up)."""
    return sum(len(feed.watchers) for feed in service.feeds.tables.values())


def check_received(sink: Sink, stored: Sequence[StoredEvent], after: int) -> None:
    """`sink` got every stored version after `after` once, in order, each event in its viewer's
    projection; every view it got is the viewer's view of the fold at its version, and the
    newest version got one."""
    events = [decode_table_event(e.data) for e in stored]
    version = stored[-1].version
    assert sink.versions == list(range(after + 1, version + 1))
    for got, s, event in zip(sink.events, stored[after:], events[after:], strict=True):
        projected = project_event(event, sink.viewer)
        assert got == {"version": s.version, "type": projected["type"], "at": s.at,
                       "data": projected["data"], "hash": s.hash}
    assert version in sink.views
    for v, view in sink.views.items():
        assert msgspec.json.decode(view) == table_view(fold(events[:v]), sink.viewer, v)


async def test_watchers_share_one_feed_and_get_every_event_once(
    services: Factory, clock: FakeClock
) -> None:
    writer = await services()  # another process: its appends reach `reader` only via Redis
    reader = await services()
    users = make_users(3)
    outsider = User(id=users[0].id + 1000, name="Spectator")
    table_id = await seated_table(writer, users)
    start = await writer.store.version(writer.streams.table(table_id))
    viewers: list[User | None] = [*users, outsider, None]
    sinks = [Sink(u.id if u else None) for u in viewers]
    # different starting points: from scratch, mid-way, and live
    afters = [0, 2, start, start, 1]
    tasks = [
        asyncio.create_task(reader.watch(u, table_id, a, s, views=True))
        for u, a, s in zip(viewers, afters, sinks, strict=True)
    ]
    try:
        await eventually(lambda: watching(reader) == len(sinks))  # all five have joined
        assert len(reader.feeds.tables) == 1  # one reader of the table for all five
        await play_hands(writer, clock, table_id, users, hands=2, rng=random.Random(11))
        # a late joiner resuming from the start while the table is live
        late = Sink(users[1].id)
        tasks.append(asyncio.create_task(reader.watch(users[1], table_id, 0, late, views=True)))
        await play_hands(writer, clock, table_id, users, hands=3, rng=random.Random(12))
        version = await writer.store.version(writer.streams.table(table_id))
        for sink in [*sinks, late]:
            await sink.until(version)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    assert not reader.feeds.tables  # the last watcher gone, the feed stopped

    stored = await writer.store.read(writer.streams.table(table_id))
    for sink, after in zip([*sinks, late], [*afters, 0], strict=True):
        check_received(sink, stored, after)


async def test_own_appends_reach_the_watchers_straight_from_the_append(
    services: Factory, clock: FakeClock
) -> None:
    """The process that appends hands its events to its watchers before `act` returns (no
    round trip through the store's reader); appends of another process, in between, still come
    through the store. Every watcher gets each version once, in order, projected for it, and
    the views are the views of the fold."""
    here = await services()
    there = await services()  # another process writing to the same table
    # Here the store's reader lags by 20 ms (as it does under load), so the append's reply
    # is in first: that is when the direct path pays.
    hub = here.store._hub  # type: ignore[attr-defined]
    dispatch = hub._dispatch
    hub._dispatch = lambda *args: asyncio.get_running_loop().call_later(0.02, dispatch, *args)
    users = make_users(3)
    table_id = await seated_table(here, users)
    start = await here.store.version(here.streams.table(table_id))
    sinks = [Sink(u.id) for u in users]
    tasks = [asyncio.create_task(here.watch(u, table_id, start, s, views=True))
             for u, s in zip(users, sinks, strict=True)]
    try:
        await eventually(lambda: watching(here) == len(sinks))  # all three have joined
        rng = random.Random(5)
        for turn in range(40):
            actor = here if turn % 3 else there
            loaded = await actor.repo.load(table_id)
            state = loaded.state
            assert state is not None
            for user in users:
                choice = bots.choose(await actor.view(user, table_id), rng)
                if choice is not None:
                    version = await actor.act(user, table_id, action_id=uuid.uuid4().hex,
                                              type=choice[0], amount=choice[1])
                    break
            else:
                clock.now = max(clock.now, state.deadline or clock.now)
                await actor.driver.fire(table_id)
                version = await actor.store.version(actor.streams.table(table_id))
            for sink in sinks:
                await sink.until(version)
        # Delivered by this very task (inside `act`), not by the feed's task: straight from
        # the append. Timers that fire here too; the other process's appends never.
        me = asyncio.current_task()
        for sink in sinks:
            assert sum(task is me for task in sink.delivered_in) >= 20
            assert sum(task is not me for task in sink.delivered_in) >= 10
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    stored = await here.store.read(here.streams.table(table_id))
    for sink in sinks:
        check_received(sink, stored, start)


async def test_shared_projection_is_each_viewers_own(services: Factory, clock: FakeClock) -> None:
    """Privacy of the shared encodings: for every event of played hands and every viewer
    (each player, an outsider, a spectator), what `LiveEvent` hands out is exactly that
    viewer's `project_event` -- in particular nobody gets another player's `looked` cards."""
    service = await services()
    users = make_users(3)
    table_id = await seated_table(service, users)
    await play_hands(service, clock, table_id, users, hands=4, rng=random.Random(5))
    stored = await service.store.read(service.streams.table(table_id))
    viewers = [u.id for u in users] + [users[0].id + 1000, None]
    looked = 0
    for s in stored:
        item = LiveEvent.of(s)
        for viewer in reversed(viewers):  # the spectator first: a cached public encoding
            projected = project_event(item.event, viewer)
            assert msgspec.json.decode(item.event_json(viewer)) == {
                "version": s.version, "type": projected["type"], "at": s.at,
                "data": projected["data"], "hash": s.hash}
        looked += projected["type"] == "looked"
    assert looked  # the bots' strategy looks: the private case was exercised


async def test_shared_views_are_each_viewers_view(services: Factory, clock: FakeClock) -> None:
    """`SharedViews` (the viewer-independent parts encoded once) gives exactly the bytes of
    `view()` for every viewer at every version of played hands, with a leaver and a newcomer
    in the mix: nobody sees cards `view()` would not show them."""
    service = await services()
    users = make_users(4)
    table_id = await seated_table(service, users[:3])
    await play_hands(service, clock, table_id, users[:3], hands=2, rng=random.Random(3))
    await service.leave(users[2], table_id)
    await service.seat(users[3], table_id, 200)
    await play_hands(service, clock, table_id, users, hands=4, rng=random.Random(4))
    stored = await service.store.read(service.streams.table(table_id))
    viewers = [u.id for u in users] + [users[0].id + 1000, None]
    encode = msgspec.json.Encoder().encode
    state = None
    own_cards_seen = 0
    for s in stored:
        state = evolve(state, decode_table_event(s.data))
        shared = SharedViews(state, s.version)
        for viewer in (viewers if s.version % 2 else list(reversed(viewers))):
            expected = table_view(state, viewer, s.version)
            assert shared.encoded(viewer) == encode(expected)
            own_cards_seen += expected["you"]["cards"] is not None
    assert own_cards_seen  # the private case was exercised


async def test_catch_up_hands_over_without_loss_while_the_table_moves(
    services: Factory, clock: FakeClock
) -> None:
    """A watcher whose catch-up is slow while another keeps the feed busy: the events the feed
    delivers meanwhile are held and passed on after the catch-up, none twice."""
    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    await play_hands(service, clock, table_id, users, hands=1)
    busy = Sink(users[0].id)
    first = asyncio.create_task(service.watch(users[0], table_id, 0, busy))

    class SlowSink(Sink):
        async def drained(self) -> None:
            await asyncio.sleep(0.05)  # a slow phone during its catch-up

    slow = SlowSink(users[1].id)
    second = asyncio.create_task(service.watch(users[1], table_id, 0, slow))
    try:
        await play_hands(service, clock, table_id, users, hands=3)
        version = await service.store.version(service.streams.table(table_id))
        await busy.until(version)
        await slow.until(version)
    finally:
        for task in (first, second):
            task.cancel()
        await asyncio.gather(first, second, return_exceptions=True)
    assert slow.versions == busy.versions == list(range(1, version + 1))


async def test_watch_refuses_bad_input(services: Factory) -> None:
    from service.tables.facade import ServiceError

    service: TableService = await services()
    users = make_users(1)
    table_id = await seated_table(service, users)
    for table, after in ((table_id, -1), ("nope", 0)):
        with pytest.raises(ServiceError):
            await service.watch(users[0], table, after, Sink(users[0].id))


async def test_a_watcher_that_holds_too_much_during_catch_up_is_too_slow(
    services: Factory, clock: FakeClock
) -> None:
    """What the feed delivers while a watcher is still filling its gap is held, and that is
    bounded: past `hold_limit` the watch ends with SubscriberTooSlow (the socket closes 4408
    and the client resumes by version)."""
    from events.store.base import SubscriberTooSlow

    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    busy = Sink(users[0].id)
    first = asyncio.create_task(service.watch(users[0], table_id, 0, busy))

    class SlowSink(Sink):
        async def drained(self) -> None:
            await asyncio.sleep(0.2)  # a phone slow to take its catch-up

    async def keep_playing() -> None:
        for hands in range(1, 30):
            await play_hands(service, clock, table_id, users, hands=hands)
            await asyncio.sleep(0.02)

    player = asyncio.create_task(keep_playing())
    slow = asyncio.create_task(
        service.watch(users[1], table_id, 0, SlowSink(users[1].id), hold_limit=3))
    try:
        with pytest.raises(SubscriberTooSlow, match="during catch-up"):
            await asyncio.wait_for(slow, 10)
    finally:
        for task in (slow, first, player):
            task.cancel()
        await asyncio.gather(slow, first, player, return_exceptions=True)
    assert busy.versions == list(range(1, len(busy.versions) + 1))  # the others carry on


class CountingReads:
    """Counts the store reads a table service makes (the reconnect storm's cost)."""

    def __init__(self, service: TableService, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        store = service.store
        for name in ("read", "version", "load_snapshot"):
            original = getattr(store, name)

            async def counted(*args: object, _name: str = name, _original: object = original,
                              **kwargs: object) -> object:
                self.calls.append(_name)
                return await _original(*args, **kwargs)  # type: ignore[operator]

            monkeypatch.setattr(store, name, counted)


async def test_a_reconnect_to_a_followed_table_costs_the_store_at_most_the_gap(
    services: Factory, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a socket's `ready` and `resume` read: nothing of a table this process follows but
    the events the socket missed (one read); one read of the stream's head for a table it does
    not follow; a 404 for no table. (Before: a full load for `ready`, another before the feed,
    and a catch-up read, whatever the process already had.)"""
    from service.tables.facade import ServiceError

    service: TableService = await services()
    users = make_users(3)
    table_id = await seated_table(service, users)
    head = await service.store.version(service.streams.table(table_id))
    reads = CountingReads(service, monkeypatch)
    assert await service.version(table_id) == head and reads.calls == ["version"]
    with pytest.raises(ServiceError) as missing:
        await service.version("no-such-table")
    assert missing.value.status == 404

    first = Sink(users[0].id)
    following = asyncio.create_task(
        service.watch(users[0], table_id, head - 1, first, views=True))
    try:
        await first.until(head)
        await play_hands(service, clock, table_id, users, hands=1, rng=random.Random(5))
        now = await service.store.version(service.streams.table(table_id))
        await first.until(now)

        reads.calls.clear()
        assert await service.version(table_id) == now  # the feed's position: no read
        assert reads.calls == []
        back = Sink(users[1].id)  # a socket that missed the last three events
        resumed = asyncio.create_task(service.watch(users[1], table_id, now - 3, back,
                                                    views=True))
        live = Sink(users[2].id)  # one that missed nothing
        current = asyncio.create_task(service.watch(users[2], table_id, now, live))
        try:
            await back.until(now)
            await asyncio.sleep(0.05)
            assert back.versions == [now - 2, now - 1, now] and now in back.views
            assert live.versions == []
            assert reads.calls == ["read"]  # the gap, once; nothing for `live`
            await play_hands(service, clock, table_id, users, hands=2, rng=random.Random(6))
            later = await service.store.version(service.streams.table(table_id))
            await live.until(later)
            assert live.versions == list(range(now + 1, later + 1))
        finally:
            for task in (resumed, current):
                task.cancel()
            await asyncio.gather(resumed, current, return_exceptions=True)
    finally:
        following.cancel()
        await asyncio.gather(following, return_exceptions=True)
