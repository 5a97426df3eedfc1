"""The settled hands as records: replays, transcripts and a player's own list of hands, and
the upkeep of the indexes they are read by (`service.tables.hands_index`).

`batch_changes` is the repo's hand indexer: for an append that starts or settles a hand it
computes the entries to write with the events, in the same atomic call (with, for a
settlement, the stats projection's due member). A settlement needs
the hand from its start (who was dealt in, what each put in): the hand's entry and its events
so far, two reads, once per hand. `reindex` rebuilds every entry of a table from its log.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence

import msgspec

from events import table as ev
from events.codec import decode_table_event
from events.store.base import EventStore, IndexOp
from events.table import TableEvent
from service.game.state import TableState
from service.tables.facade import JSON, ServiceError, User
from service.tables.hand_log import (
    HandLog,
    in_progress,
    load_hand,
    read_entry,
    unknown_hand,
    unknown_table,
)
from service.tables.hands_index import HandTracker, fold_tracked, user_hands_index
from service.tables.profiles import DEFAULT_LANGUAGE, LANGUAGES, Profile, effective_language
from service.tables.replay import replay_answer
from service.tables.repo import TableRepo, touches_hands
from service.tables.stats.projector import due_op
from service.tables.streams import Streams
from service.tables.tombstones import Tombstones
from service.tables.transcript import transcript

log = logging.getLogger(__name__)

MAX_PAGE = 100
TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_CHUNK = 200  # index changes per set_index call when rebuilding


class HandRecords:
    def __init__(
        self,
        store: EventStore,
        streams: Streams,
        repo: TableRepo,
        profile: Callable[[int], Awaitable[Profile]],
        tombstones: Tombstones | None = None,
    ) -> None:
        self.store = store
        self.tombstones = tombstones
        self.profile = profile
        self.streams = streams
        self.repo = repo

    # -- reading ------------------------------------------------------------------------------

    async def settled_hand(self, table_id: str, hand: int) -> HandLog:
        """Settled hand `hand` (404 unknown table or hand, 409 `hand_in_progress`)."""
        if not isinstance(table_id, str) or not TABLE_ID.match(table_id):
            raise unknown_table(str(table_id))
        if not isinstance(hand, int) or isinstance(hand, bool) or hand < 1:
            raise unknown_hand(hand)
        stream, namespace = self.streams.table(table_id), self.streams.namespace
        entry = await read_entry(self.store, namespace, table_id, hand)
        if entry is not None and entry.last is not None:  # settled, says the index: 2 reads
            found = await load_hand(self.store, stream, namespace, table_id, hand, entry=entry)
            if found.settled:
                return found
        loaded = await self.repo.load(table_id)
        state = loaded.state
        if state is None:
            raise unknown_table(table_id)
        if hand < 1 or hand > state.hand_number:
            raise unknown_hand(hand)
        current = state.hand
        if hand == state.hand_number and current is not None and current.phase != "settled":
            raise in_progress(hand)
        found = await load_hand(
            self.store, self.streams.table(table_id), self.streams.namespace, table_id, hand
        )
        if not found.settled:
            raise in_progress(hand)
        return found

    async def replay(self, user: User | None, table_id: str, hand: int) -> JSON:
        found = await self.settled_hand(table_id, hand)
        return replay_answer(table_id, found, user.id if user is not None else None)

    async def transcript(
        self, user: User | None, table_id: str, hand: int, language: str | None
    ) -> str:
        """The readable history of settled hand `hand`, in `language` (default: the caller's,
        as `me` answers it)."""
        if language is None:
            language = DEFAULT_LANGUAGE if user is None else effective_language(
                await self.profile(user.id), user.language_code)
        elif language not in LANGUAGES:
            raise ServiceError(400, "unknown_language", f"no language {language!r}")
        return transcript(table_id, await self.settled_hand(table_id, hand), language)

    async def my_hands(self, user: User, cursor: str | None, limit: int) -> JSON:
        """A page of the player's settled hands, newest first, every table (closed ones too)."""
        if not 1 <= limit <= MAX_PAGE:
            raise ServiceError(400, "invalid_parameter", f"limit must be 1 to {MAX_PAGE}")
        rows, after = await self.store.index_page(
            user_hands_index(self.streams.namespace, user.id), after=cursor or "", limit=limit
        )
        hands: list[JSON] = []
        for _, value in rows:
            if value is None:
                continue
            try:
                item = msgspec.json.decode(value)
            except msgspec.DecodeError:
                continue
            if isinstance(item, dict):
                hands.append(item)
        # A hand of an archived table stays listed (the row is the player's, not the
        # table's), marked so the app does not offer a replay the API answers with 410.
        if self.tombstones is not None and hands:
            gone = await self.tombstones.archived(str(h.get("table_id")) for h in hands)
            for h in hands:
                if h.get("table_id") in gone:
                    h["archived"] = True
        return {"hands": hands, "next": after}

    # -- upkeep -------------------------------------------------------------------------------

    async def batch_changes(
        self,
        table_id: str,
        before: TableState | None,
        events: Sequence[TableEvent],
        first_version: int,
        at: float,
    ) -> list[IndexOp]:
        """The entries an append of `events` (from `first_version`) onto `before` implies."""
        if not touches_hands(events):
            return []
        tracker = HandTracker(self.streams.namespace, table_id)
        open_hand = before.hand if before is not None else None
        settles_open = open_hand is not None and any(
            type(e) is ev.HandSettled and e.number == open_hand.number for e in events
        )
        if settles_open and open_hand is not None:
            so_far = await load_hand(
                self.store, self.streams.table(table_id), self.streams.namespace, table_id,
                open_hand.number,
            )
            fold_tracked(tracker, so_far.start, so_far.events, so_far.stored[0].version,
                         [s.at for s in so_far.stored])  # fmt: skip
        _, ops = fold_tracked(tracker, before, events, first_version, float(at))
        # the stats projection's to-do, written with the settlement (`stats.projector`)
        ops += [due_op(self.streams.namespace, table_id, e.number, at)
                for e in events if type(e) is ev.HandSettled]  # fmt: skip
        return ops

    async def reindex(self, table_id: str) -> int:
        """Write every hand entry of the table from its log (entries of settled hands never
        change, so a table that moves meanwhile only adds to them: its tail is folded too).
        Returns how many entries it wrote."""
        stream = self.streams.table(table_id)
        if not self.store.indexable(stream):
            return 0
        tracker = HandTracker(self.streams.namespace, table_id)
        state: TableState | None = None
        version = 0
        pending: list[IndexOp] = []
        written = 0
        for _ in range(50):
            stored = await self.store.read(stream, after=version)
            if stored:
                events = [decode_table_event(s.data) for s in stored]
                state, ops = fold_tracked(tracker, state, events, stored[0].version,
                                          [s.at for s in stored])  # fmt: skip
                pending += ops
                version = stored[-1].version
            while pending:
                chunk = pending[:_CHUNK]
                if not await self.store.set_index(stream, expected_version=version,
                                                  changes=chunk):  # fmt: skip
                    break  # the table moved: fold its tail, then go on
                pending = pending[_CHUNK:]
                written += len(chunk)
            if not pending:
                return written
        raise ServiceError(503, "busy", f"table {table_id} kept moving while it was indexed")
