"""Races against the real Redis: many appenders, lost replies, subscribers joining mid-stream."""

from __future__ import annotations

import asyncio
import random
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest

from events.store.base import StoredEvent, StoreUnavailable
from events.store.factory import open_redis_store
from events.store.redis_store import RedisEventStore
from tests.store.contract import MakeStore
from tests.support.redis_servers import free_port
from tests.support.streams import new_stream

pytestmark = pytest.mark.redis


@pytest.fixture
async def make_store(redis_url: str) -> AsyncIterator[MakeStore]:
    made: list[RedisEventStore] = []

    def make(url: str | None = None, **kw: Any) -> RedisEventStore:
        store = open_redis_store(url or redis_url, **kw)
        made.append(store)
        return store

    yield make
    for store in made:
        await store.close()


async def test_fifty_appenders_at_one_version_one_wins(make_store: MakeStore) -> None:
    stores = [make_store() for _ in range(50)]
    s = new_stream()
    for round_ in range(3):  # the race at version 0, then again at versions 1 and 2
        results = await asyncio.gather(
            *(
                st.append(s, [f"{round_}:{i}".encode()], expected_version=round_)
                for i, st in enumerate(stores)
            )
        )
        winners = [r for r in results if r.status == "appended"]
        assert len(winners) == 1
        assert winners[0].version == round_ + 1
        assert all(
            r.status == "conflict" and r.version == round_ + 1 for r in results if r not in winners
        )
    assert await stores[0].version(s) == 3
    assert await stores[0].verify(s) == 3


_RACER = """
import asyncio, sys
from events.store.factory import open_redis_store
async def main(url, stream, who):
    store = open_redis_store(url)
    statuses = []
    for i in range(20):
        r = await store.append(stream, [f"{who}".encode()], expected_version=0, action_id="one")
        statuses.append(r.status)
    await store.close()
    print(",".join(statuses))
asyncio.run(main(*sys.argv[1:]))
"""


async def test_processes_racing_one_action_write_once(
    redis_url: str, make_store: MakeStore
) -> None:
    s = new_stream()
    procs = [
        await asyncio.create_subprocess_exec(
            sys.executable, "-c", _RACER, redis_url, s, str(i), stdout=asyncio.subprocess.PIPE
        )
        for i in range(3)
    ]
    outs = [(await p.communicate())[0].decode().strip().split(",") for p in procs]
    assert all(p.returncode == 0 for p in procs)
    statuses = [x for out in outs for x in out]
    assert statuses.count("appended") == 1
    assert statuses.count("duplicate") == 59
    assert len(await make_store().read(s)) == 1


class DroppingProxy:
    """A TCP proxy to Redis that can lose the next reply (the command still ran) or the next
    request (it never arrives): what a flaky mobile network or a dying replica looks like."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.drop_next_reply = False
        self.drop_next_request = False
        self.server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> None:
        self.port = free_port()
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()

    async def _handle(self, cr: asyncio.StreamReader, cw: asyncio.StreamWriter) -> None:
        sr, sw = await asyncio.open_connection(*self.target)

        async def pump(
            src: asyncio.StreamReader, dst: asyncio.StreamWriter, requests: bool
        ) -> None:
            try:
                while data := await src.read(65536):
                    if requests and self.drop_next_request:
                        self.drop_next_request = False
                        break
                    if not requests and self.drop_next_reply:
                        self.drop_next_reply = False
                        break
                    dst.write(data)
                    await dst.drain()
            except OSError:
                pass
            finally:
                for w in (cw, sw):
                    w.transport.abort()

        await asyncio.gather(pump(cr, sw, True), pump(sr, cw, False))


@pytest.fixture
async def proxy() -> AsyncIterator[DroppingProxy]:
    p = DroppingProxy("127.0.0.1", 6379)
    await p.start()
    yield p
    await p.stop()


async def test_lost_reply_then_retry_keeps_one_copy(
    redis_url: str, proxy: DroppingProxy, make_store: MakeStore
) -> None:
    db = redis_url.rsplit("/", 1)[-1]
    store = make_store(f"redis://127.0.0.1:{proxy.port}/{db}")
    s = new_stream()
    await store.append(s, [b"seat"], expected_version=0)  # warm: connection + functions
    proxy.drop_next_reply = True
    with pytest.raises(StoreUnavailable):
        await store.append(s, [b"raise"], expected_version=1, action_id="tap-1")
    retry = await store.append(s, [b"raise"], expected_version=1, action_id="tap-1")
    assert (retry.status, retry.version) == ("duplicate", 2)
    assert [e.data for e in await make_store().read(s)] == [b"seat", b"raise"]


async def test_lost_request_then_retry_writes_once(
    redis_url: str, proxy: DroppingProxy, make_store: MakeStore
) -> None:
    db = redis_url.rsplit("/", 1)[-1]
    store = make_store(f"redis://127.0.0.1:{proxy.port}/{db}")
    s = new_stream()
    await store.append(s, [b"seat"], expected_version=0)
    proxy.drop_next_request = True
    with pytest.raises(StoreUnavailable):
        await store.append(s, [b"fold"], expected_version=1, action_id="tap-2")
    retry = await store.append(s, [b"fold"], expected_version=1, action_id="tap-2")
    assert (retry.status, retry.version) == ("appended", 2)
    assert [e.data for e in await make_store().read(s)] == [b"seat", b"fold"]


async def test_handover_under_concurrent_appends(make_store: MakeStore) -> None:
    """Subscribers join at random moments and versions while 4 writers race; each one sees
    every version after its start exactly once, in order."""
    total = 300
    s = new_stream()
    hub_store = make_store()  # one process's reader, many subscribers
    other_hub = make_store()  # a second "replica" with its own reader
    writers = [make_store() for _ in range(4)]
    rng = random.Random(7)

    async def write(st: RedisEventStore) -> None:
        version = 0
        while version < total:
            result = await st.append(s, [f"e{version + 1}".encode()], expected_version=version)
            version = result.version
            await asyncio.sleep(rng.random() * 0.002)

    async def watch(st: RedisEventStore, delay: float) -> tuple[int, list[StoredEvent]]:
        await asyncio.sleep(delay)
        after = rng.randint(0, max(0, await st.version(s)))
        seen: list[StoredEvent] = []
        async for event in st.subscribe(s, after):
            seen.append(event)
            if event.version == total:
                break
        return after, seen

    watchers = [
        asyncio.create_task(watch(hub_store if i % 3 else other_hub, rng.random() * 0.4))
        for i in range(12)
    ]
    await asyncio.gather(*(write(w) for w in writers))
    for after, seen in await asyncio.wait_for(asyncio.gather(*watchers), 20):
        assert [e.version for e in seen] == list(range(after + 1, total + 1))
        assert all(e.data == f"e{e.version}".encode() for e in seen)
