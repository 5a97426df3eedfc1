"""What the parts of the store contract (contract.py) share: the `make_store` factory's type,
fresh stream and index names, and the `store` fixture."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest

from events.store.redis_store import RedisEventStore
from tests.support.redis import RUN_MARK
from tests.support.streams import new_stream

MakeStore = Callable[..., RedisEventStore]


def indexed_stream(store: RedisEventStore) -> str:
    """A fresh stream name that may carry index entries on this store (on a Cluster, only
    streams in an index shard's slot may; see `events.store.keys`)."""
    while True:
        stream = new_stream()
        if store.indexable(stream):
            return stream


def new_index() -> str:
    return f"ix{RUN_MARK}{uuid.uuid4().hex[:12]}"


class OnAStore:
    """A fresh store from the test module's `make_store` (a contract part's one fixture)."""

    @pytest.fixture
    async def store(self, make_store: MakeStore) -> RedisEventStore:
        return make_store()
