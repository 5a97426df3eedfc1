"""The one command path for tables: load (cache or snapshot + tail) → decide → append with the
expected version → on conflict reload and decide again.

Every caller (API, bot, timers, practice bots, transfers) goes through `TableRepo.execute`, so
the version check is the only arbiter between a late action, a timeout and another replica.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Literal, NamedTuple

import msgspec

from events.codec import decode_table_event, encode_table_event
from events.store.base import EventStore, IndexOp, StoredEvent
from events.table import HandSettled, HandStarted, TableEvent
from service import metrics
from service.game.commands import CreateTable, TableCommand
from service.game.decider import evolve, step
from service.game.errors import GameError
from service.game.state import TableState, decode_state, encode_state
from service.tables.errors import conflict, not_found
from service.tables.facade import ServiceError
from service.tables.streams import Streams
from service.tables.trail import Trail

log = logging.getLogger(__name__)

Status = Literal["appended", "duplicate", "noop", "conflict"]


# NamedTuples, not frozen dataclasses: made on every command, and a frozen dataclass's
# __init__ costs an object.__setattr__ per field.
class Loaded(NamedTuple):
    version: int
    state: TableState | None


class Outcome(NamedTuple):
    status: Status
    version: int
    state: TableState | None = None  # the state after an append (or the state decided on)
    events: Sequence[TableEvent] = ()  # what was appended


ChangeHook = Callable[[str, int, TableState], None]
# (table_id, state before, state after, version after) -> the index changes of that append
Indexer = Callable[[str, TableState | None, TableState, int], Sequence[IndexOp]]
# (table_id, state before, the events to append, the first one's version, their time) -> the
# hands index entries of that append (`service.tables.hand_records`); awaited only for a
# batch that starts or settles a hand
HandIndexer = Callable[
    [str, TableState | None, Sequence[TableEvent], int, float], Awaitable[Sequence[IndexOp]]
]
# (table_id, first version, the events appended, their time, their chain hashes, the state
# after the last one)
AppendHook = Callable[
    [str, int, Sequence[TableEvent], float, Sequence[str], TableState], None
]
# (table_id, version of the first event, the events, the state after the last one)
TableObserver = Callable[[str, int, Sequence[TableEvent], TableState], None]


def fold_onto(state: TableState | None, events: Sequence[TableEvent]) -> TableState | None:
    for event in events:
        state = evolve(state, event)
    return state


def touches_hands(events: Sequence[TableEvent]) -> bool:
    """Whether a batch starts or settles a hand (then it carries hands index entries)."""
    return any(type(e) is HandStarted or type(e) is HandSettled for e in events)


def decode_all(stored: Sequence[StoredEvent]) -> list[TableEvent]:
    return [decode_table_event(e.data) for e in stored]


class TableRepo:
    """Loads and changes tables. Keeps an in-process LRU of folded states (a cache only: every
    load still reads the tail from the store, so other replicas' appends are always seen)."""

    def __init__(
        self,
        store: EventStore,
        streams: Streams,
        *,
        snapshot_every: int = 200,
        cache_size: int = 4096,
        max_attempts: int = 20,
    ) -> None:
        self.store = store
        self.streams = streams
        self.snapshot_every = snapshot_every
        self.cache_size = cache_size
        self.max_attempts = max_attempts
        self._cache: OrderedDict[str, Loaded] = OrderedDict()
        self._snapshotted: dict[str, int] = {}
        self.trail = Trail()
        self.hooks: list[ChangeHook] = []
        # told of this process's own appends, straight from the append's reply (the live feed
        # hands them to its sockets without waiting for the store to bring them back)
        self.append_hooks: list[AppendHook] = []
        # per table: the first version and the events of this process's latest append
        self._appended: dict[str, tuple[int, Sequence[TableEvent]]] = {}
        # the index entries written with every append (`service.tables.index`), if any
        self.indexer: Indexer | None = None
        self.hand_indexer: HandIndexer | None = None
        # Told of every event this process learns *with the state after it*: its own appends
        # (from the append's reply) and other processes' appends that its live feeds fold
        # (`state_at`). Whoever appended an event always tells its observers; other replicas
        # may too (dedup across processes is the observer's business), and the same version
        # may come twice in one process (a feed can fold an event before the append's reply
        # arrives). Called synchronously on the hot path: observers only look and schedule.
        self.observers: list[TableObserver] = []

    async def load(self, table_id: str) -> Loaded:
        stream = self.streams.table(table_id)
        base = self._cache.get(table_id)
        if base is None:
            base = await self._from_snapshot(stream)
        tail = await self.store.read(stream, after=base.version)
        if not tail and base.state is not None and base.state.closed and (
                await self.store.version(stream) == 0):
            # archived since it was cached (`svara archive` deleted its log): forget it, so
            # this process answers what the store says (410), not the table as it was
            self._forget(table_id)
            return Loaded(0, None)
        if not tail:
            loaded = base
        else:
            loaded = Loaded(tail[-1].version, fold_onto(base.state, decode_all(tail)))
        self._remember(table_id, loaded)
        return loaded

    async def _from_snapshot(self, stream: str) -> Loaded:
        snapshot = await self.store.load_snapshot(stream)
        if snapshot is None:
            return Loaded(0, None)
        try:
            return Loaded(snapshot.version, decode_state(snapshot.data))
        except (msgspec.DecodeError, msgspec.ValidationError):
            log.warning("ignoring an undecodable snapshot of %s", stream)
            return Loaded(0, None)

    def _remember(self, table_id: str, loaded: Loaded) -> None:
        if loaded.state is None:
            return
        self.trail.put(table_id, loaded.version, loaded.state)
        current = self._cache.get(table_id)
        if current is None or current.version <= loaded.version:
            self._cache[table_id] = loaded
        self._cache.move_to_end(table_id)
        while len(self._cache) > self.cache_size:
            gone, _ = self._cache.popitem(last=False)
            self._forget(gone)

    def _forget(self, table_id: str) -> None:
        self._cache.pop(table_id, None)
        self.trail.drop(table_id)
        self._appended.pop(table_id, None)

    def appended(self, table_id: str, version: int) -> TableEvent | None:
        """The event at `version` if this process's latest append at the table wrote it."""
        last = self._appended.get(table_id)
        if last is not None:
            index = version - last[0]
            if 0 <= index < len(last[1]):
                return last[1][index]
        return None

    def cached(self, table_id: str) -> Loaded | None:
        """The newest state this process holds (may be behind the store)."""
        return self._cache.get(table_id)

    def state_at(self, table_id: str, version: int, event: TableEvent) -> TableState | None:
        """The state at `version`, given `event` (the one at `version`), if at hand: from the
        trail, or by folding `event` onto the state at `version - 1`. Every event the process's
        feed delivers passes here once per version, so the cache of a table with local
        subscribers follows other replicas' appends too, and the hooks (the timer driver)
        hear of them. Returns None when the state before is not at hand."""
        state = self.trail.get(table_id, version)
        if state is not None:
            return state
        before = self.trail.get(table_id, version - 1)
        if before is None:
            return None
        state = evolve(before, event)
        current = self._cache.get(table_id)
        self._remember(table_id, Loaded(version, state))
        if current is None or current.version < version:
            for hook in self.hooks:
                hook(table_id, version, state)
        for observer in self.observers:
            observer(table_id, version, (event,), state)
        return state

    async def execute(
        self,
        table_id: str,
        command_for: Callable[[], TableCommand],
        *,
        action_id: str | None = None,
        expected_version: int | None = None,
        retry: bool = True,
    ) -> Outcome:
        """Decide `command_for()` on the latest state and append it, retrying on conflicts.

        `command_for` is called once per attempt (fresh clock and seed; it may raise GameError
        to abort). GameError propagates; a stale `expected_version` raises 409.

        Idempotency costs no extra round trip on the happy path: the append itself answers
        `duplicate` for a known `action_id` (checked before the version, atomically). Only when
        nothing would be appended -- a refusal, a no-op or a stale `expected_version`, all
        decided on the latest state -- is the action_id looked up, so a retry that arrives
        after the table moved on still gets its first answer.
        """
        stream = self.streams.table(table_id)
        for attempt in range(self.max_attempts):
            # Optimistic first attempt: decide on the cached state without reading the tail;
            # the append's version check catches a stale cache, and the retry reads it.
            cached = self._cache.get(table_id) if attempt == 0 else None
            loaded = cached if cached is not None else await self.load(table_id)
            if expected_version is not None and loaded.version != expected_version:
                if cached is not None:
                    loaded = await self.load(table_id)
                if loaded.version != expected_version:
                    if (first := await self._first_answer(stream, action_id)) is not None:
                        return Outcome("duplicate", first)
                    raise conflict(loaded.version)
            command = command_for()
            if loaded.state is None and not isinstance(command, CreateTable):
                raise not_found(table_id)
            try:
                events, decided = step(loaded.state, command)
            except GameError:
                if cached is not None:
                    continue  # refused on a possibly stale cache: decide again on the latest
                if (first := await self._first_answer(stream, action_id)) is not None:
                    return Outcome("duplicate", first)
                raise
            if not events:
                if cached is not None:
                    continue
                if (first := await self._first_answer(stream, action_id)) is not None:
                    return Outcome("duplicate", first)
                return Outcome("noop", loaded.version, loaded.state)
            indexer = self.indexer
            index: Sequence[IndexOp] = (
                indexer(table_id, loaded.state, decided, loaded.version + len(events))
                if indexer is not None
                else ()
            )
            if self.hand_indexer is not None and touches_hands(events):
                index = [*index, *await self.hand_indexer(
                    table_id, loaded.state, events, loaded.version + 1, float(command.now))]
            result = await self.store.append(
                stream,
                [encode_table_event(e) for e in events],
                expected_version=loaded.version,
                action_id=action_id,
                at=command.now,
                index=index,
            )
            metrics.observe_append(result.status, len(events))
            if result.status == "appended":
                if log.isEnabledFor(logging.DEBUG):
                    log.debug("appended %d event(s)", len(events), extra={
                        "table": table_id, "version": result.version, "action_id": action_id})
                state = decided
                after = Loaded(result.version, state)
                self._remember(table_id, after)
                first = result.version - len(events) + 1
                # Should the store bring these back to the feed, it takes them from here
                # instead of decoding the bytes again.
                self._appended[table_id] = (first, events)
                for append_hook in self.append_hooks:
                    append_hook(
                        table_id, first, events, float(command.now), result.hashes, state
                    )
                for observer in self.observers:
                    observer(table_id, first, events, state)
                await self._maybe_snapshot(stream, table_id, after, events)
                for hook in self.hooks:
                    hook(table_id, result.version, state)
                return Outcome("appended", result.version, state, events)
            if result.status == "duplicate":
                return Outcome("duplicate", result.version)
            if log.isEnabledFor(logging.DEBUG):
                log.debug("version conflict (attempt %d)", attempt + 1, extra={
                    "table": table_id, "version": result.version, "action_id": action_id})
            if expected_version is not None:
                raise conflict(result.version)
            if not retry:
                return Outcome("conflict", result.version)
        raise ServiceError(503, "busy", "the table is too busy right now; try again")

    async def _first_answer(self, stream: str, action_id: str | None) -> int | None:
        """Before answering "nothing appended": the version an earlier append of this
        action_id wrote up to, if there was one (then that is the answer)."""
        if action_id is None:
            return None
        return await self.store.find_action(stream, action_id)

    async def _maybe_snapshot(
        self, stream: str, table_id: str, loaded: Loaded, events: Sequence[TableEvent]
    ) -> None:
        """Snapshot at each settled hand, or every `snapshot_every` events at the latest."""
        assert loaded.state is not None
        settled = any(isinstance(e, HandSettled) for e in events)
        last = self._snapshotted.get(table_id, 0)
        if settled or loaded.version - last >= self.snapshot_every:
            await self.store.save_snapshot(stream, loaded.version, encode_state(loaded.state))
            self._snapshotted[table_id] = loaded.version

    async def events_between(self, table_id: str, after: int, upto: int) -> list[TableEvent]:
        stored = await self.store.read(self.streams.table(table_id), after=after)
        return decode_all([e for e in stored if e.version <= upto])
