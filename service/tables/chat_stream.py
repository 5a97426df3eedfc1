"""A table's quick chat on Redis: a capped stream beside the table's events, never part of them.

Messages are not facts of the game: they are not in the hash chain, not replayed, and only the
last `KEEP` stay (XADD MAXLEN). The stream, its sequence counter and each sender's rate-limit
bucket share the table's hash tag (`svara:{table:<id>}:…`), so one script posts atomically on
Redis Cluster too, and they expire with the table's idle limit (a closed table's are deleted:
`ChatStream.drop`). Entry ids are `<seq>-0`, like the events', so the process's one XREAD reader
(`events.store.hub`) follows chat streams with the same gap-free `Follow` as table streams.
"""

from __future__ import annotations

from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from events.store.base import StoredEvent
from events.store.connection import Health
from events.store.entries import to_events
from events.store.keys import keys_for

KEEP = 200  # messages kept per table
TTL_SECONDS = 7 * 86400  # an idle table's chat goes long after the table would close
RATE_PER_SECOND = 0.5  # one message every 2 s per player and table ...
BURST = 3  # ... with bursts of 3

# Token bucket, then the message: both or neither, in one step (a refused message stores
# nothing). KEYS: stream, sequence, bucket. ARGV: now, rate, burst, data, keep, ttl.
# Answers {1, seq} or {0, retry_after as text} (Lua numbers reach Python as integers).
_POST = """
local now = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local bucket = redis.call('HMGET', KEYS[3], 't', 'at')
local tokens = tonumber(bucket[1]) or burst
local at = tonumber(bucket[2]) or now
if now > at then tokens = math.min(burst, tokens + (now - at) * rate) end
if tokens < 1 then return {0, tostring((1 - tokens) / rate)} end
redis.call('HSET', KEYS[3], 't', tostring(tokens - 1), 'at', tostring(math.max(now, at)))
redis.call('PEXPIRE', KEYS[3], math.ceil(burst / rate * 1000) + 1000)
local seq = redis.call('INCR', KEYS[2])
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[5], seq .. '-0', 'd', ARGV[4], 'at', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('EXPIRE', KEYS[2], ARGV[6])
return {1, seq}
"""


def chat_key(stream: str) -> str:
    """The chat stream of the table stream `stream` (same hash tag as its events)."""
    return keys_for(stream).events[: -len("events")] + "chat"


def _seq_key(stream: str) -> str:
    return chat_key(stream) + ":seq"


def _bucket_key(stream: str, user_id: int) -> str:
    return chat_key(stream) + f":rate:{user_id}"


class RateLimited(Exception):
    def __init__(self, retry_after: float) -> None:
        super().__init__(f"retry after {retry_after:.2f} s")
        self.retry_after = retry_after


class ChatStream:
    """Post to, read and drop tables' chat streams on the event store's Redis client."""

    def __init__(self, client: Redis | RedisCluster, health: Health | None = None) -> None:
        self._client: Any = client
        self._health = health if health is not None else Health()
        self._post = client.register_script(_POST)

    async def post(self, stream: str, user_id: int, data: bytes, now: float) -> int:
        """Append one message; its seq. Raises `RateLimited` (nothing stored)."""
        keys = [chat_key(stream), _seq_key(stream), _bucket_key(stream, user_id)]
        args: list[bytes | str | int] = [
            repr(float(now)), repr(RATE_PER_SECOND), BURST, data, KEEP, TTL_SECONDS
        ]
        with self._health.errors():
            ok, value = await self._post(keys=keys, args=args)
        if int(ok) != 1:
            raw = value.decode() if isinstance(value, bytes) else str(value)
            raise RateLimited(float(raw))
        return int(value)

    async def read(self, stream: str, after: int, count: int = KEEP) -> list[StoredEvent]:
        """Messages with seq > `after`, oldest first (at most `count`); `version` is the seq."""
        with self._health.errors():
            entries = await self._client.execute_command(
                "XRANGE", chat_key(stream), f"({after}-0", "+", "COUNT", count
            )
        return to_events(entries)

    async def seq(self, stream: str) -> int:
        """The newest seq posted (0: none yet)."""
        with self._health.errors():
            value = await self._client.get(_seq_key(stream))
        return int(value) if value else 0

    async def drop(self, stream: str) -> None:
        """The table closed: its chat goes with it."""
        with self._health.errors():
            await self._client.delete(chat_key(stream))
            await self._client.delete(_seq_key(stream))
