"""The one contract every EventStore passes (embedded, Redis, Redis Cluster).

A test module subclasses `StoreContract` and provides a `make_store` fixture: a factory that
opens a fresh store on the module's backend (several calls = several "processes" sharing one
dataset). Streams are uuid-named, so the shared Redis is safe.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from events.store.base import (
    ChainBroken,
    IndexOp,
    StoredEvent,
    StoreUnavailable,
    SubscriberTooSlow,
)
from events.store.chain import ZERO_HASH, at_text, chain, link, link_v2
from events.store.redis_store import PAGE, RedisEventStore
from tests.support.streams import new_stream, rewrite, take

MakeStore = Callable[..., RedisEventStore]


def indexed_stream(store: RedisEventStore) -> str:
    """A fresh stream name that may carry index entries on this store (on a Cluster, only
    streams in an index shard's slot may; see `events.store.keys`)."""
    while True:
        stream = new_stream()
        if store.indexable(stream):
            return stream


def new_index() -> str:
    return f"ix{uuid.uuid4().hex[:12]}"


class StoreContract:
    @pytest.fixture
    async def store(self, make_store: MakeStore) -> RedisEventStore:
        return make_store()

    # -- a new or missing stream ----------------------------------------------------------

    async def test_missing_stream_reads_as_empty(self, store: RedisEventStore) -> None:
        s = new_stream()
        assert await store.version(s) == 0
        assert await store.read(s) == []
        assert await store.read(s, after=5) == []
        assert await store.verify(s) == 0
        assert await store.load_snapshot(s) is None
        assert await store.find_action(s, "nope") is None

    async def test_first_append_creates_version_1(self, store: RedisEventStore) -> None:
        s = new_stream()
        result = await store.append(s, [b"opened"], expected_version=0, at=1700000000.5)
        assert (result.status, result.version) == ("appended", 1)
        [event] = await store.read(s)
        assert event.version == 1
        assert event.data == b"opened"
        assert event.at == 1700000000.5
        assert event.action_id is None
        assert event.chain == 2
        assert event.hash == link_v2(ZERO_HASH, "1700000000.5", b"opened")
        assert result.hashes == (event.hash,)
        assert await store.version(s) == 1

    # -- optimistic concurrency -----------------------------------------------------------

    async def test_stale_version_writes_nothing(self, store: RedisEventStore) -> None:
        s = new_stream()
        await store.append(s, [b"a", b"b"], expected_version=0)
        result = await store.append(s, [b"late"], expected_version=1)
        assert (result.status, result.version) == ("conflict", 2)
        assert [e.data for e in await store.read(s)] == [b"a", b"b"]

    async def test_ahead_version_writes_nothing(self, store: RedisEventStore) -> None:
        s = new_stream()
        await store.append(s, [b"a"], expected_version=0)
        result = await store.append(s, [b"future"], expected_version=7)
        assert (result.status, result.version) == ("conflict", 1)
        empty = await store.append(new_stream(), [b"x"], expected_version=3)
        assert (empty.status, empty.version) == ("conflict", 0)
        assert await store.version(s) == 1

    async def test_batch_is_all_or_nothing(self, store: RedisEventStore) -> None:
        s = new_stream()
        result = await store.append(
            s, [b"1", b"2", b"3"], expected_version=0, action_id="a1", at=5.0
        )
        assert (result.status, result.version) == ("appended", 3)
        events = await store.read(s)
        assert [(e.version, e.data, e.at, e.action_id) for e in events] == [
            (1, b"1", 5.0, "a1"),
            (2, b"2", 5.0, "a1"),
            (3, b"3", 5.0, "a1"),
        ]
        stale = await store.append(s, [b"4", b"5", b"6"], expected_version=2)
        assert stale.status == "conflict"
        assert await store.version(s) == 3
        again = await store.append(s, [b"4", b"5"], expected_version=3)
        assert (again.status, again.version) == ("appended", 5)
        assert await store.verify(s) == 5

    async def test_second_process_appends_without_cached_head(self, make_store: MakeStore) -> None:
        """A store that never saw the stream must chain from the true head (rehash path)."""
        first, second = make_store(), make_store()
        s = new_stream()
        await first.append(s, [b"a", b"b"], expected_version=0)
        assert (await second.append(s, [b"c"], expected_version=2)).version == 3
        assert (await first.append(s, [b"d"], expected_version=3)).version == 4
        assert await first.verify(s) == 4

    # -- idempotency ----------------------------------------------------------------------

    async def test_retried_action_returns_first_result(self, store: RedisEventStore) -> None:
        s = new_stream()
        first = await store.append(s, [b"raise", b"turn"], expected_version=0, action_id="act-1")
        assert (first.status, first.version) == ("appended", 2)
        await store.append(s, [b"other"], expected_version=2, action_id="act-2")
        retry = await store.append(s, [b"raise", b"turn"], expected_version=0, action_id="act-1")
        assert (retry.status, retry.version) == ("duplicate", 2)
        # Even with a now-"current" version and different bytes, the action is not re-applied.
        retry2 = await store.append(s, [b"changed"], expected_version=3, action_id="act-1")
        assert (retry2.status, retry2.version) == ("duplicate", 2)
        assert await store.version(s) == 3
        assert await store.find_action(s, "act-1") == 2
        assert await store.find_action(s, "act-2") == 3

    async def test_racing_retries_write_once(self, make_store: MakeStore) -> None:
        stores = [make_store() for _ in range(5)]
        s = new_stream()
        results = await asyncio.gather(
            *(st.append(s, [b"bet"], expected_version=0, action_id="same") for st in stores * 4)
        )
        assert sorted(r.status for r in results).count("appended") == 1
        assert {r.status for r in results} <= {"appended", "duplicate"}
        assert {r.version for r in results} == {1}
        assert len(await stores[0].read(s)) == 1

    # -- reads ----------------------------------------------------------------------------

    async def test_reads_after_n(self, store: RedisEventStore) -> None:
        s = new_stream()
        await store.append(s, [str(i).encode() for i in range(1, 11)], expected_version=0)
        assert [e.version for e in await store.read(s, after=7)] == [8, 9, 10]
        assert [e.version for e in await store.read(s, after=2, limit=3)] == [3, 4, 5]
        assert await store.read(s, after=10) == []
        assert await store.read(s, after=99) == []
        assert await store.read(s, after=3, limit=0) == []

    async def test_bad_input_is_a_clear_error(self, store: RedisEventStore) -> None:
        s = new_stream()
        for bad in ("", "has{brace}", "space name", "x" * 201):
            with pytest.raises(ValueError):
                await store.append(bad, [b"x"], expected_version=0)
        with pytest.raises(ValueError):
            await store.append(s, [], expected_version=0)
        with pytest.raises(ValueError):
            await store.append(s, [b"x"], expected_version=-1)
        with pytest.raises(TypeError):
            await store.append(s, b"not-a-list", expected_version=0)  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            await store.read(s, after=-1)
        assert await store.version(s) == 0

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

    # -- a busy store ---------------------------------------------------------------------

    async def test_many_concurrent_reads_wait_for_a_connection(
        self, store: RedisEventStore
    ) -> None:
        """More reads at once than the connection pool holds: they wait for a connection,
        none fails (redis-py's default pool raised "Too many connections" past 100)."""
        s = new_stream()
        await store.append(s, [b"a", b"b"], expected_version=0, action_id="x")
        reads = await asyncio.gather(
            *(store.read(s) for _ in range(300)),
            *(store.find_action(s, "x") for _ in range(100)),
            *(store.version(s) for _ in range(100)),
            return_exceptions=True,
        )
        failures = [r for r in reads if isinstance(r, BaseException)]
        assert failures == [], failures[:3]
        assert reads[299] == reads[0] and reads[300] == 2 and reads[-1] == 2

    # -- indexes beside the streams --------------------------------------------------------

    async def test_index_changes_are_written_with_the_append_or_not_at_all(
        self, store: RedisEventStore
    ) -> None:
        s, ix = indexed_stream(store), new_index()
        up = [IndexOp(ix, "t1", 5.0), IndexOp(ix + "L", "t1", 0.0, b"summary-1")]
        assert (await store.append(s, [b"a"], expected_version=0, index=up)).status == "appended"
        assert await store.index_due(ix, 5.0) == [("t1", 5.0)]
        assert await store.index_due(ix, 4.9) == []
        assert await store.index_page(ix + "L") == ([("t1", b"summary-1")], None)
        # a conflicting append writes none of its index changes
        later = [IndexOp(ix, "t1", 9.0), IndexOp(ix + "L", "t1", 0.0, b"summary-2")]
        conflict = await store.append(s, [b"b"], expected_version=0, index=later)
        assert conflict.status == "conflict"
        assert await store.index_due(ix, 100.0) == [("t1", 5.0)]
        # nor does a duplicate action
        await store.append(s, [b"b"], expected_version=1, action_id="once")
        again = await store.append(s, [b"b"], expected_version=2, action_id="once", index=later)
        assert again.status == "duplicate"
        assert await store.index_page(ix + "L") == ([("t1", b"summary-1")], None)
        # a later append moves the entry; an empty value leaves the stored one alone
        moved = [IndexOp(ix, "t1", 7.5), IndexOp(ix + "L", "t1", 0.0)]
        assert (await store.append(s, [b"c"], expected_version=2, index=moved)).version == 3
        assert await store.index_due(ix, 100.0) == [("t1", 7.5)]
        assert await store.index_page(ix + "L") == ([("t1", b"summary-1")], None)
        # and a None score takes it out, value and all
        gone = [IndexOp(ix, "t1", None), IndexOp(ix + "L", "t1", None)]
        assert (await store.append(s, [b"d"], expected_version=3, index=gone)).version == 4
        assert await store.index_due(ix, float("inf")) == []
        assert await store.index_page(ix + "L") == ([], None)
        assert [e.data for e in await store.read(s)] == [b"a", b"b", b"c", b"d"]
        assert await store.verify(s) == 4

    async def test_set_index_writes_only_at_the_expected_version(
        self, store: RedisEventStore
    ) -> None:
        s, ix = indexed_stream(store), new_index()
        await store.append(s, [b"a", b"b"], expected_version=0)
        assert not await store.set_index(s, expected_version=1, changes=[IndexOp(ix, "m", 1.0)])
        assert await store.index_due(ix, 10.0) == []
        assert await store.set_index(s, expected_version=2, changes=[IndexOp(ix, "m", 1.0)])
        assert await store.index_due(ix, 10.0) == [("m", 1.0)]
        assert await store.set_index(s, expected_version=2, changes=[IndexOp(ix, "m", None)])
        assert await store.index_due(ix, 10.0) == []
        empty = indexed_stream(store)  # an unknown stream is at version 0
        assert await store.set_index(empty, expected_version=0, changes=[IndexOp(ix, "e", 2.0)])
        assert await store.version(empty) == 0

    async def test_index_pages_and_due_entries_span_every_stream(
        self, make_store: MakeStore
    ) -> None:
        """Entries of many streams (on a Cluster: in many shards) read as one index."""
        writer, reader = make_store(), make_store()
        ix, listing = new_index(), new_index()
        members = {}
        for i in range(40):
            s = indexed_stream(writer)
            member = f"m{i:03d}"
            members[member] = s
            changes = [IndexOp(ix, member, float(i % 10)),
                       IndexOp(listing, member, 0.0, f"v{i}".encode())]
            await writer.append(s, [b"x"], expected_version=0, index=changes)
        due = await reader.index_due(ix, 4.0)
        assert [score for _, score in due] == sorted(score for _, score in due)
        assert {m for m, _ in due} == {f"m{i:03d}" for i in range(40) if i % 10 <= 4}
        assert len(await reader.index_due(ix, 9.0, limit=7)) == 7
        seen: list[tuple[str, bytes | None]] = []
        cursor = ""
        while True:
            page, following = await reader.index_page(listing, after=cursor, limit=6)
            assert len(page) <= 6
            seen += page
            if following is None:
                break
            assert following == page[-1][0]
            cursor = following
        assert seen == [(f"m{i:03d}", f"v{i}".encode()) for i in range(40)]

    async def test_marks_are_one_sorted_set(self, store: RedisEventStore) -> None:
        ix = new_index()
        await store.mark(ix, "u1:t1", 10.0)
        await store.mark(ix, "u2:t2", 5.0)
        await store.mark(ix, "u1:t1", 12.0)  # moved, not doubled
        assert await store.marked(ix) == [("u2:t2", 5.0), ("u1:t1", 12.0)]
        assert await store.marked(ix, upto=11.0) == [("u2:t2", 5.0)]
        await store.unmark(ix, "u2:t2")
        await store.unmark(ix, "never")
        assert await store.marked(ix) == [("u1:t1", 12.0)]

    async def test_stream_names_finds_streams_by_prefix(self, store: RedisEventStore) -> None:
        prefix = f"scan{uuid.uuid4().hex[:8]}:"
        names = {f"{prefix}table:{i}" for i in range(12)} | {f"{prefix}wallet:{i}" for i in
                                                            range(3)}
        for name in names:
            await store.append(name, [b"x"], expected_version=0)
        await store.append(f"other{prefix}table:1", [b"x"], expected_version=0)
        found = {n async for n in store.stream_names(f"{prefix}table:")}
        assert found == {n for n in names if ":table:" in n}
        assert {n async for n in store.stream_names(prefix)} == names
        assert {n async for n in store.stream_names("no-such-prefix-*?[")} == set()

    # -- snapshots ------------------------------------------------------------------------

    async def test_snapshots_cache_the_newest_version(self, store: RedisEventStore) -> None:
        s = new_stream()
        await store.append(s, [b"1", b"2", b"3"], expected_version=0)
        await store.save_snapshot(s, 2, b"state@2")
        snap = await store.load_snapshot(s)
        assert snap is not None
        assert (snap.version, snap.data) == (2, b"state@2")
        await store.save_snapshot(s, 1, b"older")  # never goes backwards
        snap = await store.load_snapshot(s)
        assert snap is not None
        assert snap.version == 2
        with pytest.raises(ValueError):
            await store.save_snapshot(s, 9, b"ahead of the stream")

    # -- the chain ------------------------------------------------------------------------

    async def test_chain_links_every_append(self, store: RedisEventStore) -> None:
        s = new_stream()
        datas = [b"a", b"b", b"c", b"d"]
        first = await store.append(s, datas[:1], expected_version=0, at=10.0)
        middle = await store.append(s, datas[1:3], expected_version=1, at=11.5)
        last = await store.append(s, datas[3:], expected_version=3, at=12.25)
        stored = await store.read(s)
        expected = chain(ZERO_HASH, datas[:1], "10.0")
        expected += chain(expected[-1], datas[1:3], "11.5")
        expected += chain(expected[-1], datas[3:], "12.25")
        assert [e.hash for e in stored] == expected
        assert [*first.hashes, *middle.hashes, *last.hashes] == expected
        assert [e.chain for e in stored] == [2, 2, 2, 2]
        assert await store.verify(s) == 4

    async def test_the_time_is_inside_the_chain(self, store: RedisEventStore) -> None:
        s = new_stream()
        await store.append(s, [b"a", b"b", b"c"], expected_version=0, at=100.0)

        def moved(events: list[StoredEvent]) -> list[StoredEvent]:
            return [msgspec.structs.replace(e, at=99.0) if e.version == 2 else e for e in events]

        await rewrite(store, s, moved)
        with pytest.raises(ChainBroken) as info:
            await store.verify(s)
        assert info.value.version == 2 and "time" in info.value.reason

    async def test_entries_from_before_chain_v2_verify_and_the_stream_goes_on(
        self, make_store: MakeStore
    ) -> None:
        """A stream written before chain version 2 (no `c`, hashes without the time) keeps
        verifying; appends go on in version 2 from its head, read by a store that never saw
        it (the rehash path)."""
        store = make_store()
        s = new_stream()
        key = f"svara:{{{s}}}:events"
        client: Any = store.client
        h = ZERO_HASH
        for v, data in enumerate([b"old-1", b"old-2", b"old-3"], start=1):
            h = link(h, data)
            await client.xadd(key, {"d": data, "at": "5.0", "h": h, "a": f"a{v}"}, id=f"{v}-0")
        fresh = make_store()
        result = await fresh.append(s, [b"new-4", b"new-5"], expected_version=3, at=6.0)
        assert result.status == "appended" and result.hashes == tuple(
            chain(h, [b"new-4", b"new-5"], at_text(6.0))
        )
        stored = await fresh.read(s)
        assert [e.chain for e in stored] == [1, 1, 1, 2, 2]
        assert [e.action_id for e in stored[:3]] == ["a1", "a2", "a3"]
        assert await fresh.verify(s) == 5

    async def test_a_version_2_entry_relabelled_as_version_1_is_caught(
        self, store: RedisEventStore
    ) -> None:
        """Rewriting the newer entries as the older kind (whose hash leaves the time out) and
        recomputing every hash from there is still caught: the chain version may not go down
        after a version-2 entry."""
        s = new_stream()
        await store.append(s, [b"a", b"b", b"c"], expected_version=0, at=1.0)

        def relabel(events: list[StoredEvent]) -> list[StoredEvent]:
            out = events[:1]
            h = events[0].hash
            for e in events[1:]:
                h = link(h, e.data)
                out.append(msgspec.structs.replace(e, hash=h, chain=1, at=2.0))
            return out

        await rewrite(store, s, relabel)
        with pytest.raises(ChainBroken) as info:
            await store.verify(s)
        assert info.value.version == 2 and "went down" in info.value.reason

    async def test_verify_names_a_changed_event(self, store: RedisEventStore) -> None:
        s = new_stream()
        await store.append(s, [b"a", b"b", b"c"], expected_version=0)
        await rewrite(store, s, lambda events: _with_data(events, 2, b"B"))
        with pytest.raises(ChainBroken) as info:
            await store.verify(s)
        assert info.value.version == 2


def _with_data(events: list[StoredEvent], version: int, data: bytes) -> list[StoredEvent]:
    return [msgspec.structs.replace(e, data=data) if e.version == version else e for e in events]
