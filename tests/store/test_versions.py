"""`versions`: many streams' current versions in one pipelined round trip (the driver's rescan)."""

from __future__ import annotations

import pytest

from events.store.factory import open_redis_store


@pytest.mark.redis
@pytest.mark.parametrize("embedded", [False, True])
async def test_versions_of_many_streams(redis_url: str, unique: str, embedded: bool) -> None:
    store = open_redis_store(None if embedded else redis_url)
    try:
        streams = [f"v{unique}:s{i}" for i in range(4)]
        for i, stream in enumerate(streams[:3]):
            for n in range(i + 1):
                await store.append(stream, [b"x"], expected_version=n)
        assert await store.versions(streams) == [1, 2, 3, 0]
        assert await store.versions([]) == []
        assert await store.versions(streams) == [await store.version(s) for s in streams]
    finally:
        await store.close()
