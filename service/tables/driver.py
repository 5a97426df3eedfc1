"""The per-process worker that makes tables move without a human: turn timeouts, the svara join
window, the next hand after a pause, and practice bots' turns.

Schedule: every table's next wake-up is `state.deadline` (a Tick) or, when a practice bot is
being waited on, now + think time. It learns of changes two ways: instantly from this process's
own appends (a repo hook), and by a periodic rescan of the table directory that compares
stream versions (other replicas' appends, and everything after a restart). Firing goes
through the ordinary command path with deterministic action ids (`tick:<version>`,
`bot:<version>`), so several processes firing at once append exactly one event: the version
check and the action id pick one winner, the decider refuses an early Tick with `not_due`.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
from collections.abc import Awaitable, Callable

from service import metrics
from service.game.commands import Tick
from service.game.errors import GameError
from service.game.state import TableState
from service.game.view import view as table_view
from service.tables.bank import DirectoryReader
from service.tables.bots import choose, is_bot, rng_for, waiting_on
from service.tables.directory import TableListed
from service.tables.facade import ServiceError
from service.tables.repo import TableRepo

log = logging.getLogger(__name__)

# (bot user id, bot name, table id, action id, type, amount) -> None
BotAct = Callable[[int, str, str, str, str, int | None], Awaitable[object]]
# (table id, bot user id, bot name) -> None: stand a broke bot up and buy it in again
BotRebuy = Callable[[str, int, str], Awaitable[object]]


def bot_seats(state: TableState) -> list[tuple[int, str]]:
    return [(s.user_id, s.name) for s in state.seats if s is not None and is_bot(s.user_id)]


def humans_playing(state: TableState) -> bool:
    return any(s is not None and not is_bot(s.user_id) and not s.sat_out for s in state.seats)


def broke_bots(state: TableState) -> list[tuple[int, str]]:
    """Bots that cannot pay the ante, between hands (they buy in again to keep playing)."""
    if state.hand is not None and state.hand.phase != "settled":
        return []
    ante = state.settings.ante
    return [
        (s.user_id, s.name)
        for s in state.seats
        if s is not None and is_bot(s.user_id) and s.stack < ante
    ]


class Driver:
    def __init__(
        self,
        repo: TableRepo,
        directory: DirectoryReader,
        *,
        clock: Callable[[], float],
        seeds: Callable[[], bytes],
        bot_act: BotAct,
        bot_rebuy: BotRebuy | None = None,
        bots_play_alone: bool = False,
        think_seconds: float = 1.0,
        poll_seconds: float = 0.25,
        rescan_seconds: float = 2.0,
        concurrency: int = 32,
    ) -> None:
        self.repo = repo
        self.directory = directory
        self.clock = clock
        self.seeds = seeds
        self.bot_act = bot_act
        self.bot_rebuy = bot_rebuy
        # Without a human at the table, bots stay idle (their turns time out and they sit
        # out), so forgotten practice tables cost nothing; the load benchmark turns this on.
        self.bots_play_alone = bots_play_alone
        self.think_seconds = think_seconds
        self.poll_seconds = poll_seconds
        self.rescan_seconds = rescan_seconds
        self._limit = asyncio.Semaphore(concurrency)
        self._heap: list[tuple[float, str, int]] = []
        self._plans: dict[str, tuple[int, float]] = {}  # table -> (version, wake-up time)
        self._seen: dict[str, int] = {}  # table -> last version planned for
        self._stuck: dict[str, int] = {}  # table -> version at which a bot action failed
        self._busy: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._kick = asyncio.Event()
        # When the loop looks at the heap next (by `clock`): a plan due later needs no kick.
        self._sleeping_until = float("-inf")
        self._stopping = False
        self.fired = 0  # timer and bot firings (for tests and the benchmark)

    # -- planning -----------------------------------------------------------------------------

    def notice(
        self, table_id: str, version: int, state: TableState, *, force: bool = False
    ) -> None:
        """Plan the table's next wake-up from its state at `version` (idempotent per version)."""
        if not force and self._seen.get(table_id, -1) >= version:
            return
        self._seen[table_id] = version
        wake = state.deadline
        if self._stuck.get(table_id) != version and self._bot_waited_on(state, version):
            current = self._plans.get(table_id)
            bot_wake = self.clock() + self.think_seconds
            if current is not None and current[0] == version:
                bot_wake = min(bot_wake, current[1])  # keep the think time already running
            wake = bot_wake if wake is None else min(wake, bot_wake)
        if wake is None:
            self._plans.pop(table_id, None)
            return
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
        if not self._bots_active(state):
            return False
        if self.bot_rebuy is not None and broke_bots(state):
            return True
        return any(
            waiting_on(table_view(state, user_id, version)) for user_id, _ in bot_seats(state)
        )

    async def rescan(self) -> None:
        """Compare every listed table's version with what was planned; reload the changed.

        Tables this process appends to, or follows through its event feed, are already
        planned at their latest version and cost nothing here but their share of one
        pipelined version read (when the store offers `versions`)."""
        entries = await self.directory.refresh()
        table_ids = [e.table_id for e in entries if isinstance(e, TableListed)]
        many = getattr(self.repo.store, "versions", None)
        if many is not None:
            streams = [self.repo.streams.table(t) for t in table_ids]
            versions: list[int] = await many(streams)
            changed = [
                t
                for t, v in zip(table_ids, versions, strict=True)
                if v != 0 and v != self._seen.get(t)
            ]
        else:
            changed = table_ids

        async def check(table_id: str) -> None:
            async with self._limit:
                if many is None:
                    version = await self.repo.store.version(self.repo.streams.table(table_id))
                    if version == 0 or version == self._seen.get(table_id):
                        return
                loaded = await self.repo.load(table_id)
                if loaded.state is not None:
                    self.notice(table_id, loaded.version, loaded.state)

        await asyncio.gather(*(check(t) for t in changed))

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
                self._stuck[table_id] = version
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
                self._stuck[table_id] = version
            return

    async def _fire_guarded(self, table_id: str) -> None:
        try:
            async with self._limit:
                await self.fire(table_id)
        except Exception:
            log.exception("driver failed at table %s; retrying later", table_id,
                          extra={"table": table_id})
            plan = self._plans.get(table_id)
            if plan is not None:
                retry_at = self.clock() + 1.0
                self._plans[table_id] = (plan[0], retry_at)
                heapq.heappush(self._heap, (retry_at, table_id, plan[0]))
        finally:
            self._busy.discard(table_id)

    # -- the loop -----------------------------------------------------------------------------

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        next_rescan = 0.0
        while not self._stopping:
            self._kick.clear()
            if loop.time() >= next_rescan:
                try:
                    await self.rescan()
                except Exception:
                    log.exception("driver rescan failed")
                next_rescan = loop.time() + self.rescan_seconds
            now = self.clock()
            while self._heap and self._heap[0][0] <= now:
                wake, table_id, version = heapq.heappop(self._heap)
                if self._plans.get(table_id) != (version, wake) or table_id in self._busy:
                    continue
                del self._plans[table_id]
                self._busy.add(table_id)
                task = asyncio.create_task(self._fire_guarded(table_id))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            timeout = min(self.poll_seconds, max(0.0, next_rescan - loop.time()))
            if self._heap:
                timeout = min(timeout, max(0.0, self._heap[0][0] - self.clock()))
            # asyncio.timeout, not wait_for: in 3.11 wait_for can swallow a cancellation that
            # arrives as the event is set, and the loop would never stop.
            self._sleeping_until = self.clock() + timeout
            try:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(timeout):
                        await self._kick.wait()
            finally:
                self._sleeping_until = float("-inf")

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
