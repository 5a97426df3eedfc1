"""Reading the lobby: the pages of `GET /api/tables`, in the order a player would pick a table.

The lobby index (`service.tables.index`) keeps every open table under the member
`<rank>.<table id>`, so its member order is the lobby's: live tables with a free seat, tables
with players waiting, full tables, empty tables, each rank by table id. A page is the `limit`
members after the cursor in that order (one read per index shard, however many tables are
open), and its cursor (`next`) is the member of its last row: a place in the order, not a
count of rows, so tables opening, closing or moving elsewhere never shift the rest.

What a walk from the first page through every `next` guarantees:
- every table that is open for the whole walk and keeps its rank is listed exactly once, at
  its place in the order (so with nothing changing, every open table is listed exactly once);
- a table whose rank changes during the walk is listed where it stands when each page is
  read: moved ahead of the cursor, it is listed (again, if it was already) at its new place,
  with its new status; moved behind the cursor before the walk reached it, this walk misses
  it -- it moved towards the first page, which is where the next look starts;
- a table opened during the walk is listed iff its place is ahead of the cursor; a table that
  closes is not listed after it closed.
A client joining pages keeps one row per table id (the later one is the newer).
"""

from __future__ import annotations

import re

import msgspec

from events.store.base import EventStore
from service.tables.errors import bad_request
from service.tables.facade import JSON
from service.tables.index import SEPARATOR, decode_summary

LOBBY_PAGE = 50  # tables per page unless asked otherwise
MAX_LOBBY_PAGE = 200
# A page's `next`: a ranked member, or (from a lobby entry written before ranks) a bare id.
CURSOR = re.compile(r"(?:[0-9]\.)?[A-Za-z0-9_-]{1,64}")


async def lobby_page(store: EventStore, lobby: str, *, limit: int, cursor: str | None) -> JSON:
    """The page of the lobby after `cursor` (None: the first) and the cursor of the next
    (None on the last)."""
    if type(limit) is not int or not 1 <= limit <= MAX_LOBBY_PAGE:
        raise bad_request(f"limit must be between 1 and {MAX_LOBBY_PAGE}")
    if cursor is not None and (not isinstance(cursor, str) or not CURSOR.fullmatch(cursor)):
        raise bad_request("cursor must be the `next` of the page before")
    rows, following = await store.index_page(lobby, after=cursor or "", limit=limit)
    tables: list[JSON] = []
    for _member, value in rows:
        summary = decode_summary(value) if value is not None else None
        if summary is not None:
            tables.append(msgspec.structs.asdict(summary))
    return {"tables": tables, "next": following}


async def unranked_tables(store: EventStore, lobby: str, *, page: int = 500) -> list[str]:
    """The tables whose lobby member is their bare id (written by the code before ranks):
    what an upgrade re-indexes once (`TableService.ensure_indexes`)."""
    found: list[str] = []
    after = ""
    while True:
        rows, following = await store.index_page(lobby, after=after, limit=page)
        found += [m for m, _ in rows if SEPARATOR not in m]
        if following is None:
            return found
        after = following
