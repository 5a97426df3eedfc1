"""What one settled hand adds to each player's stats: a pure fold of the hand's events.

The stats projection (`service.tables.stats`) adds these lines to per-player counters and
leaderboards; a recount from the streams folds the same hands through the same function, so
the two can only agree. Rules (docs/ARCHITECTURE.md, "Player stats and leaderboards"):

- A hand counts for every human dealt in (`hand_started.participants`). A hand with a practice
  bot dealt in counts for nobody: practice tables are the tables with bots, and a game against
  bots says nothing about a player.
- `won` is a share of the hand: 1 for a hand won alone, 1/k for a pot split k ways, kept in
  whole units of 1/`WIN_UNIT` so sums stay exact.
- `net` is the chips the hand moved to or from the player's stack (what `GET /api/me/hands`
  says it `won`), `pot` the chips the settlement paid them; `svaras` 1 if the player was
  dealt into a svara deal of the hand, `svaras_won` 1 if so and they won (a share of) it;
  `best` the best score the showdowns showed for them (0: none shown).
- Tournament hands count (hands, wins, svaras, scores) but move no wallet chips: their `net`
  and `pot` are 0 and they stay off the chip leaderboards (`chips` is False).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from events import table as ev
from events.table import TableEvent
from service.game.decider import evolve
from service.game.state import TableState

# Every split of up to 10 seats is a whole number of these (lcm(1..10)).
WIN_UNIT = 2520


class HandLine(msgspec.Struct, frozen=True, kw_only=True):
    """One player's part of one settled hand."""

    user_id: int
    name: str
    won: int  # in 1/WIN_UNIT of a hand
    net: int
    pot: int
    svaras: int
    svaras_won: int
    best: int


def is_bot(user_id: int) -> bool:
    """Practice bots have negative ids (`service.tables.bots`)."""
    return user_id < 0


def hand_lines(
    start: TableState, events: Sequence[TableEvent], *, chips: bool = True
) -> list[HandLine]:
    """The lines of the hand `events` (its `hand_started` .. `hand_settled`) played from
    `start` (the table just before it). Empty when the hand is not settled or a bot played."""
    if not events or type(events[0]) is not ev.HandStarted or type(events[-1]) is not (
        ev.HandSettled
    ):
        return []
    started, settled = events[0], events[-1]
    assert isinstance(started, ev.HandStarted) and isinstance(settled, ev.HandSettled)
    users: dict[int, tuple[int, str]] = {}  # seat -> (user, name) at the deal
    for seat in started.participants:
        s = start.seats[seat] if seat < len(start.seats) else None
        if s is not None:
            users[seat] = (s.user_id, s.name)
    if not users or any(is_bot(u) for u, _ in users.values()):
        return []
    nets = dict.fromkeys(users, 0)
    svara_seats: set[int] = set()
    best = dict.fromkeys(users, 0)
    state: TableState | None = start
    for event in events:
        after = evolve(state, event)
        for seat, (user, _) in users.items():
            was = state.seat_by_user(user) if state is not None else None
            now = after.seat_by_user(user)
            if was is not None and now is not None and was.seat == now.seat == seat:
                nets[seat] += now.stack - was.stack
        if isinstance(event, ev.SvaraDealStarted):
            svara_seats.update(event.participants)
        elif isinstance(event, ev.ShowdownHappened):
            for seat, shown in event.hands.items():
                if seat in best:
                    best[seat] = max(best[seat], shown.score)
        state = after
    winners = set(settled.winners)
    share = WIN_UNIT // len(winners) if winners else 0
    lines = []
    for seat, (user, name) in sorted(users.items()):
        won = share if seat in winners else 0
        in_svara = 1 if seat in svara_seats else 0
        lines.append(HandLine(
            user_id=user, name=name, won=won,
            net=nets[seat] if chips else 0,
            pot=settled.amounts.get(seat, 0) if chips and won else 0,
            svaras=in_svara, svaras_won=1 if in_svara and won else 0,
            best=best[seat],
        ))  # fmt: skip
    return lines
