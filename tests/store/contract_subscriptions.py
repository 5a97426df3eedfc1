"""The store contract's subscriptions: catch-up then live, one reader for many streams,
skipped events, slow subscribers, a closing store."""

from __future__ import annotations

import asyncio

import pytest

from events.store.base import StoreUnavailable, SubscriberTooSlow
from events.store.redis_store import PAGE, RedisEventStore
from tests.store.contract_base import MakeStore, OnAStore
from tests.support.streams import new_stream, take


class SubscriptionContract(OnAStore):
    """A subscription yields every event once, in order, or says why it cannot."""

    # -- subscriptions --------------------------------------------------------------------

    async def test_subscribe_catches_up_then_goes_live(self, store: RedisEventStore) -> None:
        s = new_stream()
        await store.append(s, [b"1", b"2", b"3"], expected_version=0)
        it = store.subscribe(s, after=1)
        first = await take(it, 2)
        assert [e.version for e in first] == [2, 3]
        await store.append(s, [b"4"], expected_version=3)
        await store.append(s, [b"5", b"6"], expected_version=4)
        live = await take(it, 3)
        assert [e.version for e in live] == [4, 5, 6]
        assert [e.data for e in live] == [b"4", b"5", b"6"]
        await it.aclose()  # type: ignore[attr-defined]

    async def test_subscriber_joining_a_watched_stream(self, make_store: MakeStore) -> None:
        """A second subscriber arrives after the reader has moved past its position."""
        reader_store, writer = make_store(), make_store()
        s = new_stream()
        early = reader_store.subscribe(s, after=0)
        await writer.append(s, [b"1"], expected_version=0)
        assert [e.version for e in await take(early, 1)] == [1]
        await writer.append(s, [b"2", b"3"], expected_version=1)
        assert [e.version for e in await take(early, 2)] == [2, 3]
        late = reader_store.subscribe(s, after=1)
        assert [e.version for e in await take(late, 2)] == [2, 3]
        await writer.append(s, [b"4"], expected_version=3)
        assert [e.version for e in await take(late, 1)] == [4]
        assert [e.version for e in await take(early, 1)] == [4]
        for it in (early, late):
            await it.aclose()  # type: ignore[attr-defined]

    async def test_subscriptions_on_many_streams_share_one_reader(
        self, make_store: MakeStore
    ) -> None:
        store = make_store()
        streams = [new_stream() for _ in range(6)]
        subs = [store.subscribe(s, after=0) for s in streams]
        tasks = [asyncio.create_task(take(it, 2)) for it in subs]
        await asyncio.sleep(0.05)
        for s in streams:
            await store.append(s, [b"a"], expected_version=0)
            await store.append(s, [s.encode()], expected_version=1)
        results = await asyncio.gather(*tasks)
        for s, got in zip(streams, results, strict=True):
            assert [(e.version, e.data) for e in got] == [(1, b"a"), (2, s.encode())]
        for it in subs:
            await it.aclose()  # type: ignore[attr-defined]

    async def test_skipped_events_are_never_yielded(self, make_store: MakeStore) -> None:
        """A consumer that holds its own appends skips them; the rest (another process's
        appends, in between) still arrive in order, each once."""
        store, other = make_store(), make_store()
        s = new_stream()
        batches = store.subscribe_batches(s, after=0)

        async def upto(version: int) -> list[int]:
            got: list[int] = []
            while not got or got[-1] < version:
                batch = await asyncio.wait_for(batches.__anext__(), 5.0)
                got += [e.version for e in batch]
            return got

        await store.append(s, [b"1"], expected_version=0)
        assert await upto(1) == [1]
        await store.append(s, [b"2", b"3"], expected_version=1)
        batches.skip_to(3)  # "we hold 2 and 3": they must not come
        assert batches.last == 3
        await other.append(s, [b"4"], expected_version=3)
        assert await upto(4) == [4]
        await store.append(s, [b"5"], expected_version=4)
        batches.skip_to(5)
        batches.skip_to(2)  # backwards is a no-op
        await other.append(s, [b"6", b"7"], expected_version=5)
        assert await upto(7) == [6, 7]
        batches.close()
        with pytest.raises(StopAsyncIteration):
            await batches.__anext__()

    async def test_skip_during_catch_up(self, store: RedisEventStore) -> None:
        """Skipping past events still to be read in the catch-up drops them there too."""
        s = new_stream()
        await store.append(s, [b"1", b"2", b"3"], expected_version=0)
        batches = store.subscribe_batches(s, after=0)
        batches.skip_to(2)
        first = await asyncio.wait_for(batches.__anext__(), 5.0)
        assert [e.version for e in first] == [3]
        await store.append(s, [b"4"], expected_version=3)
        live = await asyncio.wait_for(batches.__anext__(), 5.0)
        assert [(e.version, e.data) for e in live] == [(4, b"4")]
        batches.close()

    async def test_slow_subscriber_is_told_so(self, make_store: MakeStore) -> None:
        store = make_store(queue_size=2)
        s = new_stream()
        it = store.subscribe(s, after=0)
        await store.append(s, [b"1"], expected_version=0)
        assert [e.version for e in await take(it, 1)] == [1]
        for v in range(1, 8):  # nobody consumes: the bounded queue overflows
            await store.append(s, [b"x"], expected_version=v)
        await asyncio.sleep(0.3)
        with pytest.raises(SubscriberTooSlow):
            await take(it, 10)

    async def test_closing_the_store_ends_its_subscriptions(self, make_store: MakeStore) -> None:
        store = make_store()
        s = new_stream()
        await store.append(s, [b"1"], expected_version=0)
        it = store.subscribe(s, after=0)
        assert [e.version for e in await take(it, 1)] == [1]
        waiting = asyncio.create_task(take(it, 1))
        await asyncio.sleep(0.05)
        await store.close()
        with pytest.raises(StoreUnavailable):
            await waiting

    async def test_long_streams_read_and_verify_across_pages(self, store: RedisEventStore) -> None:
        s = new_stream()
        total = PAGE * 2 + 7
        for v in range(0, total, 1000):
            batch = [b"%d" % (v + i + 1) for i in range(min(1000, total - v))]
            await store.append(s, batch, expected_version=v)
        events = await store.read(s)
        assert [e.version for e in events] == list(range(1, total + 1))
        assert [e.version for e in await store.read(s, after=PAGE - 3, limit=PAGE + 5)] == list(
            range(PAGE - 2, 2 * PAGE + 3)
        )
        assert await store.verify(s) == total
        assert [e.version for e in await take(store.subscribe(s, after=7), total - 7)] == list(
            range(8, total + 1)
        )
