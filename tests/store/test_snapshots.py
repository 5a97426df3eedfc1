"""Snapshot + tail equals full replay at every cut point; a bad snapshot only costs time."""

from __future__ import annotations

import asyncio

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.store.base import StoredEvent
from events.store.factory import embedded_store, open_redis_store
from events.store.redis_store import RedisEventStore
from tests.support.fast_replay import load_state
from tests.support.streams import new_stream


class Toy(msgspec.Struct, frozen=True):
    """A fold whose result depends on every event and on their order."""

    count: int = 0
    total: int = 0
    digest: str = ""
    last: bytes = b""


def initial() -> Toy:
    return Toy()


def apply(state: Toy, event: StoredEvent) -> Toy:
    return Toy(
        state.count + 1,
        (state.total * 31 + sum(event.data) + event.version) % 1_000_003,
        event.hash[:8],
        event.data,
    )


def decode(data: bytes) -> Toy:
    return msgspec.msgpack.decode(data, type=Toy)


events_st = st.lists(st.binary(max_size=12), min_size=1, max_size=25)
batches_st = st.lists(st.integers(1, 4), min_size=1, max_size=25)


async def check_every_cut(store: RedisEventStore, datas: list[bytes], batches: list[int]) -> None:
    s = new_stream()
    version, i, b = 0, 0, 0
    while i < len(datas):  # append in batches of varying size
        size = batches[b % len(batches)]
        b += 1
        result = await store.append(s, datas[i : i + size], expected_version=version)
        version, i = result.version, i + size
    full = initial()
    for event in await store.read(s):
        full = apply(full, event)
    for cut in range(0, version + 1):
        at_cut = initial()
        for event in await store.read(s, 0, cut):
            at_cut = apply(at_cut, event)
        await store.save_snapshot(s, cut, msgspec.msgpack.encode(at_cut))
        state, loaded = await load_state(
            store, s, initial=initial, apply=apply, decode_snapshot=decode
        )
        assert (state, loaded) == (full, version)
    # A snapshot that does not decode is ignored: replay gives the same answer.
    await store.client.hset(f"svara:{{{s}}}:snapshot", mapping={"v": version, "d": b"\xc1garbage"})
    state, loaded = await load_state(store, s, initial=initial, apply=apply, decode_snapshot=decode)
    assert (state, loaded) == (full, version)
    # So is a malformed snapshot record.
    await store.client.hset(f"svara:{{{s}}}:snapshot", mapping={"v": "x"})
    assert await store.load_snapshot(s) is None


@settings(max_examples=60, deadline=None)
@given(events_st, batches_st)
def test_snapshot_plus_tail_is_full_replay_embedded(datas: list[bytes], batches: list[int]) -> None:
    async def run() -> None:
        store = embedded_store()
        try:
            await check_every_cut(store, datas, batches)
        finally:
            await store.close()

    asyncio.run(run())


@pytest.mark.redis
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(events_st, batches_st)
def test_snapshot_plus_tail_is_full_replay_redis(
    redis_url: str, datas: list[bytes], batches: list[int]
) -> None:
    async def run() -> None:
        store = open_redis_store(redis_url)
        try:
            await check_every_cut(store, datas, batches)
        finally:
            await store.close()

    asyncio.run(run())


async def test_load_cost_does_not_grow_with_history() -> None:
    """With a snapshot at the head, loading reads no events however long the stream is."""
    store = embedded_store()
    try:
        s = "table:long"
        for v in range(0, 3000, 100):
            await store.append(s, [b"x"] * 100, expected_version=v)
        state = initial()
        for event in await store.read(s):
            state = apply(state, event)
        await store.save_snapshot(s, 3000, msgspec.msgpack.encode(state))
        reads: list[tuple[int, int | None]] = []
        original = store.read

        async def counting_read(
            stream: str, after: int = 0, limit: int | None = None
        ) -> list[StoredEvent]:
            out = await original(stream, after, limit)
            reads.append((after, len(out)))
            return out

        store.read = counting_read  # type: ignore[method-assign]
        loaded, version = await load_state(
            store, s, initial=initial, apply=apply, decode_snapshot=decode
        )
        assert (loaded, version) == (state, 3000)
        assert reads == [(3000, 0)]
    finally:
        await store.close()
