"""What the indexes beside the streams say about a table, and the changes that keep them true.

Two indexes describe tables (see `events.store.base.IndexOp`), both written in the same atomic
step as the table's events, so they always describe the stream's head:
- the **lobby** (`<ns>lobby`): every table that is not closed, each with a short summary
  (`TableSummary`), in the order a player would pick one -- what `GET /api/tables` pages
  through (`service.tables.lobby`). A table's member there is `<rank>.<table id>` (`member`),
  so the index's own member order is the lobby's: live tables with a free seat (a hand on, or
  the next one coming), tables with players waiting for company, the rest (full), empty tables
  last; within a rank, by table id. A table changes member when its rank changes: the append
  that changes it removes the old member and writes the new one, atomically;
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


class LobbyPlayer(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    user_id: int
    name: str


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
    # The table's place in the lobby's order: "live", "waiting", "full" or "empty".
    status: str = ""
    # Its name (None: unnamed, the app says "<host_name>'s table" in its viewer's language)
    # and who sits there (`photo_url` is added when the lobby is read, from the profiles).
    name: str | None = None
    host_name: str | None = None
    players: tuple[LobbyPlayer, ...] = ()


# The ranks, in lobby order (one character each: the member's first).
LIVE, WAITING, FULL, EMPTY = "0", "1", "2", "3"
RANKS = (LIVE, WAITING, FULL, EMPTY)
STATUS = {LIVE: "live", WAITING: "waiting", FULL: "full", EMPTY: "empty"}
SEPARATOR = "."  # never in a table id (`TableService`'s `TABLE_ID`): a member without it is older


def rank_of(state: TableState) -> str:
    """Where the table stands in the lobby: what a player would join first comes first."""
    seated = state.seated()
    if seated == 0:
        return EMPTY
    if seated == len(state.seats):
        return FULL
    hand = state.hand
    if hand is not None and (hand.phase != "settled" or state.can_start_hand()):
        return LIVE  # a hand is on, or the next starts after the pause
    return WAITING


def member(rank: str, table_id: str) -> str:
    """The table's member in the lobby index at `rank`."""
    return rank + SEPARATOR + table_id


def lobby_removals(lobby: str, table_id: str, *, keep: str | None = None) -> list[IndexOp]:
    """Remove every lobby member the table may have (each rank's and the unranked one of the
    code before ranks) but `keep`'s: for rebuilding, correcting and closing, which do not
    know what the entry held."""
    gone = [member(r, table_id) for r in RANKS if r != keep]
    return [IndexOp(lobby, m, None) for m in (*gone, table_id)]


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
        status=STATUS[rank_of(state)],
        name=state.name or None,
        host_name=table_host(state),
        players=tuple(LobbyPlayer(seat=s.seat, user_id=s.user_id, name=s.name)
                      for s in state.seats if s is not None),
    )


def decode_summary(data: bytes) -> TableSummary | None:
    try:
        return _decode(data)
    except msgspec.DecodeError:
        return None


def _lobby_key(state: TableState) -> tuple[int, str, str]:
    """What the lobby row depends on besides the fixed settings: a change means a new row.
    (The host and the practice flag change only with the seating, hence with `seated`.)"""
    return state.seated(), state.phase, rank_of(state)


def _row(lobby: str, table_id: str, state: TableState, rank: str) -> IndexOp:
    return IndexOp(lobby, member(rank, table_id), 0.0, _encode(summary_of(state)))


def unlisted(state: TableState) -> bool:
    """Never in the lobby: closed, private, or a tournament's table (no seat there is for
    the taking; its tournament lists it, docs/API.md "Tournaments")."""
    return state.closed or state.private or bool(state.tournament_id)


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
    may change (a look, say, keeps the deadline); the lobby row only when it changes, and the
    member of `before`'s rank goes when the rank changes (the entry holds it: it is written
    with every append that changes it)."""
    changes = [IndexOp(wake_index, table_id, wake)] if wake_changed else []
    if unlisted(after):
        if before is None or not unlisted(before):
            changes += lobby_removals(lobby, table_id)
        return changes
    key = _lobby_key(after)
    if before is None:
        changes.append(_row(lobby, table_id, after, key[2]))
        return changes
    old = _lobby_key(before)
    if old != key:
        if old[2] != key[2]:
            changes.append(IndexOp(lobby, member(old[2], table_id), None))
        changes.append(_row(lobby, table_id, after, key[2]))
    return changes


def full_changes(
    lobby: str, wake_index: str, table_id: str, state: TableState, wake: float | None
) -> list[IndexOp]:
    """Every index entry of the table as it should be at `state` (rebuilding, correcting):
    whatever lobby members it had go, but the one of its rank."""
    wake_op = IndexOp(wake_index, table_id, wake)
    if unlisted(state):
        return [wake_op, *lobby_removals(lobby, table_id)]
    rank = rank_of(state)
    row = _row(lobby, table_id, state, rank)
    return [wake_op, *lobby_removals(lobby, table_id, keep=rank), row]
