"""The tournaments' process manager: it starts a full tournament's table, records each
settled hand of it in the tournament (eliminations, the next ante level), and at the end
pays the prizes; a tournament not filled in time is cancelled and refunded.

Exactly once across replicas and after `kill -9`, without shared memory: every step is a
command keyed by what it reacts to (`hand:<tournament>:<table version>`,
`ante:<table>:<level>`, `create:`/`seat:` of the table, `prize:`/`refund:` transfer ids),
appended with the expected version; the tournament decider ignores a table version already
recorded, the table a level already applied, the wallet a transfer already credited. So any
replica may run any step any number of times. It is woken by the table observers (a settled
hand on a tournament table) and also polls the unfinished tournaments (`catch_up`): a
replica that restarts compares each one's last recorded table version with the table's head.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Sequence
from typing import NamedTuple

from events.codec import decode_table_event
from events.store.base import StoredEvent
from events.table import HandSettled, HandStarted, TableEvent
from events.tournament import TournamentSettings
from service.game.commands import ChangeAnte, CreateTable, SeatPlayers
from service.game.decider import evolve
from service.game.errors import GameError
from service.game.settings import TableSettings
from service.game.state import TableState
from service.game.tournament import decider as td
from service.game.tournament.state import TournamentState
from service.tables.repo import TableRepo
from service.tables.tournaments import Registrations, TournamentStore, table_id_for

log = logging.getLogger(__name__)

SeedSource = Callable[[], bytes]


def table_settings(s: TournamentSettings) -> TableSettings:
    """One table for the whole tournament: no rake, no pause beyond a second, the bet unit
    following the ante, every stack the same (buy-in bounds at the stack)."""
    return TableSettings(
        ante=s.antes[0], max_seats=s.seats, min_buy_in=s.stack, max_buy_in=s.stack,
        turn_seconds=s.turn_seconds, next_hand_seconds=1, rake_percent=0,
    )


class SettledHand(NamedTuple):
    version: int  # the table version of its `hand_settled`
    hand: int
    stacks: dict[int, int]  # after it, by user
    start: dict[int, int]  # at its start, by user
    at: float  # when the table's store recorded its `hand_settled`


def hands_after(stored: Sequence[StoredEvent]) -> list[SettledHand]:
    """Every settled hand of a table's stream, read from its first event."""
    out = []
    state: TableState | None = None
    start: dict[int, int] = {}
    for entry in stored:
        event: TableEvent = decode_table_event(entry.data)
        state = evolve(state, event)
        if isinstance(event, HandStarted):
            start = _stacks(state)
        elif isinstance(event, HandSettled):
            out.append(SettledHand(entry.version, event.number, _stacks(state), start, entry.at))
    return out


def _stacks(state: TableState) -> dict[int, int]:
    return {s.user_id: s.stack for s in state.seats if s is not None}


class TournamentManager:
    def __init__(
        self,
        tournaments: TournamentStore,
        registrations: Registrations,
        repo: TableRepo,
        *,
        seeds: SeedSource,
        poll_seconds: float = 0.5,
    ) -> None:
        self.t = tournaments
        self.reg = registrations
        self.repo = repo
        self.seeds = seeds
        self.poll_seconds = poll_seconds
        self._wake = asyncio.Event()
        self._due: set[str] = set()

    # -- wiring -------------------------------------------------------------------------------

    def observe(
        self, table_id: str, version: int, events: Sequence[TableEvent], state: TableState
    ) -> None:
        """A table observer: synchronous and cheap; a settled hand wakes the worker."""
        if state.tournament_id and any(isinstance(e, HandSettled) for e in events):
            self._due.add(state.tournament_id)
            self._wake.set()

    async def run(self, stopping: asyncio.Event) -> None:
        """The worker: until `stopping` is set (a flag, since a cancellation may be
        swallowed on its way down), catch up whenever woken or every `poll_seconds`."""
        while not stopping.is_set():
            try:
                await self.catch_up()
            except Exception:  # a store outage: the next round tries again
                log.warning("tournament catch-up failed", exc_info=True)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll_seconds):
                    await self._wake.wait()
            self._wake.clear()

    # -- the steps ----------------------------------------------------------------------------

    async def catch_up(self) -> None:
        """Advance every tournament that is not over (woken ones first)."""
        due, self._due = self._due, set()
        ids = list(due)
        after = ""
        while True:
            rows, cursor = await self.t.store.index_page(self.t.index, after=after, limit=200)
            for member, value in rows:
                if value is not None and not json.loads(value).get("paid", False):
                    ids.append(member)  # not over: registering, running, or not yet paid
            if cursor is None:
                break
            after = cursor
        failed = 0
        for tournament_id in dict.fromkeys(ids):
            # one tournament that cannot advance now (a store hiccup, a refusal) must not
            # hold up the others behind it in the index: it is tried again next round
            try:
                await self.advance(tournament_id)
            except Exception:
                failed += 1
                log.warning("tournament %s could not advance", tournament_id, exc_info=True)
        if failed:
            log.warning("%d tournament(s) could not advance; the next round tries again", failed)

    async def advance(self, tournament_id: str) -> TournamentState | None:
        """Run every step that is due for this tournament; each is safe to repeat."""
        _, state = await self.t.load(tournament_id)
        if state is None:
            return None
        now = self.t.clock()
        if state.status == "registering":
            if state.full:
                state = await self.start_table(state)
            elif now >= state.fill_deadline:
                state = await self.t.execute(
                    tournament_id, lambda: td.Cancel(now=self.t.clock()),
                    action_id=f"cancel:{tournament_id}",
                )
        if state is not None and state.status == "running":
            state = await self.record_hands(state)
        if state is not None and state.status in ("finished", "cancelled") and not state.paid:
            state = await self.pay(state)
        return state

    async def start_table(self, state: TournamentState) -> TournamentState | None:
        tid = state.tournament_id
        table_id = table_id_for(tid, self.repo.store.indexable, self.repo.streams.namespace)
        started = await self.t.execute(
            tid, lambda: td.Start(table_id=table_id, now=self.t.clock()),
            action_id=f"start:{tid}",
        )
        assert started is not None
        await self.ensure_table(started)
        return started

    async def ensure_table(self, state: TournamentState) -> None:
        table_id = state.table_id
        assert table_id is not None
        settings = table_settings(state.settings)
        try:
            await self.repo.execute(
                table_id,
                lambda: CreateTable(
                    table_id=table_id, settings=settings, created_by=state.created_by,
                    now=self.t.clock(), seed=self.seeds(), tournament_id=state.tournament_id,
                ),
                action_id=f"create:{table_id}",
            )
        except Exception as error:  # created already (by another replica's same step)
            if getattr(error, "code", "") not in ("table_exists",):
                raise
        players = tuple((u, state.entries[u].name) for u in state.players)
        await self.repo.execute(
            table_id,
            lambda: SeatPlayers(
                players=players, stack=state.settings.stack, now=self.t.clock(),
                seed=self.seeds(),
            ),
            action_id=f"seat:{table_id}",
        )

    async def record_hands(self, state: TournamentState) -> TournamentState | None:
        table_id = state.table_id
        assert table_id is not None
        stream = self.repo.streams.table(table_id)
        head = await self.repo.store.version(stream)
        if head == 0:
            await self.ensure_table(state)
        elif head <= state.table_version:  # nothing new since the last hand recorded
            return await self.sync_ante(state)
        after: TournamentState | None = state
        for hand in hands_after(await self.repo.store.read(stream)):
            if after is None or after.status != "running" or hand.version <= after.table_version:
                continue
            # the hand's own settle time (the table store's), so every replica and every
            # catch-up decide the same level whenever they get to it
            record = td.RecordHand(
                table_version=hand.version, hand=hand.hand, stacks=hand.stacks,
                start_stacks=hand.start, settled_at=hand.at, now=hand.at,
            )
            after = await self.t.execute(
                state.tournament_id, lambda r=record: r,  # type: ignore[misc]
                action_id=f"hand:{state.tournament_id}:{hand.version}",
            )
        if after is not None and after.status == "running":
            await self.sync_ante(after)
        return after

    async def sync_ante(self, state: TournamentState) -> TournamentState:
        """The table's level follows the tournament's (`ante_changed`, once per level)."""
        if state.level > 1 and state.table_id is not None:
            level, ante = state.level, state.ante
            try:
                await self.repo.execute(
                    state.table_id,
                    lambda: ChangeAnte(ante=ante, level=level, now=self.t.clock()),
                    action_id=f"ante:{state.table_id}:{level}",
                )
            except GameError:
                log.warning("ante change refused", exc_info=True)
        return state

    async def pay(self, state: TournamentState) -> TournamentState | None:
        """Credit every prize (or refund), then mark the pool paid: a crash in between
        credits nothing twice (the transfer ids) and the next round marks it."""
        tid = state.tournament_id
        if state.status == "finished":
            for user_id, amount in state.prizes.items():
                await self.reg.credit(user_id, tid, td.prize_id(tid, user_id), amount)
        else:
            for user_id, entry in state.entries.items():
                rid = td.refund_id(tid, entry.transfer_id)
                await self.reg.credit(user_id, tid, rid, entry.amount)
        return await self.t.execute(
            tid, lambda: td.PayPrizes(now=self.t.clock()), action_id=f"paid:{tid}"
        )

