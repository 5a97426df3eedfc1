"""The store contract's appends and reads: a new stream, optimistic concurrency, idempotent
retries, reads (and many at once)."""

from __future__ import annotations

import asyncio

import pytest

from events.store.chain import ZERO_HASH, link_v2
from events.store.redis_store import RedisEventStore
from tests.store.contract_base import MakeStore, OnAStore
from tests.support.streams import new_stream


class AppendContract(OnAStore):
    """Appends are version-checked and idempotent; reads page and wait for a connection."""

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
