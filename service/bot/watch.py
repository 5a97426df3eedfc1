"""The bot's eye on the tables: an observer on `TableService.observers` that turns what this
process learns of the tables into notifications (turn pings, timeout notices, group results),
and on the tournaments' observers (a group's final standings).

The observer runs synchronously on the command path, so it only looks at the events and the
state and starts a task; the tasks do the reading and sending. Versions this process has
already looked at are skipped (a feed may fold an event before its append's reply arrives).
Tasks still running at shutdown get `drain_seconds` to finish, then are cancelled.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Coroutine, Sequence
from typing import Any

from events.table import PlayerSatOut, TableEvent, TimedOut
from events.tournament import AnyTournamentEvent
from service.bot.notices import TimeoutNotices, is_missed_turn
from service.bot.pings import Pings, Turn, current_turn
from service.bot.ports import LiveTables
from service.bot.results import GroupResults, outcome_of, settled_in
from service.bot.tournament_notices import TournamentNotices, tournament_seated
from service.bot.tournament_standings import GroupStandings, group_finished
from service.game.state import TableState
from service.game.tournament.state import TournamentState

log = logging.getLogger(__name__)

REMEMBERED_TABLES = 10_000


class TableWatch:
    def __init__(
        self,
        tables: LiveTables,
        pings: Pings,
        notices: TimeoutNotices,
        results: GroupResults,
        *,
        drain_seconds: float = 3.0,
    ) -> None:
        self.tables = tables
        self.pings = pings
        self.notices = notices
        self.results = results
        self.tournaments = TournamentNotices(notices.reach)
        self.standings = GroupStandings(notices.reach, results.groups)
        self.drain_seconds = drain_seconds
        self._seen: OrderedDict[str, int] = OrderedDict()  # table -> newest version looked at
        self._turns: dict[str, Turn | None] = {}  # table -> the turn last looked at
        self._tasks: set[asyncio.Task[None]] = set()
        self._running = False

    def start(self) -> None:
        if not self._running:
            self._running = True
            self.tables.observers.append(self)
            if self.tables.tournaments is not None:
                self.tables.tournaments.observers.append(self.tournament_changed)

    async def stop(self) -> None:
        if self._running:
            self._running = False
            self.tables.observers.remove(self)
            if self.tables.tournaments is not None:
                self.tables.tournaments.observers.remove(self.tournament_changed)
        self.pings.stop()
        if self._tasks:
            _, pending = await asyncio.wait(set(self._tasks), timeout=self.drain_seconds)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    def __call__(
        self, table_id: str, first: int, events: Sequence[TableEvent], state: TableState
    ) -> None:
        newest = first + len(events) - 1
        seen = self._seen.get(table_id, 0)
        if newest <= seen:
            return
        if first <= seen:
            events = events[seen - first + 1 :]
            first = seen + 1
        self._remember(table_id, newest)
        try:
            self._look(table_id, first, events, state)
        except Exception:  # never let the bot break a command
            log.exception("the bot's watch failed at %s", table_id)

    def tournament_changed(
        self, tournament_id: str, events: Sequence[AnyTournamentEvent], state: TournamentState
    ) -> None:
        """A tournament observer: a group's tournament just ended, post its standings."""
        if group_finished(events, state):
            self._spawn(self.standings.finished(state))

    def _look(
        self, table_id: str, first: int, events: Sequence[TableEvent], state: TableState
    ) -> None:
        for index, event in enumerate(events):
            if isinstance(event, TimedOut) and is_missed_turn(event):
                sat_out = any(
                    isinstance(later, PlayerSatOut) and later.user_id == event.user_id
                    for later in events[index + 1 :]
                )
                self._spawn(
                    self.notices.timed_out(table_id, first + index, event, sat_out=sat_out)
                )
        seated = tournament_seated(events, state)
        if seated:
            self._spawn(self.tournaments.started(table_id, seated))
        for _, settled, showdown in settled_in(events):
            self._spawn(self.results.settled(outcome_of(table_id, settled, showdown, state)))
        turn = current_turn(table_id, state)
        if turn != self._turns.get(table_id):
            self._turns[table_id] = turn
            self.pings.table_changed(table_id)
            if turn is not None and self.pings.wanted(turn):
                assert state.hand is not None
                self._spawn(self.pings.turn_started(turn, state.hand.pot))

    def _remember(self, table_id: str, version: int) -> None:
        self._seen[table_id] = version
        self._seen.move_to_end(table_id)
        while len(self._seen) > REMEMBERED_TABLES:
            gone, _ = self._seen.popitem(last=False)
            self._turns.pop(gone, None)

    def _spawn(self, job: Coroutine[Any, Any, None]) -> None:
        if not self._running:
            job.close()
            return
        task = asyncio.get_running_loop().create_task(job)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a bot notification failed", exc_info=task.exception())
