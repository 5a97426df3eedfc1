"""The shared test Redis: REDIS_TEST_URL (default redis://127.0.0.1:6379/0).

Under pytest-xdist each worker takes its own database, the URL's plus the worker's index
(gw0 the URL's own, gw1 the next, ...), so tests of parallel workers never meet in one keyspace
whatever namespaces they pick.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit

import redis.asyncio as aioredis
import redis.exceptions

from tests.support.ports import worker_index

DATABASES = 16  # redis-server's default `databases`


def worker_url(url: str) -> str:
    """`url` moved to this xdist worker's database."""
    index, _ = worker_index()
    if index == 0:
        return url
    parts = urlsplit(url)
    db = int(parts.path.lstrip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{(db + index) % DATABASES}"))


REDIS_TEST_URL = worker_url(os.environ.get("REDIS_TEST_URL", "redis://127.0.0.1:6379/0"))

# In every key name this test process makes without a test's `unique` id (its fresh streams,
# indexes and servers' namespaces): the run's end deletes the keys that carry it
# (tests/conftest.py), so the shared server keeps nothing of the run.
RUN_MARK = f"run{os.getpid():x}x"

# Every test id `fresh_id` handed out in this process: the run's end sweeps the keys that still
# hold one (tests/conftest.py).
HANDED_OUT: set[str] = set()


def fresh_id() -> str:
    """A new 12-hex-digit id for a test's keys and tables, remembered for the run-end sweep."""
    made = uuid.uuid4().hex[:12]
    HANDED_OUT.add(made)
    return made


async def delete_matching(url: str, pattern: str) -> int:
    """Delete every key of `url`'s database matching `pattern` (SCAN, then DEL in batches);
    how many. A Redis that is not there has nothing of the test's: 0."""
    return await _delete_scanned(url, pattern, lambda _key: True)


async def delete_containing(url: str, ids: set[str]) -> int:
    """Delete every key of `url`'s database whose name holds one of `ids` (all of one length):
    the keys a service wrote for a test after that test's own cleanup had run. How many."""
    if not ids:
        return 0
    width = len(next(iter(ids)))
    wanted = {i.encode() for i in ids}
    return await _delete_scanned(
        url, "*", lambda key: any(key[at : at + width] in wanted
                                  for at in range(len(key) - width + 1))
    )


async def _delete_scanned(url: str, pattern: str, chosen: Callable[[bytes], bool]) -> int:
    client = aioredis.Redis.from_url(url)
    try:
        keys = [key async for key in client.scan_iter(match=pattern, count=1000) if chosen(key)]
        for start in range(0, len(keys), 500):
            await client.delete(*keys[start : start + 500])
        return len(keys)
    except (OSError, redis.exceptions.ConnectionError):
        return 0
    finally:
        await client.aclose()
