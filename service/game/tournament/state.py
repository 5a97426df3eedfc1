"""A tournament's state, the fold of its events, and its prize table.

Chips: the pool holds play chips (the buy-ins) until the prizes are paid or the buy-ins
refunded; the table's stacks are tournament chips, a separate currency that never reaches a
wallet. So Σ wallets + reserved + cash tables + `pool` of every tournament = Σ grants.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from events.tournament import (
    AnyTournamentEvent,
    HandRecorded,
    LevelRaised,
    PlayerEliminated,
    PlayerRegistered,
    PlayerUnregistered,
    PrizesPaid,
    TournamentCancelled,
    TournamentCreated,
    TournamentFinished,
    TournamentSettings,
    TournamentStarted,
)

Status = Literal["registering", "running", "finished", "cancelled"]


@dataclass(frozen=True)
class Entry:
    name: str
    transfer_id: str
    amount: int


@dataclass(frozen=True)
class TournamentState:
    tournament_id: str
    settings: TournamentSettings
    created_by: int
    created_at: float
    status: Status = "registering"
    entries: dict[int, Entry] = field(default_factory=dict)  # in registration order
    pool: int = 0  # play chips owed by the tournament (buy-ins not yet paid out or refunded)
    collected: int = 0  # every buy-in ever taken
    table_id: str | None = None
    players: tuple[int, ...] = ()
    stacks: dict[int, int] = field(default_factory=dict)
    places: dict[int, int] = field(default_factory=dict)
    prizes: dict[int, int] = field(default_factory=dict)
    refunds: dict[str, tuple[int, int]] = field(default_factory=dict)  # refund id -> user, chips
    table_version: int = 0  # the last table version recorded
    hands: int = 0
    level: int = 1
    started_at: float = 0.0  # where a time schedule's levels count from
    paid: bool = False
    group_chat_id: int | None = None  # the Telegram group it was opened in, if any

    @property
    def fill_deadline(self) -> float:
        return self.created_at + self.settings.fill_seconds

    @property
    def ante(self) -> int:
        return self.settings.antes[self.level - 1]

    @property
    def full(self) -> bool:
        return len(self.entries) >= self.settings.seats

    def left_in(self) -> list[int]:
        return [u for u in self.players if u not in self.places]


def prize_table(settings: TournamentSettings, entrants: int) -> tuple[int, ...]:
    """Percent of the pool by place: the settings' own, else 100% under 6 players and
    65/35 from 6."""
    if settings.prizes:
        return settings.prizes
    return (100,) if entrants < 6 else (65, 35)


def prize_amounts(pool: int, percents: tuple[int, ...], places: dict[int, int]) -> dict[int, int]:
    """Each player's prize; the odd chips of the floors go to the winner, so Σ = pool."""
    by_place = [pool * p // 100 for p in percents]
    by_place[0] += pool - sum(by_place)
    return {u: (by_place[p - 1] if p <= len(by_place) else 0) for u, p in places.items()}


def evolve(state: TournamentState | None, event: AnyTournamentEvent) -> TournamentState:
    if isinstance(event, TournamentCreated):
        return TournamentState(
            tournament_id=event.tournament_id,
            settings=event.settings,
            created_by=event.created_by,
            created_at=event.created_at,
            group_chat_id=event.group_chat_id,
        )
    assert state is not None, "a tournament's first event is tournament_created"
    replace = dataclasses.replace
    match event:
        case PlayerRegistered(user_id=u, name=name, transfer_id=tid, amount=amount):
            entries = {**state.entries, u: Entry(name, tid, amount)}
            return replace(
                state, entries=entries, pool=state.pool + amount,
                collected=state.collected + amount,
            )
        case PlayerUnregistered(user_id=u, refund_id=rid, amount=amount):
            entries = {k: v for k, v in state.entries.items() if k != u}
            refunds = {**state.refunds, rid: (u, amount)}
            return replace(state, entries=entries, pool=state.pool - amount, refunds=refunds)
        case TournamentStarted(table_id=table_id, players=players, started_at=at):
            stacks = {u: state.settings.stack for u in players}
            return replace(
                state, status="running", table_id=table_id, players=players, stacks=stacks,
                started_at=at,
            )
        case HandRecorded(table_version=v, stacks=stacks):
            return replace(state, table_version=v, hands=state.hands + 1, stacks=dict(stacks))
        case PlayerEliminated(user_id=u, place=place):
            return replace(state, places={**state.places, u: place})
        case LevelRaised(level=level):
            return replace(state, level=level)
        case TournamentFinished(winner=winner, prizes=prizes, table_version=v):
            places = {**state.places, winner: 1}
            return replace(
                state, status="finished", places=places, prizes=dict(prizes), table_version=v
            )
        case PrizesPaid():
            return replace(state, paid=True, pool=0)
        case TournamentCancelled():  # the pool is owed until `prizes_paid` (the refunds)
            return replace(state, status="cancelled")
    raise AssertionError(f"unhandled tournament event {event!r}")  # pragma: no cover


def fold(
    events: Iterable[AnyTournamentEvent], state: TournamentState | None = None
) -> TournamentState | None:
    for event in events:
        state = evolve(state, event)
    return state
