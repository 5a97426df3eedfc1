"""The stats projection: settled hands from the table streams into `counters`, each once.

What to do comes with the log: the append that settles hand n of table T also writes the
member `T:n` into the `<ns>stats-due` index (`due_op`, in the same atomic step, by the hands
indexer), so no settled hand can be missed however a process dies. Every replica runs `run`:
woken by its own settlements (`nudge`) or every `poll_seconds`, it takes the due tables and
`catch_up`s each from its checkpoint, hand by hand (the hands index says where each lies;
two reads a hand), then drops the due members it has covered. Racing replicas are safe: the
checkpoint moves in the script that adds the figures (`Counters.apply`); the loser rereads.

`rebuild` (`svara reindex --stats`) folds every table's log into a fresh generation beside
the live one, switches to it, catches it up with whatever settled meanwhile, and drops the
old one: the figures a rebuild ends with are the ones the streams say.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from events import table as ev
from events.codec import decode_table_event
from events.store.base import EventStore, IndexOp
from service.game.stats import hand_lines
from service.tables import guards
from service.tables.facade import ServiceError
from service.tables.hand_log import load_hand, read_entry
from service.tables.stats.counters import Counters
from service.tables.streams import Streams

log = logging.getLogger(__name__)


def due_index(namespace: str) -> str:
    return f"{namespace}stats-due"


def due_op(namespace: str, table_id: str, hand: int, at: float) -> IndexOp:
    return IndexOp(due_index(namespace), f"{table_id}:{hand}", float(at))


class TableMeta:
    """What a table's `table_created` says about counting its hands."""

    def __init__(self, tournament: bool, group: int | None) -> None:
        self.tournament = tournament
        self.group = group


class Projector:
    def __init__(self, store: EventStore, streams: Streams, counters: Counters, *,
                 poll_seconds: float = 5.0) -> None:  # fmt: skip
        self.store = store
        self.streams = streams
        self.counters = counters
        self.poll_seconds = poll_seconds
        self._meta: dict[str, TableMeta] = {}
        self._wake = asyncio.Event()
        self.applied = 0  # hands this process added (tests, logs)

    def nudge(self) -> None:
        """A hand settled here: catch up soon rather than at the next poll."""
        self._wake.set()

    def run(self, stopping: asyncio.Event) -> asyncio.Task[None]:
        return asyncio.create_task(self._run(stopping), name="svara-stats")

    async def _run(self, stopping: asyncio.Event) -> None:
        while not stopping.is_set():
            self._wake.clear()
            try:
                await self.catch_up_due()
            except Exception:  # a store outage: the next round tries again
                log.warning("stats catch-up failed", exc_info=True)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll_seconds):
                    waits = [asyncio.ensure_future(stopping.wait()),
                             asyncio.ensure_future(self._wake.wait())]  # fmt: skip
                    try:
                        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                    finally:
                        for wait in waits:
                            wait.cancel()

    async def catch_up_due(self) -> int:
        """Catch up every table with a due member; how many hands it applied."""
        index = due_index(self.streams.namespace)
        applied = 0
        while True:
            due = await self.store.index_due(index, float("inf"), limit=200)
            if not due:
                return applied
            tables: dict[str, list[str]] = {}
            for member, _ in due:
                tables.setdefault(member.rpartition(":")[0], []).append(member)
            for table_id, members in tables.items():
                applied += await self.catch_up(table_id)
                await self._drop(table_id, members)

    async def _drop(self, table_id: str, members: list[str]) -> None:
        stream = self.streams.table(table_id)
        changes = [IndexOp(due_index(self.streams.namespace), m, None) for m in members]
        for _ in range(50):
            version = await self.store.version(stream)
            if await self.store.set_index(stream, expected_version=version, changes=changes):
                return
        raise ServiceError(503, "busy", f"table {table_id} kept moving")

    async def catch_up(self, table_id: str, gen: str | None = None) -> int:
        """Apply the table's settled hands after its checkpoint, in order; how many. With
        `gen`, into that generation even if it is not current (the rebuild's)."""
        if not guards.TABLE_ID.match(table_id):
            return 0
        applied = 0
        while True:
            current = gen if gen is not None else await self.counters.generation()
            cp = await self.counters.checkpoint(current, table_id)
            step = await self._apply_next(table_id, current, cp, gen is None)
            if step is None:
                return applied
            applied += step

    async def _apply_next(self, table_id: str, gen: str, cp: tuple[int, int],
                          current: bool) -> int | None:  # fmt: skip
        """Try to apply the hand after `cp`: 1 applied, 0 lost a race (read again), None:
        nothing settled to apply."""
        hand = cp[1] + 1
        namespace, stream = self.streams.namespace, self.streams.table(table_id)
        entry = await read_entry(self.store, namespace, table_id, hand)
        if entry is None or entry.last is None:
            return None
        found = await load_hand(self.store, stream, namespace, table_id, hand, entry=entry)
        if not found.settled:
            return None
        meta = await self._table_meta(table_id)
        last = found.stored[-1]
        lines = [] if found.start is None else hand_lines(
            found.start, found.events, chips=not meta.tournament)
        status = await self.counters.apply(
            gen, table_id, cp, (last.version, hand), lines, at=last.at, group=meta.group,
            chips=not meta.tournament, current=current,
        )
        if status == 1:
            self.applied += 1
            return 1
        return 0

    async def _table_meta(self, table_id: str) -> TableMeta:
        meta = self._meta.get(table_id)
        if meta is None:
            first = await self.store.read(self.streams.table(table_id), after=0, limit=1)
            created = decode_table_event(first[0].data) if first else None
            if isinstance(created, ev.TableCreated):
                meta = TableMeta(bool(created.tournament_id), created.group_chat_id)
            else:
                meta = TableMeta(False, None)
            if len(self._meta) > 10000:
                self._meta.clear()
            self._meta[table_id] = meta
        return meta

    async def rebuild(self) -> int:
        """Fold every table into a new generation, switch to it, catch it up, drop the old
        one. Returns how many hands the new generation holds."""
        counters, keys = self.counters, self.counters.keys
        with counters.health.errors():
            new = str(await counters.client.incr(keys.next_gen))
        old = await counters.generation()
        if new == old:  # a store whose counter was lost: never write the live generation
            with counters.health.errors():
                new = str(await counters.client.incr(keys.next_gen))
        prefix = self.streams.table("")
        tables = [s[len(prefix):] async for s in self.store.stream_names(prefix)]
        for table_id in tables:
            await self.catch_up(table_id, gen=new)
        with counters.health.errors():
            await counters.client.set(keys.gen, new)
        for table_id in tables:  # what settled while the rebuild ran
            await self.catch_up(table_id)
        await self.catch_up_due()
        with counters.health.errors():
            async for key in counters.client.scan_iter(match=keys.generation_glob(old)):
                await counters.client.delete(key)
            held = await counters.client.hlen(keys.cp(new))
        return int(held)
