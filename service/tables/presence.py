"""Who has a table open right now: the API's WebSockets, counted across every replica.

A socket is a member of the set `presence:<table>:<user>` in the key-value store (not the
event log: presence is no fact of the game). Each member expires `ttl` seconds after its last
refresh, and this process refreshes its own open sockets every `ttl / 3` seconds, so a replica
that dies leaves nothing behind for longer than `ttl`; a socket that closes removes its member
at once. The bot asks `watching(table, user)` before it calls a player to their turn.
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

    def _key(self, table_id: str, user_id: int) -> str:
        return f"{self.namespace}presence:{table_id}:{user_id}"

    async def opened(self, table_id: str, user_id: int) -> str:
        """A socket of `user_id` to `table_id` is open; the token to close it with."""
        member = f"{self._process}:{next(self._numbers)}"
        self._open[member] = (table_id, user_id)
        now = self.clock()
        await self.kv.add_member(self._key(table_id, user_id), member, now + self.ttl, now=now)
        return member

    async def closed(self, token: str) -> None:
        where = self._open.pop(token, None)
        if where is not None:
            await self.kv.remove_member(self._key(*where), token)

    async def watching(self, table_id: str, user_id: int) -> bool:
        """Has `user_id` a socket open to `table_id` on any replica?"""
        return bool(await self.kv.members(self._key(table_id, user_id), self.clock()))

    async def refresh(self, batch: int = 64) -> None:
        """Move the expiry of every socket this process holds open (`batch` at a time)."""
        now = self.clock()
        held = list(self._open.items())
        for start in range(0, len(held), batch):
            await asyncio.gather(*(
                self.kv.add_member(self._key(table_id, user_id), member, now + self.ttl, now=now)
                for member, (table_id, user_id) in held[start : start + batch]
            ))

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
