"""A stream's snapshot: one cached fold, kept beside the stream (`<stream>:snapshot`, a hash
of version `v` and data `d`), the newest only.

A snapshot is only a cache: whatever is wrong with one (missing, malformed, from an older
code version) costs a longer replay, never a different state. So a malformed record reads as
none, and the caller decides whether the data decodes.
"""

from __future__ import annotations

import redis.exceptions as rexc

from events.store.base import Snapshot
from events.store.commands import FN_SNAPSHOT, Commands
from events.store.keys import keys_for


async def save_snapshot(redis: Commands, stream: str, version: int, data: bytes) -> None:
    """Keep `data` as the fold at `version` (the function refuses a version past the head and
    keeps a newer snapshot)."""
    keys = keys_for(stream)
    if version < 0:
        raise ValueError("snapshot version must be >= 0")
    try:
        await redis.fcall(FN_SNAPSHOT, [keys.events, keys.snapshot], [version, bytes(data)])
    except rexc.ResponseError as exc:
        raise ValueError(str(exc)) from exc


async def load_snapshot(redis: Commands, stream: str) -> Snapshot | None:
    """The cached snapshot, or None if there is none or its record is malformed."""
    keys = keys_for(stream)
    version, data = await redis.read(redis.client.hmget, keys.snapshot, ["v", "d"])
    if version is None or data is None:
        return None
    try:
        return Snapshot(version=int(version), data=data if isinstance(data, bytes) else b"")
    except ValueError:
        return None
