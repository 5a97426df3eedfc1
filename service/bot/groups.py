"""Which group a table was opened in (/newtable), and the tables of a group (/tables); and
the language of the group a tournament was opened in (/tournament: the tournament itself
records the group's chat id, the bot's bookkeeping only what it writes there in).

Kept in the key-value store, without expiry: the binding is the bot's own bookkeeping (the
table itself does not know about Telegram chats). A table that no longer exists is dropped
from its group when /tables finds it gone.
"""

from __future__ import annotations

import math

import msgspec

from events.store.kv import KeyValue


class Binding(msgspec.Struct, frozen=True):
    chat_id: int
    language: str  # what the group's messages are written in: its table opener's language


# Longer than a tournament lasts: the longest fill time (a week) and its play.
TOURNAMENT_TTL = 30 * 86_400.0

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(Binding).decode


class GroupTables:
    def __init__(self, kv: KeyValue, namespace: str = "") -> None:
        self.kv = kv
        self.namespace = namespace

    def _table_key(self, table_id: str) -> str:
        return f"{self.namespace}bot:table-group:{table_id}"

    def _group_key(self, chat_id: int) -> str:
        return f"{self.namespace}bot:group-tables:{chat_id}"

    async def bind(self, chat_id: int, table_id: str, language: str) -> None:
        await self.kv.put(self._table_key(table_id), _encode(Binding(chat_id, language)))
        await self.kv.add_member(self._group_key(chat_id), table_id, math.inf)

    async def group_of(self, table_id: str) -> Binding | None:
        raw = await self.kv.get(self._table_key(table_id))
        return None if raw is None else _decode(raw)

    async def tables_of(self, chat_id: int) -> list[str]:
        return await self.kv.members(self._group_key(chat_id), 0.0)

    async def bind_tournament(self, chat_id: int, tournament_id: str, language: str) -> None:
        key = f"{self.namespace}bot:tournament-group:{tournament_id}"
        await self.kv.put(key, _encode(Binding(chat_id, language)), ttl=TOURNAMENT_TTL)

    async def group_of_tournament(self, tournament_id: str) -> Binding | None:
        raw = await self.kv.get(f"{self.namespace}bot:tournament-group:{tournament_id}")
        return None if raw is None else _decode(raw)

    async def unbind(self, chat_id: int, table_id: str) -> None:
        await self.kv.remove_member(self._group_key(chat_id), table_id)
        await self.kv.delete(self._table_key(table_id))
