"""What the lobby shows of a table beyond its id: whom it is named after and its stakes.

Kept apart from `TableService.list_tables` (which finds the tables) so the listing's shape has
one home: the web app names a table by its host and stakes, never by its id.
"""

from __future__ import annotations

from service.game.state import TableState
from service.game.view import table_host
from service.tables.facade import JSON


def listing_details(state: TableState) -> JSON:
    """`host` (a person's name or None), `practice` (practice bots are seated), the bet unit
    and the buy-in bounds, and the seconds per turn."""
    settings = state.settings
    low, high = settings.buy_in_range
    return {
        "host": table_host(state),
        "practice": any(s is not None and s.user_id < 0 for s in state.seats),
        "bet_unit": settings.unit,
        "min_buy_in": low,
        "max_buy_in": high,
        "turn_seconds": settings.turn_seconds,
    }
