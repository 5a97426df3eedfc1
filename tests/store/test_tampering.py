"""Tamper evidence against the real Redis: every kind of edit is caught at its version."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from events.store.base import ChainBroken, StoredEvent
from events.store.factory import open_redis_store
from events.store.redis_store import RedisEventStore
from tests.support.streams import new_stream, rewrite

pytestmark = pytest.mark.redis

N = 12


@pytest.fixture
async def store(redis_url: str) -> AsyncIterator[RedisEventStore]:
    st = open_redis_store(redis_url)
    yield st
    await st.close()


async def tampered(store: RedisEventStore, change: object) -> int:
    s = new_stream()
    for v in range(N):
        await store.append(s, [f'{{"n":{v + 1}}}'.encode()], expected_version=v)
    assert await store.verify(s) == N
    await rewrite(store, s, change)  # type: ignore[arg-type]
    with pytest.raises(ChainBroken) as info:
        await store.verify(s)
    assert info.value.stream == s
    return info.value.version


def replace(events: list[StoredEvent], version: int, **changes: object) -> list[StoredEvent]:
    out = []
    for e in events:
        if e.version == version:
            fields = {f: getattr(e, f) for f in StoredEvent.__struct_fields__}
            fields.update(changes)
            e = StoredEvent(**fields)
        out.append(e)
    return out


@pytest.mark.parametrize("version", [1, 5, N])
async def test_a_changed_byte(store: RedisEventStore, version: int) -> None:
    def flip(events: list[StoredEvent]) -> list[StoredEvent]:
        data = bytearray(events[version - 1].data)
        data[2] ^= 0x01
        return replace(events, version, data=bytes(data))

    assert await tampered(store, flip) == version


@pytest.mark.parametrize("version", [1, 7, N])
async def test_a_removed_event(store: RedisEventStore, version: int) -> None:
    def drop(events: list[StoredEvent]) -> list[StoredEvent]:
        return [e for e in events if e.version != version]

    if version == N:
        # Rewriting the whole stream without its head, when no event carried an action_id,
        # leaves a valid shorter chain and nothing else that remembers the head: the limit of
        # what the store alone can show (a client that saw version N can). The survivors
        # still verify to N-1. The tests below cover the removals verify does catch.
        s = new_stream()
        for v in range(N):
            await store.append(s, [b"x%d" % v], expected_version=v)
        await rewrite(store, s, drop)
        assert await store.verify(s) == N - 1
        return
    assert await tampered(store, drop) == version


@pytest.mark.parametrize("version", [1, 6])
async def test_two_reordered_events(store: RedisEventStore, version: int) -> None:
    def swap(events: list[StoredEvent]) -> list[StoredEvent]:
        a, b = events[version - 1], events[version]
        events = replace(events, version, data=b.data, hash=b.hash)
        return replace(events, version + 1, data=a.data, hash=a.hash)

    assert await tampered(store, swap) == version


async def test_a_rewritten_hash(store: RedisEventStore) -> None:
    assert await tampered(store, lambda evs: replace(evs, 4, hash="f" * 64)) == 4
    assert await tampered(store, lambda evs: replace(evs, 3, hash="not hex")) == 3


async def test_an_appended_forgery_after_a_valid_head(store: RedisEventStore) -> None:
    def forge(events: list[StoredEvent]) -> list[StoredEvent]:
        last = events[-1]
        return [*events, StoredEvent(N + 1, b'{"n":999}', last.at, "0" * 64)]

    assert await tampered(store, forge) == N + 1


async def test_deleting_the_newest_event_is_caught_by_the_stream_counters(
    store: RedisEventStore,
) -> None:
    s = new_stream()
    for v in range(N):
        await store.append(s, [b"x%d" % v], expected_version=v)
    client: Any = store.client
    await client.xdel(f"svara:{{{s}}}:events", f"{N}-0")
    with pytest.raises(ChainBroken) as info:
        await store.verify(s)
    assert info.value.version == N
    assert "removed" in info.value.reason


async def test_dropping_the_head_by_rewriting_is_caught_by_the_action_index(
    store: RedisEventStore,
) -> None:
    s = new_stream()
    for v in range(N):
        await store.append(s, [b"x%d" % v], expected_version=v, action_id=f"a{v}")
    await rewrite(store, s, lambda events: events[:-2])
    with pytest.raises(ChainBroken) as info:
        await store.verify(s)
    assert info.value.version == N - 1
    assert f"recorded at version {N}" in info.value.reason
