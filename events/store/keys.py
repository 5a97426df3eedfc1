"""Redis key names for a stream and for the indexes kept beside the streams.

All keys of a stream share the hash tag `{<stream>}`, so one table lives in one Cluster slot
and a script may touch all of them. An index (`IndexOp`) lives in *shards*: on one server (or
embedded) a single shard; on a Cluster one shard per index slot, so that the function that
appends to a stream can update the index entry of that stream in the same atomic step (a
function may only touch keys of one slot). Shard keys use tags starting with `#`, which no
stream name may contain, so they can never collide with a stream's keys.
"""

from __future__ import annotations

import re
from functools import lru_cache

from msgspec import Struct
from redis.crc import key_slot

# Callers name streams like `table:ab12`, `wallet:42` or `tables`; braces would break the tag.
_STREAM_NAME = re.compile(r"^[A-Za-z0-9_.:\-]{1,200}$")

# The Cluster's index shards: these tags' slots are the only slots an indexed stream may live
# in (`indexable`). 64 slots spread tables over up to 64 primaries, and reading an index costs
# one command per shard (a few per node), however many tables there are.
CLUSTER_SHARD_TAGS: tuple[str, ...] = tuple(f"#ix{k}" for k in range(64))
SINGLE_SHARD_TAG = "#ix"


class StreamKeys(Struct, frozen=True):
    events: str
    actions: str
    snapshot: str


def check_stream(stream: str) -> str:
    """Reject names that would escape the hash tag or collide with other keys."""
    if not isinstance(stream, str) or not _STREAM_NAME.match(stream):
        raise ValueError(f"invalid stream name {stream!r}: use 1-200 of [A-Za-z0-9_.:-]")
    return stream


def check_index(name: str) -> str:
    """Index names follow the stream names' rules (they carry the caller's namespace)."""
    if not isinstance(name, str) or not _STREAM_NAME.match(name):
        raise ValueError(f"invalid index name {name!r}: use 1-200 of [A-Za-z0-9_.:-]")
    return name


@lru_cache(maxsize=65536)
def keys_for(stream: str) -> StreamKeys:
    tag = "svara:{" + check_stream(stream) + "}:"
    return StreamKeys(events=tag + "events", actions=tag + "actions", snapshot=tag + "snapshot")


def stream_of(events_key: str) -> str:
    """Inverse of `keys_for(...).events`."""
    return events_key[len("svara:{") : -len("}:events")]


@lru_cache(maxsize=4096)
def index_keys(shard_tag: str, index: str) -> tuple[str, str]:
    """(sorted set member -> score, hash member -> value) of one shard of `index`."""
    base = "svara:{" + shard_tag + "}:ix:" + check_index(index)
    return base + ":z", base + ":v"


def marks_key(index: str) -> str:
    """The one sorted set of a marks index (`RedisEventStore.mark`)."""
    return "svara:{#mk:" + check_index(index) + "}:z"


@lru_cache(maxsize=1)
def cluster_shards() -> dict[int, str]:
    """Slot -> the shard tag that lives in it (a tag per slot: two tags in one slot would be
    one shard read twice)."""
    shards: dict[int, str] = {}
    for tag in CLUSTER_SHARD_TAGS:
        shards.setdefault(key_slot(("{" + tag + "}").encode()), tag)
    return shards


def stream_slot(stream: str) -> int:
    return int(key_slot(keys_for(stream).events.encode()))
