"""Who is away at a table, pushed to everyone watching it, across replicas.

`Presence` (presence.py) knows, on every replica, whether a player has the table open; the
bot asks it before a turn ping, and the GET view shows it as `away`. For the sockets to hear
it change, each change of a player's presence (a socket opened or closed, the app minimised or
brought back) leaves a note `<user>` in a small capped stream beside the table (same hash tag,
entry ids `<n>-0` like the chat's, so the process's one XREAD reader follows it). A note says
only *who* changed, never how: a socket that hears one asks `Presence.watching` afresh, so
notes racing in from two replicas still end in the state the store holds last.

Notes from one process are written in batches (while one batch is in the store the next one
gathers, and a player noted twice in a batch is written once), so a reconnect storm costs a
handful of round trips per table, not one per socket. The reads a note (or a resume) sets
off are shared by this process's sockets of the table that ask the same thing at once: one
read per table and note, not one per socket.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from events.store.base import StoredEvent
from events.store.connection import Health
from events.store.entries import to_events
from events.store.keys import keys_for
from service.game.state import TableState
from service.tables.facade import JSON, PresenceBook, User

log = logging.getLogger(__name__)

KEEP = 64  # notes kept per table: a socket further behind than that just reads the state
TTL_SECONDS = 86400

# KEYS: stream, sequence. ARGV: user, now, keep, ttl. Answers the note's seq.
_NOTE = """
local seq = redis.call('INCR', KEYS[2])
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[3], seq .. '-0', 'd', ARGV[1], 'at', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return seq
"""

Load = Callable[[str], Awaitable[TableState]]
# May `user` watch the table (with `invite`)? Raises the 404 a stranger to a private one gets.
MayWatch = Callable[[User | None, str, TableState, str | None], Awaitable[None]]


def away_key(stream: str) -> str:
    """The presence notes of the table stream `stream` (same hash tag as its events)."""
    return keys_for(stream).events[: -len("events")] + "away"


class AwayFeed:
    def __init__(self, client: Redis | RedisCluster, health: Health | None,
                 presence: PresenceBook, load: Load, table_stream: Callable[[str], str],
                 follow_key: Callable[..., Any], clock: Callable[[], float],
                 may_watch: MayWatch) -> None:
        self._client: Any = client
        self._health = health if health is not None else Health()
        self._note = client.register_script(_NOTE)
        self._presence = presence
        self._load = load
        self._table = table_stream
        self._follow_key = follow_key
        self._clock = clock
        self._may_watch = may_watch
        self._pending: set[tuple[str, int]] = set()
        self._writer: asyncio.Task[None] | None = None
        # (table, seq, users) -> the read of their state, shared while it runs and a moment on
        self._reads: dict[tuple[str, int, frozenset[int] | None], asyncio.Task[list[JSON]]] = {}

    def changed(self, table_id: str, user_id: int) -> None:
        """A `Presence` listener: `user_id`'s presence at `table_id` changed (in the store)."""
        self._pending.add((table_id, user_id))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, set()
            now = repr(self._clock())
            results = await asyncio.gather(*(
                self._note(keys=[away_key(self._table(t)), away_key(self._table(t)) + ":seq"],
                           args=[str(user), now, KEEP, TTL_SECONDS])
                for t, user in batch), return_exceptions=True)
            failed = [r for r in results if isinstance(r, BaseException)]
            if failed:  # a courtesy: the GET view still says who is away
                log.warning("could not note %d presence changes: %s", len(failed), failed[0])

    async def _read(self, key: str, after: int, count: int) -> list[StoredEvent]:
        with self._health.errors():
            entries = await self._client.execute_command(
                "XRANGE", key, f"({after}-0", "+", "COUNT", count)
        return to_events(entries)

    async def _seq(self, key: str) -> int:
        with self._health.errors():
            value = await self._client.get(key + ":seq")
        return int(value) if value else 0

    async def _state_of(self, table_id: str, users: list[int]) -> list[JSON]:
        """`{"user_id", "seat", "away"}` for each of `users` seated at the table now."""
        state = await self._load(table_id)
        seated = [(u, state.seat_of(u)) for u in users]
        seated = [(u, seat) for u, seat in seated if seat is not None and u > 0]
        found = await asyncio.gather(*(self._presence.watching(table_id, u) for u, _ in seated),
                                     return_exceptions=True)
        return [{"user_id": u, "seat": seat, "away": watching is False}
                for (u, seat), watching in zip(seated, found, strict=True)
                if not isinstance(watching, BaseException)]

    async def _shared(self, table_id: str, seq: int,
                      users: frozenset[int] | None) -> list[JSON]:
        """`_state_of` the users (None: everyone seated) as of note `seq`, one read for the
        process's sockets that ask at once (a read after the note is all each needs)."""
        key = (table_id, seq, users)
        task = self._reads.get(key)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._read_state(table_id, users))
            self._reads[key] = task
            task.add_done_callback(lambda done: self._forget(key, done))
        return await asyncio.shield(task)

    async def _read_state(self, table_id: str, users: frozenset[int] | None) -> list[JSON]:
        if users is None:
            state = await self._load(table_id)
            return await self._state_of(table_id, [s.user_id for s in state.seats if s])
        return await self._state_of(table_id, sorted(users))

    def _forget(self, key: tuple[str, int, frozenset[int] | None],
                done: asyncio.Task[list[JSON]]) -> None:
        if not done.cancelled():
            done.exception()  # each waiter raises it; none left is no "never retrieved"
        asyncio.get_running_loop().call_later(0.5, self._reads.pop, key, None)

    async def follow(self, user: User | None, table_id: str,
                     invite: str | None = None) -> AsyncIterator[list[JSON]]:
        """Every seated player's `away` now, then each change, as batches, to whoever may
        watch the table (404 for anyone else); runs until the consumer stops."""
        await self._may_watch(user, table_id, await self._load(table_id), invite)
        key = away_key(self._table(table_id))
        after = await self._seq(key)  # notes from here on, read after the snapshot below
        yield await self._shared(table_id, after, None)
        follow = self._follow_key(key, self._read, after)
        try:
            async for batch in follow:
                users = frozenset(int(e.data) for e in batch)
                found = await self._shared(table_id, batch[-1].version, users)
                if found:
                    yield found
        finally:
            follow.close()
