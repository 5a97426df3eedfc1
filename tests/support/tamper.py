"""Tampering with a table's stored log behind the store's back, the way an attacker with
access to Redis would: every kind of edit the audit and the offline verifier must name."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec

from events.store.base import StoredEvent
from events.store.chain import at_text, link_of
from events.store.redis_store import RedisEventStore
from tests.support.streams import rewrite

Change = Callable[[list[StoredEvent]], list[StoredEvent]]


def data_of(e: StoredEvent) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(e.data)
    return out


def with_data(e: StoredEvent, data: dict[str, Any]) -> StoredEvent:
    return msgspec.structs.replace(e, data=json.dumps(data, separators=(",", ":")).encode())


def rehashed(events: list[StoredEvent], start: int) -> list[StoredEvent]:
    """Every hash from version `start` on recomputed: a rewrite that keeps the chain valid
    (what only a hash someone kept, or the content checks, can catch)."""
    out: list[StoredEvent] = []
    prev = "0" * 64
    for e in events:
        if e.version >= start:
            e = msgspec.structs.replace(e, hash=link_of(e.chain, prev, at_text(e.at), e.data))
        out.append(e)
        prev = e.hash
    return out


def edit(version: int, change: Callable[[dict[str, Any]], None], *, rehash: bool) -> Change:
    """Change the event at `version` (its JSON), recomputing the chain from there if asked."""

    def apply(events: list[StoredEvent]) -> list[StoredEvent]:
        out = []
        for e in events:
            if e.version == version:
                data = data_of(e)
                change(data)
                e = with_data(e, data)
            out.append(e)
        return rehashed(out, version) if rehash else out

    return apply


def rehash_only(version: int, change: Callable[[dict[str, Any]], None]) -> Change:
    """Change the event at `version` and recompute its own hash, not the later ones'."""

    def apply(events: list[StoredEvent]) -> list[StoredEvent]:
        out, prev = [], "0" * 64
        for e in events:
            if e.version == version:
                data = data_of(e)
                change(data)
                e = with_data(e, data)
                e = msgspec.structs.replace(e, hash=link_of(e.chain, prev, at_text(e.at), e.data))
            out.append(e)
            prev = e.hash
        return out

    return apply


def remove(version: int) -> Change:
    return lambda events: [e for e in events if e.version != version]


def swap(version: int) -> Change:
    """The contents (bytes, time, hash) of `version` and the next one trade places."""

    def apply(events: list[StoredEvent]) -> list[StoredEvent]:
        by = {e.version: e for e in events}
        a, b = by[version], by[version + 1]
        by[version] = msgspec.structs.replace(b, version=version)
        by[version + 1] = msgspec.structs.replace(a, version=version + 1)
        return [by[v] for v in sorted(by)]

    return apply


def move_time(version: int, seconds: float) -> Change:
    return lambda events: [
        msgspec.structs.replace(e, at=e.at + seconds) if e.version == version else e
        for e in events
    ]


async def tamper(store: RedisEventStore, stream: str, change: Change) -> None:
    await rewrite(store, stream, change)
