"""The per-process worker that makes tables move without a human: turn timeouts, the svara join
window, the next hand after a pause, closing a table left empty for its idle limit, and
practice bots' turns.

Schedule: every table's next wake-up is `state.deadline` (a Tick) or, when a practice bot is
being waited on, its think time (`wake_for`). That time is written into the store's wake index
with every append, atomically with the events (`service.tables.index`), so the schedule lives
in Redis beside the streams, not in a process: every replica asks the index what is due
(`poll`, every `poll_seconds`), so a deadline set by any replica, or before a restart, or
that fell inside an outage, fires once the store answers again -- it stays due in the index
until an append moves it. Finished and closed tables are not in the index and cost nothing.
Tables this process appends to (or follows) are also planned locally (`notice`), so they fire
on the dot rather than at the next poll.

Firing goes through the ordinary command path with deterministic action ids (`tick:<version>`,
`bot:<version>`), so several processes firing at once append exactly one event: the version
check and the action id pick one winner, the decider refuses an early Tick with `not_due`. A
firing that fails (the store down) is retried after `retry_seconds`, from the local plan and
from the index alike; one that finds nothing to do corrects the index entry, so a stale entry
is not fired again and again.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import time
from collections.abc import Awaitable, Callable

from events.store.base import EventStore, IndexOp
from service import metrics
from service.game.commands import Tick
from service.game.errors import GameError
from service.game.state import TableState
from service.game.view import view as table_view
from service.tables.bots import bot_seats, broke_bots, choose, humans_playing, rng_for, waiting_on
from service.tables.facade import ServiceError
from service.tables.index import full_changes, lobby_removals
from service.tables.repo import TableRepo

log = logging.getLogger(__name__)

# (bot user id, bot name, table id, action id, type, amount) -> None
BotAct = Callable[[int, str, str, str, str, int | None], Awaitable[object]]
# (table id, bot user id, bot name) -> None: stand a broke bot up and buy it in again
BotRebuy = Callable[[str, int, str], Awaitable[object]]


class Driver:
    def __init__(
        self,
        repo: TableRepo,
        store: EventStore,
        *,
        clock: Callable[[], float],
        seeds: Callable[[], bytes],
        bot_act: BotAct,
        bot_rebuy: BotRebuy | None = None,
        bots_play_alone: bool = False,
        think_seconds: float = 1.0,
        poll_seconds: float = 0.5,
        retry_seconds: float = 1.0,
        concurrency: int = 32,
        due_limit: int = 500,
    ) -> None:
        self.repo = repo
        self.store = store
        self.wake_index = repo.streams.wake
        self.lobby_index = repo.streams.lobby
        self.clock = clock
        self.seeds = seeds
        self.bot_act = bot_act
        self.bot_rebuy = bot_rebuy
        # Without a human at the table, bots stay idle (their turns time out and they sit
        # out), so forgotten practice tables cost nothing; the load benchmark turns this on.
        self.bots_play_alone = bots_play_alone
        self.think_seconds = think_seconds
        self.poll_seconds = poll_seconds
        self.retry_seconds = retry_seconds
        self.due_limit = due_limit
        self._limit = asyncio.Semaphore(concurrency)
        self._heap: list[tuple[float, str, int]] = []
        self._plans: dict[str, tuple[int, float]] = {}  # table -> (version, wake-up time)
        self._seen: dict[str, int] = {}  # table -> last version planned for
        # table -> (version, state, wake): `wake_for`'s answer for that very state
        self._wakes: dict[str, tuple[int, TableState, float | None]] = {}
        self._stuck: dict[str, int] = {}  # table -> version at which a bot action failed
        # After a failed firing, by the event loop's clock (real time, whatever `clock` says:
        # a test's clock may stand still): table -> no firing before; and when to retry.
        self._not_before: dict[str, float] = {}
        self._retries: list[tuple[float, str]] = []
        self._busy: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._kick = asyncio.Event()
        # When the loop looks at the heap next (by `clock`): a plan due later needs no kick.
        self._sleeping_until = float("-inf")
        self._stopping = False
        self._poll_failing_since: float | None = None
        self._poll_logged = 0.0
        self.fired = 0  # timer and bot firings (for tests and the benchmark)
        self.polls = 0  # index polls answered (tests wait on this to show an absence)
        self.poll_failures = 0  # index polls that failed (the store down)
        self.failures = 0  # firings that raised (the store down, a bug)

    # -- planning -----------------------------------------------------------------------------

    def wake_for(self, table_id: str, version: int, state: TableState) -> float | None:
        """When the table at `version` next needs this worker: its deadline, or a practice
        bot's think time when a bot is waited on (None: never). The same answer for a version
        however often it is asked about the same state (the index entry written with an append
        and the plan made from its reply agree; an append that lost the race is not the
        state the version ended up with)."""
        known = self._wakes.get(table_id)
        if known is not None and known[0] == version and known[1] is state:
            return known[2]
        wake = state.deadline
        if self._stuck.get(table_id) != version and self._bot_waited_on(state, version):
            bot_wake = self.clock() + self.think_seconds
            wake = bot_wake if wake is None else min(wake, bot_wake)
        if len(self._wakes) > 65536:
            self._wakes.clear()
        self._wakes[table_id] = (version, state, wake)
        return wake

    def wake_change(
        self, table_id: str, before: TableState | None, version: int, after: TableState
    ) -> tuple[float | None, bool]:
        """(`wake_for` the table at `version` in state `after`, whether the index entry may
        need writing): not when this process worked out the same wake for exactly `before`,
        which is what the entry says while `before` is the table's head (a look keeps the
        deadline)."""
        known = self._wakes.get(table_id)
        wake = self.wake_for(table_id, version, after)
        if known is not None and before is not None and known[1] is before:
            return wake, known[2] != wake
        return wake, True

    def notice(
        self, table_id: str, version: int, state: TableState, *, force: bool = False
    ) -> None:
        """Plan the table's next wake-up from its state at `version` (idempotent per version)."""
        if not force and self._seen.get(table_id, -1) >= version:
            return
        self._seen[table_id] = version
        wake = self.wake_for(table_id, version, state)
        if wake is None:
            self._plans.pop(table_id, None)
            return
        self._plan(table_id, version, wake)

    def _plan(self, table_id: str, version: int, wake: float) -> None:
        self._plans[table_id] = (version, wake)
        heapq.heappush(self._heap, (wake, table_id, version))
        if len(self._heap) > 2 * len(self._plans) + 1024:
            # Superseded plans stay in the heap until their time; drop them in bulk.
            self._heap = [(w, t, v) for t, (v, w) in self._plans.items()]
            heapq.heapify(self._heap)
        if wake < self._sleeping_until:
            self._kick.set()  # sooner than the loop's next look (a later one waits for it)

    def _bots_active(self, state: TableState) -> bool:
        return self.bots_play_alone or humans_playing(state)

    def _bot_waited_on(self, state: TableState, version: int) -> bool:
        bots = bot_seats(state)  # first: most tables have none (this runs with every append)
        if not bots or not self._bots_active(state):
            return False
        if self.bot_rebuy is not None and broke_bots(state):
            return True
        return any(waiting_on(table_view(state, user_id, version)) for user_id, _ in bots)

    async def poll(self) -> int:
        """Start a firing for every table the wake index says is due (and this process is not
        firing or holding back already). Returns how many were due."""
        due = await self.store.index_due(self.wake_index, self.clock(), self.due_limit)
        self.polls += 1
        now = asyncio.get_running_loop().time()
        for table_id, _wake in due:
            if self._not_before.get(table_id, 0.0) <= now:
                self._start(table_id)
        return len(due)

    # -- firing -------------------------------------------------------------------------------

    async def fire(self, table_id: str) -> None:
        """Do what is due at the table now: a Tick past the deadline, else one bot's action.

        A Tick is decided on the cached state when that says it is due (the process's feed
        and its own appends keep it current): the append is version-checked and its action id
        names that version, so a stale cache costs a conflict and a reload, never a second
        Tick. Anything else (bots) reads the table first."""
        loaded = self.repo.cached(table_id)
        if loaded is None or loaded.state is None or not self._due(loaded.state):
            loaded = await self.repo.load(table_id)
        state = loaded.state
        if state is None:
            await self._correct(table_id, 0, None)  # an entry for a table that is not there
            return
        deadline = state.deadline
        if deadline is not None and self.clock() >= deadline:
            self.fired += 1
            try:
                outcome = await self.repo.execute(
                    table_id,
                    lambda: Tick(now=self.clock(), seed=self.seeds()),
                    action_id=f"tick:{loaded.version}",
                    retry=False,
                )
            except GameError as error:
                if error.code != "not_due":
                    log.warning("tick at %s refused: %s", table_id, error, extra={
                        "table": table_id, "version": loaded.version})
            else:
                if outcome.status == "appended":  # late by: deadline -> Tick written
                    metrics.timer_fired.inc()
                    metrics.timer_lag.observe(max(0.0, self.clock() - deadline))
                if outcome.status == "appended" and outcome.state is not None:
                    # Planned from the state the append produced: no second read.
                    self.notice(table_id, outcome.version, outcome.state, force=True)
                    return
        elif self._stuck.get(table_id) != loaded.version and self._bots_active(state):
            await self._bot_turn(table_id, loaded.version, state)
        again = await self.repo.load(table_id)
        if again.state is not None:
            self.notice(table_id, again.version, again.state, force=True)
            if again.version == loaded.version:  # nothing appended: is the entry right?
                await self._correct(table_id, again.version, again.state)

    async def _correct(self, table_id: str, version: int, state: TableState | None) -> None:
        """Rewrite the table's index entries as its state at `version` says, if the stream is
        still there: a due entry that led to nothing (a bot that cannot act, a deadline that
        moved, a replica's clock ahead of this one's) must not be due again at once."""
        if state is None:
            changes = [IndexOp(self.wake_index, table_id, None),
                       *lobby_removals(self.lobby_index, table_id)]
        else:
            wake = self.wake_for(table_id, version, state)
            if wake is not None and wake <= self.clock():
                return  # still due (another firing is coming): leave it
            changes = full_changes(self.lobby_index, self.wake_index, table_id, state, wake)
        stream = self.repo.streams.table(table_id)
        await self.store.set_index(stream, expected_version=version, changes=changes)

    def _due(self, state: TableState) -> bool:
        deadline = state.deadline
        return deadline is not None and self.clock() >= deadline

    async def _bot_turn(self, table_id: str, version: int, state: TableState) -> None:
        broke = broke_bots(state)
        if self.bot_rebuy is not None and broke:
            user_id, name = broke[0]
            self.fired += 1
            try:
                await self.bot_rebuy(table_id, user_id, name)
            except ServiceError as error:
                if error.status >= 500:
                    raise
                log.info("practice bot %s could not buy in again: %s", user_id, error.code)
                self._stuck_at(table_id, version)
            return
        for user_id, name in bot_seats(state):
            choice = choose(
                table_view(state, user_id, version), rng_for(table_id, version, user_id)
            )
            if choice is None:
                continue
            action, amount = choice
            self.fired += 1
            try:
                await self.bot_act(user_id, name, table_id, f"bot:{version}", action, amount)
            except ServiceError as error:
                if error.status >= 500:
                    raise
                # Another replica moved the table on, or the strategy was wrong: never loop
                # on this version; the turn timer still guarantees progress.
                log.info("practice bot %s at %s: %s", user_id, table_id, error.code)
                self._stuck_at(table_id, version)
            return

    def _stuck_at(self, table_id: str, version: int) -> None:
        self._stuck[table_id] = version
        self._wakes.pop(table_id, None)  # the wake at this version no longer waits on a bot

    async def _fire_guarded(self, table_id: str) -> None:
        try:
            async with self._limit:
                await self.fire(table_id)
        except Exception as error:
            self.failures += 1
            retry_at = asyncio.get_running_loop().time() + self.retry_seconds
            self._not_before[table_id] = retry_at
            log.warning("driver failed at table %s (%s); retrying in %s s", table_id,
                        _why(error), self.retry_seconds, extra={"table": table_id})
            # Retried whatever happened to the plan meanwhile (a plan is dropped when its
            # firing starts, so an outage used to lose it for good); the index entry is still
            # due too, for every replica.
            heapq.heappush(self._retries, (retry_at, table_id))
            self._kick.set()
        else:
            self._not_before.pop(table_id, None)
        finally:
            self._busy.discard(table_id)

    def _start(self, table_id: str) -> None:
        if table_id in self._busy:
            return
        self._busy.add(table_id)
        task = asyncio.create_task(self._fire_guarded(table_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- the loop -----------------------------------------------------------------------------

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        next_poll = 0.0
        while not self._stopping:
            self._kick.clear()
            if loop.time() >= next_poll:
                await self._poll_logged_once()
                next_poll = loop.time() + self.poll_seconds
            now = self.clock()
            while self._heap and self._heap[0][0] <= now:
                wake, table_id, version = heapq.heappop(self._heap)
                if self._plans.get(table_id) != (version, wake) or table_id in self._busy:
                    continue
                del self._plans[table_id]
                self._start(table_id)
            while self._retries and self._retries[0][0] <= loop.time():
                self._start(heapq.heappop(self._retries)[1])
            timeout = max(0.0, next_poll - loop.time())
            if self._heap:
                timeout = min(timeout, max(0.0, self._heap[0][0] - self.clock()))
            if self._retries:
                timeout = min(timeout, max(0.0, self._retries[0][0] - loop.time()))
            # asyncio.timeout, not wait_for: in 3.11 wait_for can swallow a cancellation that
            # arrives as the event is set, and the loop would never stop.
            self._sleeping_until = self.clock() + timeout
            try:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(timeout):
                        await self._kick.wait()
            finally:
                self._sleeping_until = float("-inf")

    async def _poll_logged_once(self) -> None:
        """Poll; an outage is logged when it starts, every 30 s while it lasts, and when it
        ends -- not on every poll."""
        try:
            await self.poll()
        except Exception as error:
            self.poll_failures += 1
            now = time.monotonic()
            if self._poll_failing_since is None:
                self._poll_failing_since = now
            if now - self._poll_logged >= 30.0:
                self._poll_logged = now
                log.warning("timer worker cannot read the wake index: %s", _why(error))
            return
        if self._poll_failing_since is not None:
            log.warning("timer worker reads the wake index again (after %.1f s)",
                        time.monotonic() - self._poll_failing_since)
            self._poll_failing_since = None
            self._poll_logged = 0.0

    def restart(self) -> None:
        self._stopping = False

    def stop(self) -> None:
        """Ask `run` to return at its next turn (cancelling it works too)."""
        self._stopping = True
        self._kick.set()

    async def drain(self) -> None:
        """Wait for firings in flight (stop() uses this so nothing is cut mid-append)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)


def _why(error: BaseException) -> str:
    cause = error.__cause__
    return f"{error}" + (f" <- {cause}" if cause is not None else "")
