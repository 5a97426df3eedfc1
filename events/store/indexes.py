"""The indexes kept beside the streams (`IndexOp`, key layout in `events.store.keys`) and the
marks, a plain sorted set per name that no append touches.

An index entry changes in the same atomic step as an append to its stream (`args` adds the
changes to the append's function call) or, checked against the stream's version, alone
(`set`). Reading an index asks every shard: one command per shard, in one pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from events.store.base import IndexOp, StoreUnavailable
from events.store.commands import FN_DROP, FN_INDEX, Commands
from events.store.keys import (
    SINGLE_SHARD_TAG,
    check_index,
    cluster_shards,
    index_keys,
    keys_for,
    marks_key,
    stream_slot,
)


def score_text(value: float | None) -> str:
    """A sorted-set score as Redis reads it ('' removes, see functions.lua)."""
    if value is None:
        return ""
    number = float(value)
    if number != number:
        raise ValueError("an index score cannot be NaN")
    return repr(number)


class Indexes:
    """A store's index entries and marks, over its `Commands`."""

    def __init__(self, commands: Commands, *, sharded: bool) -> None:
        self._redis = commands
        # Index shards: slot -> shard tag on a Cluster; one shard (slot None) elsewhere.
        self._cluster = commands.cluster
        self._shards: dict[int | None, str] = {None: SINGLE_SHARD_TAG}
        if sharded:
            self._shards = {slot: tag for slot, tag in cluster_shards().items()}

    def indexable(self, stream: str) -> bool:
        return not self._cluster or stream_slot(stream) in self._shards

    def _shard_of(self, stream: str) -> str:
        if not self._cluster:
            return SINGLE_SHARD_TAG
        tag = self._shards.get(stream_slot(stream))
        if tag is None:
            raise ValueError(
                f"{stream!r} cannot carry index entries on this Cluster: its slot holds no "
                "index shard (name it so that `indexable` is true)"
            )
        return tag

    def args(
        self, stream: str, keys: list[str], changes: Sequence[IndexOp]
    ) -> tuple[list[str], list[Any]]:
        """The function's KEYS and trailing ARGV for `changes` to `stream`'s index entries."""
        tag = SINGLE_SHARD_TAG if not self._cluster else self._shard_of(stream)
        keys = list(keys)
        args: list[Any] = []
        for change in changes:
            keys += index_keys(tag, change.index)
            score = change.score
            args += (change.member, "" if score is None else repr(float(score)), change.value)
        return keys, args

    async def drop(self, stream: str, expected_version: int, indexes: Sequence[str]) -> bool:
        """Delete the stream's keys and the whole of each of `indexes` (in the stream's
        shard: the only one its entries can be in) iff the stream is at `expected_version`."""
        reply = await self._redis.fcall(FN_DROP, self.keys_of(stream, indexes), [expected_version])
        return int(reply) == 1

    def keys_of(self, stream: str, indexes: Sequence[str]) -> list[str]:
        """Every key of `stream` and of its entries of `indexes` (what `drop` deletes)."""
        keys = keys_for(stream)
        out = [keys.events, keys.actions, keys.snapshot]
        if self.indexable(stream):
            tag = self._shard_of(stream)
            for index in indexes:
                out += index_keys(tag, index)
        return out

    async def set(self, stream: str, expected_version: int, changes: Sequence[IndexOp]) -> bool:
        """Apply non-empty `changes` if `stream` is still at `expected_version`."""
        keys, args = self.args(stream, [keys_for(stream).events], changes)
        reply = await self._redis.fcall(FN_INDEX, keys, [expected_version, *args])
        return int(reply) == 1

    async def due(self, index: str, upto: float, limit: int) -> list[tuple[str, float]]:
        check_index(index)
        bound = score_text(upto)

        def query(pipe: Any, tag: str) -> None:
            pipe.zrangebyscore(index_keys(tag, index)[0], "-inf", bound, 0, limit, True)

        replies = await self._per_shard(query)
        found = [(m.decode(), float(s)) for reply in replies for m, s in reply]
        found.sort(key=lambda item: (item[1], item[0]))
        return found[:limit]

    async def page(
        self, index: str, after: str, limit: int
    ) -> tuple[list[tuple[str, bytes | None]], str | None]:
        check_index(index)
        if limit < 1:
            raise ValueError("limit must be at least 1")
        start = b"(" + after.encode() if after else b"-"

        def query(pipe: Any, tag: str) -> None:
            pipe.zrangebylex(index_keys(tag, index)[0], start, b"+", 0, limit + 1)

        tags = list(self._shards.values())
        replies = await self._per_shard(query)
        found = sorted((m, tag) for tag, reply in zip(tags, replies, strict=True) for m in reply)
        page, more = found[:limit], len(found) > limit
        by_shard: dict[str, list[bytes]] = {}
        for member, tag in page:
            by_shard.setdefault(tag, []).append(member)
        values: dict[bytes, bytes | None] = {}
        if by_shard:
            client, health = self._redis.client, self._redis.health
            async with self._redis.slot():
                pipe = client.pipeline(transaction=False)
                for tag, members in by_shard.items():
                    pipe.hmget(index_keys(tag, index)[1], members)
                with health.errors():
                    got = await pipe.execute()
            for members, vals in zip(by_shard.values(), got, strict=True):
                values.update(zip(members, vals, strict=True))
        out = [(m.decode(), values.get(m)) for m, _ in page]
        return out, (out[-1][0] if more and out else None)

    async def _per_shard(self, query: Callable[[Any, str], None]) -> list[Any]:
        """One command per index shard, in one pipeline (on a Cluster: one round trip per
        node); replies in the order of the shards."""
        client, health = self._redis.client, self._redis.health
        async with self._redis.slot():
            pipe = client.pipeline(transaction=False)
            for tag in self._shards.values():
                query(pipe, tag)
            try:
                with health.errors():
                    return list(await pipe.execute())
            except StoreUnavailable:
                pass
            pipe = client.pipeline(transaction=False)  # reads: retried once
            for tag in self._shards.values():
                query(pipe, tag)
            with health.errors():
                return list(await pipe.execute())

    # -- marks -------------------------------------------------------------------------------

    async def mark(self, index: str, member: str, score: float) -> None:
        async with self._redis.slot():
            with self._redis.health.errors():
                await self._redis.client.zadd(marks_key(index), {member: score_text(score)})

    async def unmark(self, index: str, member: str) -> None:
        async with self._redis.slot():
            with self._redis.health.errors():
                await self._redis.client.zrem(marks_key(index), member)

    async def marked(self, index: str, upto: float, limit: int) -> list[tuple[str, float]]:
        client = self._redis.client
        replies: Any = await self._redis.read(
            client.zrangebyscore, marks_key(index), "-inf", score_text(upto), 0, limit, True
        )
        return [(m.decode(), float(s)) for m, s in replies]
