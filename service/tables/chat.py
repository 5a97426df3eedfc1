"""Quick chat at a table: preset phrases and reactions, sent as ids only (no free text, so
nothing anyone types reaches another player; each app shows an id in its viewer's language).

Seated players send phrases and reactions; spectators (whoever may watch the table: on a
private table only holders of its link) send reactions. Each player has a bucket per table
(one message every 2 s, bursts of 3) kept in Redis, so it holds across replicas; the messages
live in the capped stream beside the table (`chat_stream`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import msgspec

from events.store.base import StoredEvent
from service.game.state import TableState
from service.tables.chat_stream import ChatStream, RateLimited, chat_key
from service.tables.errors import bad_request
from service.tables.facade import JSON, ServiceError, User
from service.tables.private import Invites

PHRASES: tuple[str, ...] = (
    "hello", "good_luck", "nice_hand", "well_played", "hurry", "one_more", "thanks", "oops",
    "svara", "gg", "wow", "sorry", "bye", "unlucky", "close_one", "bluff",
)
REACTIONS: tuple[str, ...] = (
    "laugh", "cry", "angry", "fire", "clap", "cool", "thinking", "heart",
)
_PHRASES = frozenset(PHRASES)
_REACTIONS = frozenset(REACTIONS)

MAX_SEQ = 2**53 - 1


class Said(msgspec.Struct, frozen=True, omit_defaults=True):
    """What a stream entry holds (`seq` and `at` are the entry's own)."""

    user_id: int
    name: str
    seat: int | None = None
    phrase: str | None = None
    reaction: str | None = None


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(Said).decode

Load = Callable[[str], Awaitable[TableState]]  # the table's state, or ServiceError 404


def message(entry: StoredEvent) -> JSON:
    said = _decode(entry.data)
    out: JSON = {"seq": entry.version, "at": entry.at, "seat": said.seat,
                 "user_id": said.user_id, "name": said.name}
    if said.phrase is not None:
        out["phrase"] = said.phrase
    if said.reaction is not None:
        out["reaction"] = said.reaction
    return out


def catalogue() -> JSON:
    return {"phrases": list(PHRASES), "reactions": list(REACTIONS)}


def _check_after(after: int) -> None:
    if not isinstance(after, int) or isinstance(after, bool) or not 0 <= after <= MAX_SEQ:
        raise bad_request(f"after must be a seq: a whole number from 0 to {MAX_SEQ}")


class Chat:
    def __init__(self, stream: ChatStream, invites: Invites, load: Load,
                 table_stream: Callable[[str], str], clock: Callable[[], float],
                 follow_key: Callable[..., Any]) -> None:
        self.stream = stream
        self.invites = invites
        self._load = load
        self._table = table_stream
        self._clock = clock
        self._follow_key = follow_key

    async def _watchable(self, user: User | None, table_id: str,
                         invite: str | None) -> TableState:
        state = await self._load(table_id)
        await self.invites.check_watch(self._table(table_id), state, user.id if user else None,
                                       invite)
        return state

    async def post(self, user: User, table_id: str, *, phrase: str | None = None,
                   reaction: str | None = None, invite: str | None = None) -> int:
        """Send a phrase or a reaction; its seq. 400 for an unknown id or for both/neither,
        403 `not_seated` for a spectator's phrase, 429 `rate_limited` past the bucket."""
        if (phrase is None) == (reaction is None):
            raise bad_request("send exactly one of phrase and reaction")
        if phrase is not None and phrase not in _PHRASES:
            raise ServiceError(400, "unknown_phrase", "no such phrase")
        if reaction is not None and reaction not in _REACTIONS:
            raise ServiceError(400, "unknown_reaction", "no such reaction")
        state = await self._watchable(user, table_id, invite)
        seat = state.seat_of(user.id)
        if phrase is not None and seat is None:
            raise ServiceError(403, "not_seated", "only seated players send phrases")
        data = _encode(Said(user_id=user.id, name=user.name, seat=seat, phrase=phrase,
                            reaction=reaction))
        try:
            return await self.stream.post(self._table(table_id), user.id, data, self._clock())
        except RateLimited as limited:
            retry = max(0.01, round(limited.retry_after, 2))
            raise ServiceError(429, "rate_limited", "too many messages; wait a moment",
                               retry_after=retry) from None

    async def messages(self, user: User | None, table_id: str, after: int,
                       invite: str | None = None) -> JSON:
        """`{"seq": newest, "messages": [...]}` after `after` (the last 200 at most)."""
        _check_after(after)
        await self._watchable(user, table_id, invite)
        stream = self._table(table_id)
        entries = await self.stream.read(stream, after)
        seq = entries[-1].version if entries else await self.stream.seq(stream)
        return {"seq": seq, "messages": [message(e) for e in entries]}

    async def follow(self, user: User | None, table_id: str, after: int | None,
                     invite: str | None = None) -> AsyncIterator[list[JSON]]:
        """The messages after `after` (None: from now on), then live ones, in seq order,
        without a gap or a repeat, as batches; runs until the consumer stops."""
        await self._watchable(user, table_id, invite)
        stream = self._table(table_id)
        if after is None:
            after = await self.stream.seq(stream)
        _check_after(after)
        async def read(_key: str, since: int, count: int) -> list[StoredEvent]:
            return await self.stream.read(stream, since, count)

        follow = self._follow_key(chat_key(stream), read, after)
        try:
            async for batch in follow:
                yield [message(e) for e in batch]
        finally:
            follow.close()
