"""The service's background workers in one process: the timer and practice-bot worker
(`driver`), the transfer reconciler, the one-off index build and the presence sweeper; how
they start, how they stop, and the reconciler's pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence

from events.store.base import EventStore
from service.tables.driver import Driver
from service.tables.indexing import Indexes
from service.tables.live import Feeds
from service.tables.presence import Presence
from service.tables.streams import Streams
from service.tables.transfers import Transfers, parse_mark

log = logging.getLogger(__name__)


class Workers:
    def __init__(
        self,
        store: EventStore,
        streams: Streams,
        *,
        driver: Driver,
        transfers: Transfers,
        indexes: Indexes,
        presence: Presence,
        feeds: Feeds,
        reconcile_seconds: float,
        also: Sequence[Callable[[asyncio.Event], asyncio.Task[None]]] = (),
    ) -> None:
        self.store = store
        self.streams = streams
        self.driver = driver
        self.transfers = transfers
        self.indexes = indexes
        self.presence = presence
        self.feeds = feeds
        self.reconcile_seconds = reconcile_seconds
        self.also = also  # more workers, each started with the stop signal (tournaments)
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = asyncio.Event()

    async def start(self) -> None:
        """Launch this process's timer/practice-bot worker and the transfer reconciler."""
        if self._tasks:
            return
        self._stopping.clear()
        self.driver.restart()
        self._tasks = [
            asyncio.create_task(self.driver.run(), name="svara-driver"),
            asyncio.create_task(self._reconcile_forever(), name="svara-reconciler"),
            asyncio.create_task(self.indexes.ready(self._stopping), name="svara-indexes"),
            asyncio.create_task(self.presence.run(self._stopping), name="svara-presence"),
            *(start(self._stopping) for start in self.also),
        ]

    async def stop(self) -> None:
        """Stop the workers: a stop flag first, then cancellation.

        The flag is what guarantees it: a cancellation can be swallowed on its way down (on
        Python 3.11 `asyncio.wait_for` -- which fakeredis uses for every reply -- returns the
        result instead of raising when the cancel lands just as the reply is ready), and a
        worker that only obeyed cancellation then went back to sleep and was awaited forever.
        """
        tasks, self._tasks = self._tasks, []
        self._stopping.set()
        self.feeds.close()
        self.driver.stop()
        for task in tasks:
            task.cancel()
        # gather, not `suppress(CancelledError): await task`: that would also swallow a
        # cancellation of stop() itself (e.g. a caller's timeout).
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.driver.drain()

    async def _reconcile_forever(self) -> None:
        while not self._stopping.is_set():
            try:
                await self.reconcile(until=self._stopping)
            except Exception:
                log.exception("reconciler pass failed")
            # Sleep on the stop flag, not asyncio.sleep: stop() wakes it even if the
            # cancellation meant for this task was swallowed during the pass above.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.reconcile_seconds):
                    await self._stopping.wait()

    async def reconcile(self, *, until: asyncio.Event | None = None) -> int:
        """One reconciler pass over the wallets with a transfer marked in flight (never every
        wallet): finish half-done transfers, forget the marks of finished ones. Returns how
        many transfers it finished."""
        marks: dict[int, list[tuple[str, float]]] = {}
        for member, marked_at in await self.store.marked(self.streams.transfers):
            parsed = parse_mark(member)
            if parsed is not None:
                marks.setdefault(parsed[0], []).append((parsed[1], marked_at))
        finished = 0
        for user_id, transfers in sorted(marks.items()):
            if until is not None and until.is_set():
                break  # stopping: the next process's reconciler finishes the rest
            try:
                finished += await self.transfers.reconcile_wallet(user_id)
                await self.transfers.forget_finished(user_id, transfers)
            except Exception:
                log.exception("reconciling the wallet of %s failed", user_id)
        return finished
