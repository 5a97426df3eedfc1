"""`evolve(state, event) -> state`: apply one fact. Pure, total over valid logs, no decisions.

Events carry every decision (whose turn, which round, who won what), so applying one is
bookkeeping: rebuild the touched structs, share the rest. `fold` replays a whole log.

This module is the dispatch: one handler per event type, kept by event family in
`evolve_seats` (the table and its seats), `evolve_bets` (a betting round), `evolve_deals`
(hands and deals) and `evolve_showdown` (showdown, svara, settlement), over the shared
bookkeeping in `rebuild`. The handlers are the inner loop of both replay and the decider, so
the frequent ones (turns, bets, folds, looks, deals) are written flat; the rare ones stay
plain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from events import table as ev
from events.table import TableEvent
from service.game.evolve_bets import (
    blind_placed,
    called,
    folded,
    looked,
    passed,
    raised,
    timed_out,
    turn_deadline_set,
)
from service.game.evolve_deals import (
    antes_paid,
    cards_dealt,
    hand_started,
    svara_deal_started,
)
from service.game.evolve_seats import (
    client_seed_set,
    closed,
    player_left,
    player_seated,
    returned,
    sat_out,
    seed_drawn,
    table_created,
)
from service.game.evolve_showdown import (
    hand_settled,
    showdown,
    svara_joined,
    svara_skipped,
    svara_started,
)
from service.game.evolve_tournament import ante_changed
from service.game.state import TableState

APPLY: dict[type, Callable[[Any, Any], TableState]] = {
    ev.TableCreated: table_created,
    ev.PlayerSeated: player_seated,
    ev.PlayerLeft: player_left,
    ev.HandStarted: hand_started,
    ev.AntesPaid: antes_paid,
    ev.CardsDealt: cards_dealt,
    ev.BlindPlaced: blind_placed,
    ev.Passed: passed,
    ev.Looked: looked,
    ev.Called: called,
    ev.Raised: raised,
    ev.Folded: folded,
    ev.TurnDeadlineSet: turn_deadline_set,
    ev.TimedOut: timed_out,
    ev.ShowdownHappened: showdown,
    ev.SvaraStarted: svara_started,
    ev.SvaraJoined: svara_joined,
    ev.SvaraSkipped: svara_skipped,
    ev.SvaraDealStarted: svara_deal_started,
    ev.HandSettled: hand_settled,
    ev.PlayerSatOut: sat_out,
    ev.PlayerReturned: returned,
    ev.SeedDrawn: seed_drawn,
    ev.ClientSeedSet: client_seed_set,
    ev.TableClosed: closed,
    ev.AnteChanged: ante_changed,
}


def evolve(state: TableState | None, event: TableEvent) -> TableState:
    """The state after `event`. Never mutates `state`."""
    apply = APPLY[type(event)]
    if state is None and apply is not table_created:
        raise ValueError(f"the first event of a table must be table_created, not {event!r}")
    return apply(state, event)


def fold(events: Iterable[TableEvent], state: TableState | None = None) -> TableState:
    """Replay `events` on top of `state` (None: from the table's creation)."""
    apply = APPLY
    events = iter(events)
    if state is None:  # checked once, not per event: this loop is replay's hot path
        first = next(events, None)
        if first is None:
            raise ValueError("no events to fold")
        if not isinstance(first, ev.TableCreated):
            raise ValueError("the first event of a table must be table_created")
        state = table_created(None, first)
    for event in events:
        state = apply[type(event)](state, event)
    return state
