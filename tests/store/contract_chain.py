"""The store contract's hash chain: every append linked, the time inside it, old entries
verified, changes caught."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from events.store.base import ChainBroken, StoredEvent
from events.store.chain import ZERO_HASH, at_text, chain, link
from events.store.redis_store import RedisEventStore
from tests.store.contract_base import MakeStore, OnAStore
from tests.support.streams import new_stream, rewrite


class ChainContract(OnAStore):
    """The chain links every append, and `verify` names what was changed."""

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
