"""What the indexes beside the streams say about a table, and the changes that keep them true.

Two indexes describe tables (see `events.store.base.IndexOp`), both written in the same atomic
step as the table's events, so they always describe the stream's head:
- the **lobby** (`<ns>lobby`): every table that is not closed, in table-id order, each with a
  short summary (`TableSummary`) -- what `GET /api/tables` pages through;
- the **wake** index (`<ns>wake`): every table that needs the timer worker, scored by when
  (the state's deadline, or a practice bot's think time) -- what every replica's driver asks
  "what is due now?". A table with nothing to wait for (closed, or one player waiting for
  company) is in neither's way: it costs no CPU at all.

Transfers in flight are a third index, of marks (`<ns>transfers`, see `transfers.py`).
"""

from __future__ import annotations

import msgspec

from events.store.base import IndexOp
from service.game.state import TableState
from service.game.view import table_host


class TableSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One lobby row (`GET /api/tables` in docs/API.md "Endpoints", with a few to choose by)."""

    table_id: str
    ante: int
    max_seats: int
    seated: int
    seats_free: int
    phase: str
    created_by: int
    turn_seconds: int
    min_buy_in: int
    max_buy_in: int
    # What the web app names a table by (never its id): its host (a person's name, or None)
    # and whether practice bots sit there; its stakes are the ante and the bet unit.
    host: str | None = None
    practice: bool = False
    bet_unit: int = 0


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(TableSummary).decode


def summary_of(state: TableState) -> TableSummary:
    settings = state.settings
    seated = state.seated()
    low, high = settings.buy_in_range
    return TableSummary(
        table_id=state.table_id,
        ante=settings.ante,
        max_seats=settings.max_seats,
        seated=seated,
        seats_free=settings.max_seats - seated,
        phase=state.phase,
        created_by=state.created_by,
        turn_seconds=settings.turn_seconds,
        min_buy_in=low,
        max_buy_in=high,
        host=table_host(state),
        practice=any(s is not None and s.user_id < 0 for s in state.seats),
        bet_unit=settings.unit,
    )


def decode_summary(data: bytes) -> TableSummary | None:
    try:
        return _decode(data)
    except msgspec.DecodeError:
        return None


def _lobby_key(state: TableState) -> tuple[int, str]:
    """What the lobby row depends on besides the fixed settings: a change means a new row.
    (The host and the practice flag change only with the seating, hence with `seated`.)"""
    return state.seated(), state.phase


def table_changes(
    lobby: str,
    wake_index: str,
    table_id: str,
    before: TableState | None,
    after: TableState,
    wake: float | None,
    *,
    wake_changed: bool = True,
) -> list[IndexOp]:
    """The index changes that go with appending the events that lead from `before` to `after`
    (`wake`: when the table next needs the timer worker, None for never; `wake_changed`:
    False when the entry is known to hold it already). The wake entry is written whenever it
    may change (a look, say, keeps the deadline); the lobby row only when it changes."""
    changes = [IndexOp(wake_index, table_id, wake)] if wake_changed else []
    if after.closed:
        if before is None or not before.closed:
            changes.append(IndexOp(lobby, table_id, None))
    elif before is None or _lobby_key(before) != _lobby_key(after):
        changes.append(IndexOp(lobby, table_id, 0.0, _encode(summary_of(after))))
    return changes


def full_changes(
    lobby: str, wake_index: str, table_id: str, state: TableState, wake: float | None
) -> list[IndexOp]:
    """Every index entry of the table as it should be at `state` (rebuilding, correcting)."""
    row = (
        IndexOp(lobby, table_id, None)
        if state.closed
        else IndexOp(lobby, table_id, 0.0, _encode(summary_of(state)))
    )
    return [IndexOp(wake_index, table_id, wake), row]
