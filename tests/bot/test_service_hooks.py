"""The service's hook points the bot stands on, on the real Redis: whether the bot may write
to a player (profile), who has a table open (presence, across replicas), and the observers
that see every event this process appends or folds from a feed."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from events.table import TableEvent
from service.game.decider import fold
from service.game.state import TableState
from service.tables.facade import FeedItem, User
from service.tables.presence import Presence
from tests.support.clock import FakeClock
from tests.support.service_play import make_users, play_hands, seated_table
from tests.support.services import Factory

pytestmark = pytest.mark.redis


async def test_the_bot_may_write_to_a_player_from_start_until_they_block_it(
    services: Factory,
) -> None:
    service = await services()
    other_replica = await services()
    user = User(id=930_001, name="Olga", language_code="ru-RU")
    stream = service.streams.profile(user.id)
    assert (await service.profile(user.id)).bot == "never"
    assert not (await service.profile(user.id)).reachable

    started = await service.bot_started(user)
    assert started.reachable and started.telegram_language == "ru-RU"
    assert await service.store.version(stream) == 1
    await other_replica.bot_started(user)  # every later message: nothing new to write
    assert await service.store.version(stream) == 1

    assert (await other_replica.bot_blocked(user.id)).bot == "blocked"
    assert not (await service.profile(user.id)).reachable
    await service.bot_blocked(user.id)
    assert await service.store.version(stream) == 2

    again = await service.bot_started(User(id=user.id, name="Olga", language_code="bg"))
    assert again.reachable and again.telegram_language == "bg"
    # The player's own choices are untouched by all of this.
    await service.set_preferences(user, language="de", pings=False)
    assert (await other_replica.profile(user.id)).reachable
    me = await other_replica.me(user)
    assert me["language"] == "de" and me["settings"] == {"language": "de", "pings": False}


async def test_presence_is_seen_by_every_replica_and_ends_with_the_socket(
    services: Factory, unique: str
) -> None:
    a, b = await services(), await services()
    table, user = f"t{unique}", 930_002
    assert not await b.presence.watching(table, user)
    first = await a.presence.opened(table, user)
    second = await a.presence.opened(table, user)  # two tabs
    assert await b.presence.watching(table, user)
    assert not await b.presence.watching(table, user + 1)
    assert not await b.presence.watching(table + "x", user)
    await a.presence.closed(first)
    assert await b.presence.watching(table, user)  # the other tab is still open
    await a.presence.closed(second)
    assert not await b.presence.watching(table, user)


async def test_presence_of_a_replica_that_died_expires_and_refreshing_keeps_it(
    services: Factory, unique: str
) -> None:
    service = await services()
    table = f"t{unique}"
    dying = Presence(service.kv, namespace=service.streams.namespace, ttl=0.5)
    living = Presence(service.kv, namespace=service.streams.namespace, ttl=0.5)
    looking = Presence(service.kv, namespace=service.streams.namespace)  # the real clock
    await dying.opened(table, 1)
    await living.opened(table, 2)
    stop = asyncio.Event()
    refresher = asyncio.create_task(living.run(stop))  # refreshes every ttl/3
    try:
        await asyncio.sleep(1.2)  # well past the ttl: only what is refreshed is left
        assert not await looking.watching(table, 1)
        assert await looking.watching(table, 2)
    finally:
        stop.set()
        await refresher


class Seen:
    """An observer recording what it is told, and checking each state against the fold."""

    def __init__(self) -> None:
        self.batches: list[tuple[str, int, list[TableEvent], TableState]] = []
        self.changed = asyncio.Event()

    def __call__(
        self, table_id: str, first: int, events: Sequence[TableEvent], state: TableState
    ) -> None:
        self.batches.append((table_id, first, list(events), state))
        self.changed.set()

    def versions(self, table_id: str) -> list[int]:
        return sorted({first + i for t, first, events, _ in self.batches if t == table_id
                       for i in range(len(events))})


class NullSink:
    """A feed subscriber that only keeps the table's feed open in its process."""

    def deliver(self, items: Sequence[FeedItem]) -> None:
        pass

    async def drained(self) -> None:
        await asyncio.sleep(0)


async def test_observers_see_own_appends_and_what_a_feed_folds(services: Factory) -> None:
    a = await services()
    b = await services()  # another replica: it follows the table through a feed
    users = make_users(2)
    seen_a, seen_b = Seen(), Seen()
    a.observers.append(seen_a)
    b.observers.append(seen_b)
    table_id = await seated_table(a, users)
    version, _ = await b.state(table_id)
    follow = asyncio.create_task(b.watch(None, table_id, version, NullSink()))
    try:
        await asyncio.sleep(0.2)  # the feed is reading
        clock = a.clock
        assert isinstance(clock, FakeClock)
        await play_hands(a, clock, table_id, users, 1)
        last, state = await a.state(table_id)
        # Every version this process appended was told once, with the state right after it.
        assert seen_a.versions(table_id) == list(range(1, last + 1))
        batches = sorted(seen_a.batches, key=lambda batch: batch[1])
        told = [event for _, _, events, _ in batches for event in events]
        assert len(told) == last and fold(told) == state
        for _, first, events, after in batches:
            assert fold(told[: first + len(events) - 1]) == after
        # The other replica folded every later version from its feed, one at a time.
        async with asyncio.timeout(10):
            while not seen_b.versions(table_id) or seen_b.versions(table_id)[-1] < last:
                seen_b.changed.clear()
                await seen_b.changed.wait()
        assert seen_b.versions(table_id) == list(range(version + 1, last + 1))
        assert all(len(events) == 1 for _, _, events, _ in seen_b.batches)
        assert seen_b.batches[-1][3] == state
    finally:
        follow.cancel()
        await asyncio.gather(follow, return_exceptions=True)

