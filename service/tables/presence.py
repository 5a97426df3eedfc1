"""Who has a table open right now: the API's WebSockets, counted across every replica.

A socket is a member of the set `presence:<table>:<user>` in the key-value store (not the
event log: presence is no fact of the game). Each member expires `ttl` seconds after its last
refresh, and this process refreshes its own open sockets every `ttl / 3` seconds, so a replica
that dies leaves nothing behind for longer than `ttl`; a socket that closes removes its member
at once. The bot asks `watching(table, user)` before it calls a player to their turn.

Opens and closes that arrive together go to the store together (`KeyValue.change_members`,
one pipeline): while one batch is being written the next one gathers, so a reconnect storm
of thousands of sockets costs a handful of round trips, and a lone socket one.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import time
from collections.abc import Callable

from events.store.kv import KeyValue

log = logging.getLogger(__name__)



def presence_key(namespace: str, table_id: str, user_id: int) -> str:
    """The key-value store's key of `user_id`'s sockets at `table_id`."""
    return f"{namespace}presence:{table_id}:{user_id}"

class Presence:
    def __init__(
        self,
        kv: KeyValue,
        *,
        namespace: str = "",
        ttl: float = 60.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.kv = kv
        self.namespace = namespace
        self.ttl = ttl
        self.clock = clock
        self._process = f"{os.getpid()}-{os.urandom(4).hex()}"
        self._numbers = itertools.count(1)
        self._open: dict[str, tuple[str, int]] = {}  # member -> (table, user)
        self._adds: list[tuple[str, str, float]] = []  # the next batch
        self._removes: list[tuple[str, str]] = []
        self._next: asyncio.Future[None] | None = None  # done when the next batch is written
        self._writer: asyncio.Task[None] | None = None
        self._away: set[str] = set()  # open sockets whose app is minimised
        # Told (table, user) when one of this process's sockets closes or goes away: the
        # bot's pings waiting on a player who had the table open look again at once.
        self.listeners: list[Callable[[str, int], None]] = []
        # Told (table, user) after any change of this process's sockets is in the store
        # (opened, closed, away, back): the sockets watching the table hear who is away.
        self.changes: list[Callable[[str, int], None]] = []

    def _key(self, table_id: str, user_id: int) -> str:
        return presence_key(self.namespace, table_id, user_id)

    async def opened(self, table_id: str, user_id: int) -> str:
        """A socket of `user_id` to `table_id` is open; the token to close it with."""
        member = f"{self._process}:{next(self._numbers)}"
        self._open[member] = (table_id, user_id)
        key = self._key(table_id, user_id)
        self._adds.append((key, member, self.clock() + self.ttl))
        try:
            await asyncio.shield(self._batch())
        except BaseException:  # failed or cancelled: no socket holds the token; take it back
            self._open.pop(member, None)
            self._removes.append((key, member))
            self._batch()
            raise
        self._tell_changed(table_id, user_id)
        return member

    async def closed(self, token: str) -> None:
        where = self._open.pop(token, None)
        away = token in self._away
        self._away.discard(token)
        if where is not None:
            if not away:
                self._removes.append((self._key(*where), token))
                await asyncio.shield(self._batch())
            self._tell(*where)
            self._tell_changed(*where)

    async def away(self, token: str, away: bool) -> None:
        """The socket's app was minimised (True) or brought back (False): a minimised app
        does not count as having the table open (the bot calls its player at once)."""
        where = self._open.get(token)
        if where is None or (token in self._away) == away:
            return
        key = self._key(*where)
        if away:
            self._away.add(token)
            self._removes.append((key, token))
        else:
            self._away.discard(token)
            self._adds.append((key, token, self.clock() + self.ttl))
        await asyncio.shield(self._batch())
        if away:
            self._tell(*where)
        self._tell_changed(*where)

    def _tell(self, table_id: str, user_id: int, listeners: str = "listeners") -> None:
        for listener in getattr(self, listeners):
            try:
                listener(table_id, user_id)
            except Exception:
                log.exception("a presence listener failed")

    def _tell_changed(self, table_id: str, user_id: int) -> None:
        self._tell(table_id, user_id, "changes")

    def _batch(self) -> asyncio.Future[None]:
        """The batch that holds what was just queued: done once it is in the store (with its
        error if that failed). Waiters shield it: one that is cancelled leaves it alone."""
        if self._next is None:
            self._next = asyncio.get_running_loop().create_future()
            self._next.add_done_callback(_retrieved)
            if self._writer is None or self._writer.done():
                self._writer = asyncio.create_task(self._write_batches())
        return self._next

    async def _write_batches(self) -> None:
        while self._next is not None:
            done, self._next = self._next, None
            adds, self._adds = self._adds, []
            removes, self._removes = self._removes, []
            try:
                await self.kv.change_members(adds, removes, now=self.clock())
            except Exception as exc:
                done.set_exception(exc)
            else:
                done.set_result(None)

    async def watching(self, table_id: str, user_id: int) -> bool:
        """Has `user_id` a socket open to `table_id` on any replica?"""
        return bool(await self.kv.members(self._key(table_id, user_id), self.clock()))

    async def refresh(self, batch: int = 1000) -> None:
        """Move the expiry of every socket this process holds open (`batch` at a time)."""
        now = self.clock()
        held = [item for item in self._open.items() if item[0] not in self._away]
        for start in range(0, len(held), batch):
            await self.kv.change_members([
                (self._key(table_id, user_id), member, now + self.ttl)
                for member, (table_id, user_id) in held[start : start + batch]
            ], [], now=now)

    async def run(self, stopping: asyncio.Event) -> None:
        """Refresh every `ttl / 3` seconds until `stopping` is set."""
        while not stopping.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.ttl / 3):
                    await stopping.wait()
            if stopping.is_set():
                return
            try:
                await self.refresh()
            except Exception:
                log.exception("presence refresh failed; retrying")


def _retrieved(future: asyncio.Future[None]) -> None:
    """A batch's error is its waiters' to raise; with none left, it is not "never retrieved"."""
    if not future.cancelled():
        future.exception()
