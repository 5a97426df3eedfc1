"""The event store contract: what every implementation (Redis Streams, embedded) guarantees.

The store knows nothing of Svara. A *stream* is named by the caller (`table:<id>`,
`wallet:<user>`); each holds opaque event bytes at versions 1, 2, 3 ... See
docs/ARCHITECTURE.md, "The event log: guarantees"; `tests/store/contract.py` checks them for
every store.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Literal, Protocol

import msgspec


class StoredEvent(msgspec.Struct, frozen=True):
    version: int
    data: bytes  # the encoded event, exactly as appended
    at: float  # seconds since the epoch, as given by the appender
    hash: str  # lowercase hex sha256 chain hash of this entry (see events.store.chain)
    action_id: str | None = None
    chain: int = 1  # the entry's chain version: which formula its hash follows (2: `at` in it)


class AppendResult(msgspec.Struct, frozen=True):
    status: Literal["appended", "duplicate", "conflict"]
    # appended: the version of the last event written; duplicate: the version the first
    # attempt of this action_id wrote up to; conflict: the stream's current version.
    version: int
    # appended: the chain hash of each event written, in order (what the live feed hands its
    # sockets with the events, so a player can pin them); empty otherwise.
    hashes: tuple[str, ...] = ()


class Snapshot(msgspec.Struct, frozen=True):
    version: int
    data: bytes


class IndexOp(msgspec.Struct, frozen=True):
    """One change to an index kept beside the streams: `member` of `index` gets `score` (and
    `value`, if not empty), or leaves the index when `score` is None.

    Given to `append`, it is written in the same atomic step as the events (or not at all), so
    an entry always describes its stream's head; `set_index` writes it iff the stream is still
    at a given version. Indexes are read by score (`index_due`) or in member order
    (`index_page`, for entries that all have one score)."""

    index: str
    member: str
    score: float | None  # never NaN
    value: bytes = b""


class StoreUnavailable(Exception):
    """The backing store cannot be reached (the API answers 503). Nothing is ever half-written;
    if the connection died after an append was sent its outcome is unknown, and retrying it
    with the same action_id is safe (it answers `duplicate` if the first attempt landed)."""


class StoreFull(StoreUnavailable):
    """Redis refused a write at its memory limit (maxmemory with `noeviction`): nothing of it
    was written (an append is refused whole), reads still work, and writes succeed again once
    memory is freed. The API answers 503 `store_full`."""


class ChainBroken(Exception):
    """The stored hash chain does not match the stored bytes."""

    def __init__(self, stream: str, version: int, reason: str) -> None:
        super().__init__(f"{stream}: hash chain broken at version {version}: {reason}")
        self.stream = stream
        self.version = version
        self.reason = reason


class SubscriberTooSlow(Exception):
    """A subscriber's bounded queue overflowed; it should resume from its last version."""


class Batches(Protocol):
    """What `subscribe_batches` returns: an async iterator of event lists, which the consumer
    may tell that it holds some events already (they are then never yielded)."""

    last: int  # the newest version yielded or skipped

    def __aiter__(self) -> Batches: ...

    async def __anext__(self) -> list[StoredEvent]: ...

    def skip_to(self, version: int) -> None:
        """The consumer holds every event up to `version` (say, its own append's): never
        yield them. Only for versions the consumer really holds: it is not told of a gap."""
        ...

    def close(self) -> None: ...


class EventStore(Protocol):
    async def append(
        self,
        stream: str,
        events: Sequence[bytes],
        *,
        expected_version: int,
        action_id: str | None = None,
        at: float | None = None,
        index: Sequence[IndexOp] = (),
    ) -> AppendResult:
        """Append all of `events` (or none) iff the stream is at `expected_version`, and with
        them the `index` changes (the stream must be `indexable`).

        A known `action_id` returns `duplicate` with its first result and writes nothing; this
        is checked before the version, atomically, so racing retries write exactly once.
        """
        ...

    def indexable(self, stream: str) -> bool:
        """Whether appends to `stream` may carry index changes (always, except on a Cluster:
        there only streams in an index shard's slot; see `events.store.keys`)."""
        ...

    async def set_index(
        self, stream: str, *, expected_version: int, changes: Sequence[IndexOp]
    ) -> bool:
        """Write `changes` iff `stream` is at `expected_version` (atomically); whether it was."""
        ...

    async def drop_stream(
        self, stream: str, *, expected_version: int, indexes: Sequence[str] = ()
    ) -> bool:
        """Delete the stream (its events, action ids and snapshot) and every entry of each of
        `indexes` that lies beside it, in one atomic step, iff the stream is at
        `expected_version`; whether it was. Afterwards the stream reads as unknown (version
        0). For an archive that has written the stream out first: never part of serving."""
        ...

    async def index_due(
        self, index: str, upto: float, limit: int = 1000
    ) -> list[tuple[str, float]]:
        """Up to `limit` (member, score) of `index` with score <= `upto`, lowest first."""
        ...

    async def index_page(
        self, index: str, after: str = "", limit: int = 50
    ) -> tuple[list[tuple[str, bytes | None]], str | None]:
        """(member, value) of `index` in member order after `after`, and the cursor of the
        next page (None: no more). For indexes whose entries all have one score."""
        ...

    async def mark(self, index: str, member: str, score: float) -> None:
        """Put `member` in the marks index `index` (one sorted set, no stream involved)."""
        ...

    async def unmark(self, index: str, member: str) -> None: ...

    async def marked(
        self, index: str, upto: float = float("inf"), limit: int = 10000
    ) -> list[tuple[str, float]]:
        """(member, score) of the marks index with score <= `upto`, lowest first."""
        ...

    def stream_names(self, prefix: str) -> AsyncIterator[str]:
        """Every stream whose name starts with `prefix` (a keyspace scan: for rebuilding
        indexes, never for serving requests)."""
        ...

    async def find_action(self, stream: str, action_id: str) -> int | None:
        """The version an earlier append with this action_id wrote up to, if any."""
        ...

    async def read(
        self, stream: str, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events with version > after, in order (an unknown stream reads as empty)."""
        ...

    async def version(self, stream: str) -> int:
        """The stream's current version (0 for an unknown stream)."""
        ...

    def subscribe(self, stream: str, after: int) -> AsyncIterator[StoredEvent]:
        """Every event after `after`, then live ones: no loss, no duplicate, in order.

        Raises SubscriberTooSlow when the consumer falls behind its bounded queue.
        """
        ...

    def subscribe_batches(self, stream: str, after: int) -> Batches:
        """The same events as `subscribe`, in non-empty lists of consecutive events: whatever
        is at hand at once (a catch-up page, or everything one live read delivered)."""
        ...

    async def save_snapshot(self, stream: str, version: int, data: bytes) -> None:
        """Cache a folded state at `version`; never required for correctness."""
        ...

    async def load_snapshot(self, stream: str) -> Snapshot | None: ...

    async def verify(self, stream: str) -> int:
        """Recompute the hash chain; return the verified version or raise ChainBroken."""
        ...

    async def ping(self) -> bool: ...

    async def close(self) -> None: ...
