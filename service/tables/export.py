"""The export of one settled hand: the self-contained file `svara verify FILE` checks offline.

Format `svara-hand-export`, version 1 (docs/FAIRNESS.md, "The export file", describes it for
people writing their own verifier):

    {"format": "svara-hand-export", "format_version": 1, "table_id", "hand", "exported_at",
     "settings":  the table's settings (as in its `table_created`),
     "seats":     [{"seat", "user_id", "name", "stack", "client_seed"}] -- the table just
                  before the first exported event (a summary for people; the checks use events),
     "prev_hash": the chain hash of the event before the first exported one ("0"*64: none),
     "events":    [entry] -- every event, consecutive, from the one that published the hand's
                  first commitment (the previous hand's `hand_settled`, or `table_created`; a
                  v1 hand: its `hand_started`) through the hand's `hand_settled`,
     "context":   [entry + "prev_hash"] -- earlier entries the hand depends on: `table_created`
                  and the `client_seed_set` in effect for each seated player}
    entry = {"version", "type", "at": the stored time text (hashed by chain v2), "chain": 1|2,
             "hash", "raw": the stored event bytes as text ("raw_b64" if not UTF-8)}

Only settled hands are exported, and nothing after the hand's `hand_settled`: the `seed_drawn`
that follows it holds the next hand's secret seed. Everything inside was public or revealed by
that settlement.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Sequence
from typing import Any

import msgspec

from events import table as ev
from events.codec import decode_table_event, event_type
from events.store.base import StoredEvent
from events.store.chain import ZERO_HASH, at_text
from events.table import TableEvent
from service.game.deck import ALGORITHM
from service.game.state import TableState
from service.tables.facade import JSON, ServiceError
from service.tables.repo import fold_onto

FORMAT = "svara-hand-export"
FORMAT_VERSION = 1


def decode_lenient(stored: Sequence[StoredEvent]) -> list[TableEvent | None]:
    """Every stored event decoded; None for bytes that are no event (tampering or damage: the
    audit reports them instead of failing)."""
    out: list[TableEvent | None] = []
    for s in stored:
        try:
            out.append(decode_table_event(s.data))
        except (msgspec.DecodeError, msgspec.ValidationError):
            out.append(None)
    return out


def readable(
    events: Sequence[TableEvent | None], stored: Sequence[StoredEvent], upto: int
) -> list[TableEvent]:
    """`events[:upto]`, all decoded, or 422 naming the first version that is not."""
    out: list[TableEvent] = []
    for i in range(upto):
        e = events[i]
        if e is None:
            raise ServiceError(
                422, "unreadable_log", f"the event at version {stored[i].version} is unreadable"
            )
        out.append(e)
    return out


def hand_range(events: Sequence[TableEvent | None], hand: int) -> tuple[int, int]:
    """Indexes of the hand's `hand_started` and `hand_settled` (404 / 409 otherwise)."""
    start = end = -1
    for i, event in enumerate(events):
        if type(event) is ev.HandStarted and event.number == hand:
            start = i
        elif type(event) is ev.HandSettled and event.number == hand:
            end = i
    if start < 0:
        raise ServiceError(404, "hand_not_found", f"no hand {hand} at this table")
    if end < 0:
        raise ServiceError(409, "hand_in_progress", f"hand {hand} is not settled yet")
    return start, end


def first_index(events: Sequence[TableEvent | None], start: int) -> int:
    """Where the hand's record begins: the event that published its first deal's commitment
    (v2), else the hand's own start (v1: the commitment is in `hand_started`)."""
    started = events[start]
    assert isinstance(started, ev.HandStarted)
    if started.algorithm == ALGORITHM:
        return start
    for i in range(start - 1, -1, -1):
        e = events[i]
        if isinstance(e, ev.HandSettled | ev.TableCreated):
            return i
    return start


def entry(stored: StoredEvent, event: TableEvent | None, prev_hash: str | None = None) -> JSON:
    out: JSON = {
        "version": stored.version,
        "type": event_type(event) if event is not None else "unreadable",
        "at": at_text(stored.at),
        "chain": stored.chain,
        "hash": stored.hash,
    }
    try:
        out["raw"] = stored.data.decode("utf-8")
    except UnicodeDecodeError:
        out["raw_b64"] = base64.b64encode(stored.data).decode("ascii")
    if prev_hash is not None:
        out["prev_hash"] = prev_hash
    return out


def _seats(state: TableState) -> list[JSON]:
    return [
        {
            "seat": s.seat,
            "user_id": s.user_id,
            "name": s.name,
            "stack": s.stack,
            "client_seed": s.client_seed or None,
        }
        for s in state.seats
        if s is not None
    ]


def _context(
    stored: Sequence[StoredEvent],
    events: Sequence[TableEvent | None],
    first: int,
    state: TableState,
) -> list[JSON]:
    """`table_created` and, per seated player with a seed, the event that set it."""
    picked: dict[int, int] = {}
    for i in range(first):
        e = events[i]
        if isinstance(e, ev.ClientSeedSet):
            picked[e.seat] = i
        elif isinstance(e, ev.PlayerSeated | ev.PlayerLeft):
            picked.pop(e.seat, None)
    indexes = sorted(
        i
        for seat, i in picked.items()
        if (s := state.seats[seat]) is not None and s.client_seed
    )
    if first > 0:
        indexes = [0, *indexes]
    return [
        entry(stored[i], events[i], stored[i - 1].hash if i > 0 else ZERO_HASH) for i in indexes
    ]


def build_export(
    table_id: str, hand: int, stored: Sequence[StoredEvent], events: Sequence[TableEvent | None]
) -> JSON:
    """The export of settled hand `hand` from the table's whole stored log (its own events
    may be unreadable -- damaged or tampered bytes are exported as stored, for the verifier to
    find -- but not those before it: the seats could not be told)."""
    start, end = hand_range(events, hand)
    first = first_index(events, start)
    before = fold_onto(None, readable(events, stored, first))
    created = events[0]
    assert isinstance(created, ev.TableCreated)
    settings = _builtins(created.settings)
    if before is None:  # the export starts at the table's first event
        seats: list[JSON] = []
    else:
        seats = _seats(before)
        # a tournament table's ante in force for this hand: its level may have risen since
        # the table was created (an `ante_changed` before the export's first event)
        settings["ante"] = before.pending_ante or before.settings.ante
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "table_id": table_id,
        "hand": hand,
        "exported_at": time.time(),
        "settings": settings,
        "seats": seats,
        "prev_hash": stored[first - 1].hash if first > 0 else ZERO_HASH,
        "events": [entry(stored[i], events[i]) for i in range(first, end + 1)],
        "context": _context(stored, events, first, before) if before is not None else [],
    }


def _builtins(value: Any) -> JSON:
    out: JSON = msgspec.to_builtins(value)
    return out
