"""The key-value contract (`events.store.kv`), for every backend the event store runs on.

A test module subclasses `KeyValueContract` beside its `StoreContract` and provides the same
`make_store` fixture; two stores made by it are two "processes" on one dataset. Keys are
uuid-named, so the shared Redis is safe; what a test leaves behind expires.
"""

from __future__ import annotations

import asyncio
import math
import time
import uuid

import pytest

from events.store.base import StoreUnavailable
from events.store.kv import KeyValue, RedisKeyValue, key_value_of
from tests.store.contract import MakeStore
from tests.support.waiting import eventually


def new_key() -> str:
    return f"kvtest:{uuid.uuid4().hex[:12]}"


class KeyValueContract:
    @pytest.fixture
    def kv(self, make_store: MakeStore) -> KeyValue:
        return key_value_of(make_store())

    @pytest.fixture
    def other(self, make_store: MakeStore) -> KeyValue:
        """Another process on the same dataset."""
        return key_value_of(make_store())

    async def test_claim_is_won_once_across_processes(
        self, kv: KeyValue, other: KeyValue
    ) -> None:
        key = new_key()
        results = await asyncio.gather(
            *(store.claim(key, 5, b"%d" % i) for i, store in enumerate([kv, other] * 10))
        )
        assert sorted(results) == [False] * 19 + [True]
        winner = results.index(True)
        assert await other.get(key) == b"%d" % winner
        await kv.delete(key)

    async def test_a_claim_expires(self, kv: KeyValue) -> None:
        key = new_key()
        assert await kv.claim(key, 0.2)
        assert not await kv.claim(key, 0.2)
        await asyncio.sleep(0.35)
        assert await kv.get(key) is None
        assert await kv.claim(key, 0.2)

    async def test_put_get_take_delete(self, kv: KeyValue, other: KeyValue) -> None:
        key = new_key()
        assert await kv.get(key) is None
        await kv.put(key, b"first")
        await kv.put(key, b"second", ttl=5)
        assert await other.get(key) == b"second"
        takes = await asyncio.gather(kv.take(key), other.take(key), kv.take(key))
        assert sorted(takes, key=lambda v: v or b"") == [None, None, b"second"]
        await kv.put(key, b"x")
        await kv.delete(key)
        assert await kv.get(key) is None

    async def test_put_with_ttl_expires(self, kv: KeyValue) -> None:
        key = new_key()
        await kv.put(key, b"v", ttl=0.2)
        await asyncio.sleep(0.35)
        assert await kv.get(key) is None

    async def test_a_ttl_must_be_positive(self, kv: KeyValue) -> None:
        with pytest.raises(ValueError):
            await kv.claim(new_key(), 0)
        with pytest.raises(ValueError):
            await kv.put(new_key(), b"v", ttl=-1)

    async def test_members_expire_one_by_one(self, kv: KeyValue, other: KeyValue) -> None:
        key = new_key()
        now = time.time()
        # "short" lives 3 s: each add drops the members expired by the wall clock, and on a
        # loaded machine three adds to a Cluster once took longer than the 0.3 s it had.
        await kv.add_member(key, "short", now + 3)
        await other.add_member(key, "long", now + 30)
        await kv.add_member(key, "forever", math.inf)
        assert await other.members(key, now) == ["short", "long", "forever"]
        assert await kv.members(key, now + 4) == ["long", "forever"]
        await kv.remove_member(key, "forever")
        await kv.remove_member(key, "never-there")
        assert await kv.members(key, now) == ["short", "long"]
        # Adding again moves the expiry.
        await kv.add_member(key, "short", now + 60)
        assert await kv.members(key, now + 40) == ["short"]
        await kv.remove_member(key, "short")
        await kv.remove_member(key, "long")
        assert await kv.members(key, now) == []

    async def test_a_set_expires_with_its_last_member(
        self, kv: KeyValue, make_store: MakeStore
    ) -> None:
        key = new_key()
        client = make_store().client
        await client.exists(f"svara:kv:{key}")  # connected (a cluster client finds its nodes)
        now = time.time()
        # (a second of room: on a loaded machine the two adds and the check took over 0.3 s)
        await kv.add_member(key, "a", now + 1.0)
        await kv.add_member(key, "b", now + 1.5)
        assert await client.exists(f"svara:kv:{key}") == 1
        await asyncio.sleep(max(0.0, now + 1.5 - time.time()))

        async def gone() -> bool:
            return await client.exists(f"svara:kv:{key}") == 0

        assert await eventually(gone, 2.0)  # the key itself expires with its last member
        # ...unless a member never expires.
        await kv.add_member(key, "c", now + 0.2)
        await kv.add_member(key, "d", math.inf)
        await asyncio.sleep(0.3)
        assert await kv.members(key, time.time()) == ["d"]
        assert await client.ttl(f"svara:kv:{key}") == -1
        await kv.delete(key)

    async def test_expired_members_are_dropped_when_another_is_added(
        self, kv: KeyValue, make_store: MakeStore
    ) -> None:
        key = new_key()
        now = time.time()
        await kv.add_member(key, "old", now - 5, now=now)
        await kv.add_member(key, "new", now + 5, now=now)
        client = make_store().client
        assert await client.zcard(f"svara:kv:{key}") == 1
        await kv.delete(key)

    async def test_members_change_many_at_once(self, kv: KeyValue, other: KeyValue) -> None:
        """`change_members` is the same as its adds, then its removes, one by one."""
        keys = [new_key() for _ in range(5)]
        now = time.time()
        await kv.add_member(keys[0], "old", now + 60)
        await kv.add_member(keys[1], "expired", now - 1, now=now - 2)
        adds = [(k, f"m{i}", now + 60) for i, k in enumerate(keys)]
        adds += [(keys[2], "forever", math.inf), (keys[3], "brief", now + 60)]
        removes = [(keys[0], "old"), (keys[3], "brief"), (keys[4], "never-there")]
        await kv.change_members(adds, removes, now=now)
        assert await other.members(keys[0], now) == ["m0"]
        assert await other.members(keys[1], now) == ["m1"]  # the expired one dropped
        assert await other.members(keys[2], now) == ["m2", "forever"]
        assert await other.members(keys[3], now) == ["m3"]  # added, then removed
        assert await other.members(keys[4], now) == ["m4"]
        await kv.change_members([], [], now=now)  # nothing to do is no error
        await kv.change_members([], [(k, f"m{i}") for i, k in enumerate(keys)]
                                + [(keys[2], "forever")])
        for key in keys:
            assert await other.members(key, now) == []

    async def test_a_storm_of_member_changes_stays_within_the_connection_pool(
        self, kv: KeyValue, other: KeyValue
    ) -> None:
        """A reconnect storm's presence batch: more keys at once than the store's pool has
        connections (a Cluster node's pool fails at once when it is out of them, so the
        changes wait for a place among the store's commands instead)."""
        now = time.time()
        keys = [new_key() for _ in range(400)]
        await kv.change_members([(k, "m", now + 60) for k in keys], [], now=now)
        members = await asyncio.gather(*(other.members(k, now) for k in keys))
        assert members == [["m"]] * len(keys)
        await kv.change_members([], [(k, "m") for k in keys], now=now)
        assert not any(await asyncio.gather(*(other.members(k, now) for k in keys)))

    async def test_unreachable_redis_is_store_unavailable(self) -> None:
        from redis.asyncio import Redis

        client = Redis(port=1, socket_connect_timeout=0.5)  # nothing listens on port 1
        kv = RedisKeyValue(client)
        try:
            with pytest.raises(StoreUnavailable):
                await kv.claim(new_key(), 1)
            with pytest.raises(StoreUnavailable):
                await kv.members(new_key(), time.time())
        finally:
            await client.aclose()
