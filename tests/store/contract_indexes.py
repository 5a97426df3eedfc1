"""The store contract's data beside the streams: indexes written with the appends, marks,
stream names, snapshots."""

from __future__ import annotations

import uuid

import pytest

from events.store.base import IndexOp
from events.store.redis_store import RedisEventStore
from tests.store.contract_base import MakeStore, OnAStore, indexed_stream, new_index
from tests.support.redis import RUN_MARK
from tests.support.streams import new_stream


class IndexContract(OnAStore):
    """Indexes, marks and snapshots change with the streams or not at all."""

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
        prefix = f"scan{RUN_MARK}{uuid.uuid4().hex[:8]}:"
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
