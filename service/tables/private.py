"""Private tables' invites: who may sit at or watch a table that is not in the lobby.

The invite token is a secret that must never reach an event (every event of a hand is shown
in full by its audit and export): it lives in a key beside the table's stream, in the table's
hash tag, and the events record only that the table is private (`TableCreated.private`).
Whoever sat down with the invite is remembered (`…:guests`), so a player keeps watching a table
they played at after its host made a new invite; the old tokens' digests are kept to tell a
revoked link (`invite_revoked`) from a wrong one. All of it is 404 `unknown_table` to the
caller: a private table's existence is not confirmed to someone without its link.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from events.store.connection import Health
from events.store.keys import keys_for
from service.game.state import TableState
from service.tables.facade import ServiceError


def _base(stream: str) -> str:
    return keys_for(stream).events[: -len("events")]


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(16)


def refused(table_id: str, *, revoked: bool = False) -> ServiceError:
    if revoked:
        return ServiceError(404, "invite_revoked",
                            f"the invite to table {table_id} is no longer valid")
    return ServiceError(404, "unknown_table", f"no table {table_id}")


class Invites:
    def __init__(self, client: Redis | RedisCluster, health: Health | None = None) -> None:
        self._client: Any = client
        self._health = health if health is not None else Health()

    async def issue(self, stream: str) -> str:
        """A new invite for the table; the one before stops working (it is remembered as
        revoked)."""
        token = new_token()
        base = _base(stream)
        with self._health.errors():
            old = await self._client.getset(base + "invite", token)
            if old:
                text = old.decode() if isinstance(old, bytes) else str(old)
                await self._client.sadd(base + "revoked", _digest(text))
        return token

    async def current(self, stream: str) -> str | None:
        """The table's invite now (None for a table without one)."""
        with self._health.errors():
            current = await self._client.get(_base(stream) + "invite")
        if not current:
            return None
        return current.decode() if isinstance(current, bytes) else str(current)

    async def valid(self, stream: str, token: str | None) -> bool:
        if not isinstance(token, str) or not token:
            return False
        current = await self.current(stream)
        if current is None:
            return False
        return hmac.compare_digest(current.encode(), token.encode())

    async def revoked(self, stream: str, token: str) -> bool:
        with self._health.errors():
            return bool(await self._client.sismember(_base(stream) + "revoked", _digest(token)))

    async def admit(self, stream: str, user_id: int) -> None:
        with self._health.errors():
            await self._client.sadd(_base(stream) + "guests", str(user_id))

    async def admitted(self, stream: str, user_id: int) -> bool:
        with self._health.errors():
            return bool(await self._client.sismember(_base(stream) + "guests", str(user_id)))

    async def check_watch(
        self, stream: str, state: TableState, user_id: int | None, invite: str | None
    ) -> None:
        """Refuse (404) someone who may not see this private table: not seated, never seated
        with its invite, not its creator, without the current invite."""
        if not state.private:
            return
        if user_id is not None and (
            state.seat_of(user_id) is not None or user_id == state.created_by
        ):
            return
        if await self.valid(stream, invite):
            return
        if user_id is not None and await self.admitted(stream, user_id):
            return
        gone = bool(invite) and await self.revoked(stream, invite or "")
        raise refused(state.table_id, revoked=gone)

    async def check_seat(self, stream: str, state: TableState, user_id: int,
                         invite: str | None) -> None:
        """A private table seats only a holder of its current invite (or its creator, or a
        player seated already), and remembers them as a guest."""
        if not state.private or user_id == state.created_by:
            return
        if state.seat_of(user_id) is None and not await self.valid(stream, invite):
            raise refused(state.table_id,
                          revoked=bool(invite) and await self.revoked(stream, invite or ""))
        await self.admit(stream, user_id)
