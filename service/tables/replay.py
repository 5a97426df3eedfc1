"""The replay of one settled hand for one viewer (`GET /api/tables/{id}/hands/{n}/replay`).

One step per event of the hand (its `hand_started` through its `hand_settled`, exactly the
events of the audit), each with the event as that viewer receives it on `/events` (the same
per-viewer projection, `service.game.view.project_event`) and the viewer's view at that
version (`service.game.view.view`, what `GET /api/tables/{id}` answered then). The states are
the rules engine's own fold, from the state the hands index stored at the hand's start, so a
step shows nothing its viewer could not see live: their own cards after they looked, other
players' at the showdown, a deal's seed only in the settlement that reveals it.

Extra fields per step, so a client renders a step list without folding anything itself:
`actor` (the seat the event is about, or null), `pot_after`, `deal` and `phase` (the hand's,
after the event; null between hands).
"""

from __future__ import annotations

from typing import Any

from events.codec import event_type
from events.store.base import StoredEvent
from events.table import TableEvent
from service.game.decider import evolve
from service.game.state import TableState
from service.game.view import project_event, view
from service.tables.facade import JSON
from service.tables.hand_log import HandLog


def actor_seat(event: TableEvent) -> int | None:
    seat = getattr(event, "seat", None)
    return seat if isinstance(seat, int) and not isinstance(seat, bool) else None


def projected(stored: StoredEvent, event: TableEvent, viewer: int | None) -> JSON:
    """`{"type","at","data"}` as `/events` hands it to `viewer`."""
    out: dict[str, Any] = project_event(event, viewer)
    return {"type": out.get("type", event_type(event)), "at": stored.at,
            "data": out.get("data", {})}


def states(hand: HandLog) -> list[TableState]:
    """The state after each event of the hand."""
    out: list[TableState] = []
    state = hand.start
    for event in hand.events:
        state = evolve(state, event)
        assert state is not None
        out.append(state)
    return out


def replay_steps(hand: HandLog, viewer: int | None) -> list[JSON]:
    steps: list[JSON] = []
    for stored, event, state in zip(hand.stored, hand.events, states(hand), strict=True):
        h = state.hand
        steps.append({
            "version": stored.version,
            "hash": stored.hash,
            "event": projected(stored, event, viewer),
            "view": view(state, viewer, stored.version),
            "actor": actor_seat(event),
            "pot_after": h.pot if h is not None else 0,
            "deal": h.deal if h is not None else None,
            "phase": h.phase if h is not None else None,
        })
    return steps


def replay_answer(table_id: str, hand: HandLog, viewer: int | None) -> JSON:
    return {"table_id": table_id, "hand": hand.number, "steps": replay_steps(hand, viewer)}
