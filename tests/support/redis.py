"""The shared test Redis: REDIS_TEST_URL (default redis://127.0.0.1:6379/0).

Under pytest-xdist each worker takes its own database, the URL's plus the worker's index
(gw0 the URL's own, gw1 the next, ...), so tests of parallel workers never meet in one keyspace
whatever namespaces they pick.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

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
