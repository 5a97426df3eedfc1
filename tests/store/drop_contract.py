"""The contract of `drop_stream` (the archive's one destructive step), for every EventStore:
a module subclasses `DropContract` beside `StoreContract`, with the same `make_store`."""

from __future__ import annotations

import pytest

from events.store.base import IndexOp
from events.store.redis_store import RedisEventStore
from tests.store.contract import MakeStore, indexed_stream, new_index


class DropContract:
    @pytest.fixture
    async def store(self, make_store: MakeStore) -> RedisEventStore:
        return make_store()

    async def test_drop_deletes_the_stream_and_its_indexes_at_the_expected_version(
        self, store: RedisEventStore
    ) -> None:
        s, other = indexed_stream(store), indexed_stream(store)
        hands, shared = new_index(), new_index()
        ops = [IndexOp(hands, "1:a", 0.0, b"first"), IndexOp(shared, "mine", 0.0, b"kept")]
        await store.append(s, [b"a", b"b"], expected_version=0, action_id="act", index=ops)
        await store.append(s, [b"c"], expected_version=2, index=[IndexOp(hands, "1:b", 0.0)])
        await store.save_snapshot(s, 3, b"state")
        await store.append(other, [b"x"], expected_version=0,
                           index=[IndexOp(hands + "o", "m", 0.0, b"v")])  # fmt: skip

        # a stale version deletes nothing: an event appended after the archive was written
        # out must never go
        assert not await store.drop_stream(s, expected_version=2, indexes=[hands])
        assert await store.version(s) == 3
        assert len((await store.index_page(hands))[0]) == 2

        assert await store.drop_stream(s, expected_version=3, indexes=[hands])
        assert await store.version(s) == 0
        assert await store.read(s) == []
        assert await store.load_snapshot(s) is None
        assert await store.find_action(s, "act") is None
        assert await store.index_page(hands) == ([], None)
        # an index not named keeps its entries; another stream is untouched
        assert await store.index_page(shared) == ([("mine", b"kept")], None)
        assert [e.data for e in await store.read(other)] == [b"x"]
        assert await store.index_page(hands + "o") == ([("m", b"v")], None)
        assert await store.verify(other) == 1

    async def test_a_dropped_stream_is_gone_for_every_process_and_drops_again(
        self, make_store: MakeStore
    ) -> None:
        first, second = make_store(), make_store()
        s = indexed_stream(first)
        await first.append(s, [b"a"], expected_version=0)
        assert await second.version(s) == 1  # the second process caches the head
        assert await first.drop_stream(s, expected_version=1)
        assert await second.read(s) == []
        # dropping what is gone (a re-run after a crash) is a no-op that succeeds
        assert await second.drop_stream(s, expected_version=0)
        assert await first.version(s) == 0
        # a stream started again after a drop starts from version 1 and verifies
        result = await second.append(s, [b"new"], expected_version=0)
        assert (result.status, result.version) == ("appended", 1)
        assert await first.verify(s) == 1
