"""The benchmark's replay fast path (`tests.support.fast_replay.read_pages`) yields what `read`
returns, on the embedded store and on the real Redis at REDIS_TEST_URL (uuid stream names)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import fakeredis
import pytest

from events.store import redis_store
from events.store.factory import embedded_store, open_redis_store
from events.store.redis_store import RedisEventStore
from tests.support import fast_replay as replay
from tests.support.fast_replay import read_pages
from tests.support.redis import REDIS_TEST_URL
from tests.support.streams import new_stream


@pytest.fixture(params=["embedded", pytest.param("redis", marks=pytest.mark.redis)])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[RedisEventStore]:
    if request.param == "embedded":
        opened = embedded_store(fakeredis.FakeServer(version=(7, 0)))
    else:
        opened = open_redis_store(REDIS_TEST_URL)  # down: the test fails, as with `redis_url`
    yield opened
    await opened.close()


async def test_read_pages_yields_what_read_returns(
    store: RedisEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replay, "FIRST_PAGE", 3)
    monkeypatch.setattr(redis_store, "PAGE", 7)
    s = new_stream()
    await store.append(s, [b"%d" % v for v in range(1, 31)], expected_version=0)
    for after in (0, 1, 3, 9, 10, 29, 30, 31, 99):
        pages = [page async for page in read_pages(store, s, after)]
        events = await store.read(s, after)
        assert [d for _, page in pages for d in page] == [e.data for e in events]
        if events:
            assert pages[-1][0] == events[-1].version
        # every page ends where the next begins: each yields its own last version
        sizes = [len(page) for _, page in pages]
        assert all(n > 0 for n in sizes)
        assert [last for last, _ in pages] == [
            after + sum(sizes[: i + 1]) for i in range(len(sizes))
        ]
        assert sizes[:1] <= [3] and all(n <= 7 for n in sizes)  # FIRST_PAGE, then PAGE
    assert [page async for page in read_pages(store, new_stream())] == []
    with pytest.raises(ValueError):
        await anext(read_pages(store, s, -1))


async def test_read_pages_stopped_early_leaves_the_store_working(
    store: RedisEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replay, "FIRST_PAGE", 2)
    monkeypatch.setattr(redis_store, "PAGE", 2)
    s = new_stream()
    await store.append(s, [b"a", b"b", b"c", b"d", b"e"], expected_version=0)
    pages = read_pages(store, s)
    assert await anext(pages) == (2, [b"a", b"b"])
    await pages.aclose()  # the prefetched page is dropped, not left on a connection
    assert [e.data for e in await store.read(s, 3)] == [b"d", b"e"]
    assert (await store.append(s, [b"f"], expected_version=5)).status == "appended"
