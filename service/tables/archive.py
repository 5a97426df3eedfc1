"""Archiving closed tables (`svara archive`): their history moves from Redis to files.

For every table closed (`table_closed`) more than `closed_days` ago, in this order, each step
safe to repeat:

1. its files (`service.tables.archive_files`): an export per settled hand and the whole log,
   written durably, read back from disk, and every hand checked by the offline verifier;
2. its tombstone (`service.tables.tombstones`), so the API answers 410 `table_archived`;
3. the keys beside its log (chat, presence notes, presence, what `forget` hooks own);
4. its log and hands index, in one atomic step that happens only if the log is still at the
   version the files hold (`EventStore.drop_stream`).

A crash anywhere leaves the log in Redis until step 4, so the next run archives the table
again (the files are rewritten whole) and finishes; nothing is deleted before its files are
on disk. Never archived: an open table, a tournament's table (kept: its tournament's audit
reads it), and -- refused, reported -- a closed table still holding a player's chips, or one that
a wallet still counts a buy-in, reservation or cash-out at (a transfer that is not over).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple

import redis.exceptions as rexc

from events import table as ev
from events.store.kv import PREFIX as KV_PREFIX
from events.store.redis_store import RedisEventStore
from events.table import TableEvent
from service import verify
from service.game.state import TableState
from service.tables import archive_files as files
from service.tables.away_feed import away_key
from service.tables.chat_stream import chat_key
from service.tables.export import decode_lenient
from service.tables.hands_index import hands_index
from service.tables.presence import presence_key
from service.tables.repo import fold_onto
from service.tables.service import TableService

DAY = 86400.0
Status = Literal["archived", "would_archive", "too_young", "kept", "refused", "changed", "failed"]
Forget = Callable[[str], Awaitable[None]]  # drops what a layer above keeps for a table


class Outcome(NamedTuple):
    table_id: str
    status: Status
    detail: str = ""
    hands: int = 0
    files: int = 0
    file_bytes: int = 0
    freed_bytes: int = 0  # MEMORY USAGE of the keys deleted, measured just before


class Archiver:
    def __init__(
        self, service: TableService, store: RedisEventStore, directory: Path, *,
        closed_days: float = 30.0, dry_run: bool = False, clock: Callable[[], float] = time.time,
        forget: Sequence[Forget] = (),
    ) -> None:
        self.service = service
        self.store = store
        self.directory = directory
        self.closed_days = closed_days
        self.dry_run = dry_run
        self.clock = clock
        self.forget = list(forget)
        self.open_tables = 0  # seen and kept, not reported one by one

    async def run(self) -> AsyncIterator[Outcome]:
        """An outcome per closed table, as each is done (open tables are only counted)."""
        prefix = self.service.streams.table("")
        async for stream in self.store.stream_names(prefix):
            outcome = await self.table(stream[len(prefix):])
            if outcome is not None:
                yield outcome

    async def table(self, table_id: str) -> Outcome | None:
        """Archive one table if it is due; None for a table that is not closed."""
        _, state = await self.service.repo.load(table_id)
        if state is None or state.phase != "closed":
            self.open_tables += state is not None
            return None
        stream = self.service.streams.table(table_id)
        stored = await self.store.read(stream)
        events = decode_lenient(stored)
        closed_at = max((s.at for s, e in zip(stored, events, strict=True)
                         if isinstance(e, ev.TableClosed)), default=None)  # fmt: skip
        if closed_at is None:
            return Outcome(table_id, "refused", "closed, but no table_closed event in its log")
        age = self.clock() - closed_at
        if age < self.closed_days * DAY:
            return Outcome(table_id, "too_young", f"closed {age / DAY:.1f} days ago")
        if any(e is None for e in events):
            return Outcome(table_id, "refused", "its log holds an unreadable event")
        readable = [e for e in events if e is not None]
        state = fold_onto(None, readable)
        if state is not None and state.tournament_id:
            return Outcome(table_id, "kept", f"a table of tournament {state.tournament_id} "
                           "(the tournament's audit reads its log)")  # fmt: skip
        why = await self._refusal(table_id, state, readable)
        if why:
            return Outcome(table_id, "refused", why)
        now = self.clock()
        docs = files.documents(table_id, stored, events, archived_at=now, closed_at=closed_at)
        hands = len(docs) - 1
        side = self._side_keys(stream, table_id, readable)
        keys = [*self.store.stream_keys(stream, [self._hands(table_id)]), *side]
        freed = await self._memory(keys)
        if self.dry_run:
            return Outcome(table_id, "would_archive", f"closed {age / DAY:.1f} days ago",
                           hands, len(docs), sum(map(len, docs.values())), freed)  # fmt: skip
        where = self.directory / table_id
        written = files.write_all(where, docs)
        problem = files.read_back(where, docs) or _unverified(where, docs)
        if problem:
            return Outcome(table_id, "failed", f"kept in Redis: {problem}")
        await self.service.tombstones.bury(table_id, now)
        await self._delete(side)
        for hook in self.forget:
            await hook(table_id)
        version = stored[-1].version
        if not await self.store.drop_stream(stream, expected_version=version,
                                            indexes=[self._hands(table_id)]):  # fmt: skip
            return Outcome(table_id, "changed", "its log grew while it was archived; re-run")
        return Outcome(table_id, "archived", f"closed {age / DAY:.1f} days ago", hands,
                       len(docs), written, freed)  # fmt: skip

    def _hands(self, table_id: str) -> str:
        return hands_index(self.service.streams.namespace, table_id)

    async def _refusal(
        self, table_id: str, state: TableState | None, events: Sequence[TableEvent]
    ) -> str:
        if state is None:
            return "its log is empty"
        held = state.chips_in_play() - state.rake_total
        if held:
            return f"it still holds {held} chips of players"
        for user in sorted(_players(events)):
            _, wallet = await self.service.bank.load(user)
            pending = [r for r in wallet.reserved.values() if r.table_id == table_id]
            leaving = [p for p in wallet.leaving.values() if p.table_id == table_id]
            if pending or leaving or wallet.seats.get(table_id, 0) > 0:
                return f"the wallet of user {user} has a transfer at it that is not over"
        return ""

    def _side_keys(self, stream: str, table_id: str, events: Sequence[TableEvent]) -> list[str]:
        """The keys beside the log that name the table (most expire on their own; an
        archive leaves none behind)."""
        chat, away = chat_key(stream), away_key(stream)
        keys = [chat, chat + ":seq", away, away + ":seq"]
        for user in sorted(_players(events)):
            keys += [chat + f":rate:{user}",
                     KV_PREFIX + presence_key(self.service.streams.namespace, table_id, user)]
        return keys

    async def _memory(self, keys: Sequence[str]) -> int:
        client: Any = self.store.client
        total = 0
        for key in keys:
            try:
                total += int(await client.memory_usage(key, samples=0) or 0)
            except rexc.ResponseError:  # a store without MEMORY USAGE (embedded): unknown
                return 0
        return total

    async def _delete(self, keys: Sequence[str]) -> None:
        client: Any = self.store.client
        with self.store.health.errors():
            for key in keys:  # one by one: on a Cluster they lie in different slots
                await client.delete(key)


def _players(events: Sequence[TableEvent]) -> set[int]:
    return {e.user_id for e in events if isinstance(e, ev.PlayerSeated)}


def _unverified(directory: Path, docs: dict[str, bytes]) -> str | None:
    """The first hand file the offline verifier does not pass, read back from disk."""
    for name in docs:
        if name == files.LOG_NAME:
            continue
        try:
            report = verify.verify(verify.load((directory / name).read_bytes()))
        except verify.Malformed as exc:
            return f"{name} is malformed: {exc}"
        if not report.ok:
            first = report.failures[0]
            return f"{name} does not verify ({first.check} at version {first.version})"
    return None
