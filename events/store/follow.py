"""`Follow`: one consumer's gap-free, in-order view of a stream, as batches.

It catches up with XRANGE pages, then takes what the process's XREAD reader (the hub)
delivers. The hand-over is exact because `last` is tracked here: live events at or below it
are dropped, and a gap (the reader was already past us) is fetched with XRANGE.

`skip_to(version)` is for a consumer that got events by other means -- the service hands its
own appends to its sockets straight from the append's reply. The follow then never yields
them, its subscription drops them when the reader brings them (no wake-up), and the reader
stops asking Redis for them once no subscriber of that stream still wants them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from events.store.base import StoredEvent, SubscriberTooSlow

if TYPE_CHECKING:
    from events.store.hub import Hub, Subscription

Read = Callable[[str, int, int], Awaitable[list[StoredEvent]]]


class Follow:
    """An async iterator of non-empty lists of consecutive events after `after`."""

    def __init__(self, read: Read, hub: Hub, stream: str, key: str, after: int,
                 page: int) -> None:
        self._read = read
        self._hub = hub
        self._stream = stream
        self._key = key
        self._page = page
        self.last = after  # the newest version yielded (or skipped)
        self._sub: Subscription | None = None
        self._caught_up = False
        self._gap_to = 0  # after registering: the hub's position, to be read with XRANGE
        self._closed = False

    def __aiter__(self) -> Follow:
        return self

    async def __anext__(self) -> list[StoredEvent]:
        if self._closed:
            raise StopAsyncIteration
        try:
            while True:
                batch = await self._next()
                if batch:
                    return batch
        except BaseException:
            self.close()
            raise

    async def _next(self) -> list[StoredEvent]:
        if not self._caught_up:
            batch = await self._read(self._stream, self.last, self._page)
            if len(batch) < self._page:
                self._caught_up = True
                self._sub, self._gap_to = self._hub.register(self._key, self.last)
                self._sub.floor = self.last
            return self._took(batch)
        sub = self._sub
        assert sub is not None
        if self._gap_to > self.last:
            batch = await self._read(self._stream, self.last, min(self._page,
                                                                 self._gap_to - self.last))
            if not batch:
                self._gap_to = 0
            return self._took(batch)
        live = await sub.next_batch()
        out: list[StoredEvent] = []
        for event in live:
            if event.version <= self.last:
                continue
            if event.version > self.last + 1:
                missed = await self._read(self._stream, self.last, event.version - 1 - self.last)
                out += missed
                if missed:
                    self.last = missed[-1].version
                if event.version != self.last + 1:
                    raise SubscriberTooSlow(
                        f"{self._stream}: could not fill gap before {event.version}"
                    )
            out.append(event)
            self.last = event.version
        return out

    def _took(self, batch: list[StoredEvent]) -> list[StoredEvent]:
        if batch and batch[0].version <= self.last:  # skip_to() moved past part of it
            batch = [e for e in batch if e.version > self.last]
        if batch:
            self.last = batch[-1].version
        return batch

    def skip_to(self, version: int) -> None:
        """The consumer holds every event up to `version` already: never yield those."""
        if version <= self.last:
            return
        self.last = version
        sub = self._sub
        if sub is not None:
            sub.floor = max(sub.floor, version)
            self._hub.skipped(self._key)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._sub is not None:
            self._hub.unregister(self._key, self._sub)
            self._sub = None
