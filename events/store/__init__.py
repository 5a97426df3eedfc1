"""The event store: Redis Streams in production, fakeredis (same Lua) when embedded."""

from events.store.base import (
    AppendResult,
    ChainBroken,
    EventStore,
    Snapshot,
    StoredEvent,
    StoreFull,
    StoreUnavailable,
    SubscriberTooSlow,
)
from events.store.factory import open_store

__all__ = [
    "AppendResult",
    "ChainBroken",
    "EventStore",
    "Snapshot",
    "StoreFull",
    "StoreUnavailable",
    "StoredEvent",
    "SubscriberTooSlow",
    "open_store",
]
