"""One hand's events, read by the hands index (`service.tables.hands_index`): its entry gives
the state just before the hand and the versions it spans, so only the hand's own events are
read (one XRANGE), whatever the table's age.

A hand the index does not know (played before the index existed and not yet reindexed, or
an entry that does not decode) is found the slow way, by folding the whole log, and answers
the same; `svara reindex` writes the missing entries.
"""

from __future__ import annotations

import logging
from typing import NamedTuple

import msgspec

from events import table as ev
from events.codec import decode_table_event
from events.store.base import EventStore, StoredEvent
from events.table import TableEvent
from service.game.decider import evolve
from service.game.state import TableState, decode_state
from service.tables.facade import ServiceError
from service.tables.hands_index import HandEntry, hand_prefix, hands_index, parse_entry

log = logging.getLogger(__name__)


class HandLog(NamedTuple):
    number: int
    start: TableState | None  # the table just before the hand's `hand_started`
    stored: list[StoredEvent]  # hand_started .. hand_settled (or the newest event)
    events: list[TableEvent]
    settled: bool


def unknown_table(table_id: str) -> ServiceError:
    return ServiceError(404, "unknown_table", f"no table {table_id!r}")


def unknown_hand(hand: int) -> ServiceError:
    return ServiceError(404, "unknown_hand", f"no hand {hand} at this table")


def in_progress(hand: int) -> ServiceError:
    return ServiceError(409, "hand_in_progress", f"hand {hand} is not settled yet")


async def read_entry(
    store: EventStore, namespace: str, table_id: str, hand: int
) -> HandEntry | None:
    prefix = hand_prefix(hand)
    rows, _ = await store.index_page(hands_index(namespace, table_id), after=prefix, limit=2)
    values = {m: v for m, v in rows if m.startswith(prefix)}
    return parse_entry(hand, values.get(prefix + "a"), values.get(prefix + "b"))


def _decode_start(entry: HandEntry) -> TableState | None:
    if not entry.start:
        return None
    try:
        return decode_state(entry.start)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


async def load_hand(
    store: EventStore, stream: str, namespace: str, table_id: str, hand: int,
    *, entry: HandEntry | None = None,
) -> HandLog:
    """Hand `hand` of the table: 404 `unknown_table`/`unknown_hand`; an unsettled hand is
    returned with `settled` False (the caller decides whether that is a 409). `entry`: its
    index entry, when the caller has read it already."""
    if entry is None:
        entry = await read_entry(store, namespace, table_id, hand)
    if entry is not None and entry.first >= 1:
        start = _decode_start(entry)
        if start is not None or entry.first == 1:
            if entry.last is not None:
                stored = await store.read(stream, after=entry.first - 1,
                                          limit=entry.last - entry.first + 1)
            else:  # not settled by the index: the tail since its start tells
                stored = _through_settlement(await store.read(stream, after=entry.first - 1), hand)
            events = [decode_table_event(s.data) for s in stored]
            if events and type(events[0]) is ev.HandStarted:
                settled = type(events[-1]) is ev.HandSettled
                return HandLog(hand, start, stored, events, settled)
        log.warning("hand %s of %s: index entry unusable, reading the whole log", hand, table_id)
    return await _scan(store, stream, table_id, hand)


def _through_settlement(stored: list[StoredEvent], hand: int) -> list[StoredEvent]:
    for i, s in enumerate(stored):
        e = decode_table_event(s.data)
        if type(e) is ev.HandSettled and e.number == hand:
            return stored[: i + 1]
    return stored


async def _scan(store: EventStore, stream: str, table_id: str, hand: int) -> HandLog:
    """The slow way: fold the whole log up to the hand (no index entry for it)."""
    stored = await store.read(stream)
    if not stored:
        raise unknown_table(table_id)
    state: TableState | None = None
    start: TableState | None = None
    first = -1
    for i, s in enumerate(stored):
        e = decode_table_event(s.data)
        if type(e) is ev.HandStarted and e.number == hand:
            first, start = i, state
        elif first >= 0 and type(e) is ev.HandSettled and e.number == hand:
            part = stored[first : i + 1]
            return HandLog(hand, start, part, [decode_table_event(p.data) for p in part], True)
        state = evolve(state, e)
    if first < 0:
        raise unknown_hand(hand)
    part = stored[first:]
    return HandLog(hand, start, part, [decode_table_event(p.data) for p in part], False)
