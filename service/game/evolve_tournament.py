"""`evolve` for what only tournament tables record: a new ante level."""

from __future__ import annotations

from msgspec.structs import replace

from events import table as ev
from service.game.state import TableState


def ante_changed(state: TableState, e: ev.AnteChanged) -> TableState:
    """Pending until the next hand is dealt (`evolve_deals.hand_started` applies it), so a
    hand in play keeps the ante and bet unit it started with."""
    return replace(state, ante_level=e.level, pending_ante=e.ante)
