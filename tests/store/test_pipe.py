"""The pipelined connection for function calls (`events/store/pipe.py`): replies reach their
callers in order under concurrency, error replies stay with their command, and a connection
that breaks or goes silent fails what is in flight with StoreUnavailable and is replaced."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis.exceptions as rexc
from redis.asyncio import Redis

from events.store.base import StoreUnavailable
from events.store.factory import open_redis_store
from events.store.pipe import Pipe, pack

pytestmark = pytest.mark.redis


def test_pack_is_resp() -> None:
    assert pack(["SET", b"k\r\n", 12]) == b"*3\r\n$3\r\nSET\r\n$3\r\nk\r\n\r\n$2\r\n12\r\n"


@pytest.fixture
async def pipe(redis_url: str) -> AsyncIterator[Pipe]:
    async def connect() -> Redis:
        return Redis.from_url(redis_url, socket_timeout=2, single_connection_client=True)

    p = Pipe(connect, timeout=2)
    yield p
    await p.close()


async def test_concurrent_calls_get_their_own_replies(
    pipe: Pipe, redis_url: str, unique: str
) -> None:
    keys = [f"pipetest:{unique}:{i}" for i in range(300)]
    replies = await asyncio.gather(*(pipe.call(pack(["INCRBY", k, i])) for i, k in enumerate(keys)))
    assert replies == list(range(300))
    # an error reply belongs to its command only; the others around it are unaffected
    calls = [pipe.call(pack(["INCRBY", keys[1], 1])), pipe.call(pack(["NOSUCHCOMMAND"])),
             pipe.call(pack(["GET", keys[2]]))]
    got = await asyncio.gather(*calls, return_exceptions=True)
    assert got[0] == 2 and isinstance(got[1], rexc.ResponseError) and got[2] == b"2"
    client = Redis.from_url(redis_url)
    try:
        await client.delete(*keys)
    finally:
        await client.aclose()


async def test_a_killed_connection_fails_in_flight_calls_then_recovers(
    pipe: Pipe, redis_url: str, unique: str
) -> None:
    key = f"pipetest:{unique}"
    assert await pipe.call(pack(["SET", key, "1"])) == b"OK"
    admin = Redis.from_url(redis_url)
    try:
        client_id = int(await pipe.call(pack(["CLIENT", "ID"])))
        blocked = asyncio.ensure_future(pipe.call(pack(["BLPOP", f"{key}:never", 5])))
        await asyncio.sleep(0.1)
        await admin.execute_command("CLIENT", "KILL", "ID", client_id)
        with pytest.raises(StoreUnavailable):
            await asyncio.wait_for(blocked, 3)
        assert await pipe.call(pack(["GET", key])) == b"1"  # a new connection
        await admin.delete(key)
    finally:
        await admin.aclose()


async def test_a_reply_that_does_not_come_is_store_unavailable(
    redis_url: str, unique: str
) -> None:
    async def connect() -> Redis:
        return Redis.from_url(redis_url, socket_timeout=2, single_connection_client=True)

    pipe = Pipe(connect, timeout=0.3)
    try:
        stuck = asyncio.ensure_future(pipe.call(pack(["BLPOP", f"pipetest:{unique}", 5])))
        behind = asyncio.ensure_future(pipe.call(pack(["PING"])))  # queued behind it
        for call in (stuck, behind):
            with pytest.raises(StoreUnavailable):
                await asyncio.wait_for(call, 3)
        assert await pipe.call(pack(["PING"])) == b"PONG"  # and a new connection works
    finally:
        await pipe.close()


async def test_the_store_appends_through_the_pipe(redis_url: str, unique: str) -> None:
    store = open_redis_store(redis_url)
    try:
        assert store._pipe is not None  # a single server: function calls are pipelined
        stream = f"pipetest-{unique}"
        results = await asyncio.gather(
            *(store.append(stream, [b"x%d" % i], expected_version=0, action_id=f"a{i}")
              for i in range(20)))
        assert sorted(r.status for r in results) == ["appended"] + ["conflict"] * 19
        assert await store.verify(stream) == 1
    finally:
        await store.close()
