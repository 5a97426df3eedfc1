"""Redis key names for a stream. All keys of a stream share the hash tag `{<stream>}`, so one
table lives in one Cluster slot and a script may touch all of them."""

from __future__ import annotations

import re
from functools import lru_cache

from msgspec import Struct

# Callers name streams like `table:ab12`, `wallet:42` or `tables`; braces would break the tag.
_STREAM_NAME = re.compile(r"^[A-Za-z0-9_.:\-]{1,200}$")


class StreamKeys(Struct, frozen=True):
    events: str
    actions: str
    snapshot: str


def check_stream(stream: str) -> str:
    """Reject names that would escape the hash tag or collide with other keys."""
    if not isinstance(stream, str) or not _STREAM_NAME.match(stream):
        raise ValueError(f"invalid stream name {stream!r}: use 1-200 of [A-Za-z0-9_.:-]")
    return stream


@lru_cache(maxsize=65536)
def keys_for(stream: str) -> StreamKeys:
    tag = "svara:{" + check_stream(stream) + "}:"
    return StreamKeys(events=tag + "events", actions=tag + "actions", snapshot=tag + "snapshot")


def stream_of(events_key: str) -> str:
    """Inverse of `keys_for(...).events`."""
    return events_key[len("svara:{") : -len("}:events")]
