"""What the API asks of tournaments: create, list, show, register, unregister, audit, and
a tournament table's leave (a forfeit). Composes the stream (`tournaments`), the process
manager (`tournaments_manager`) and the audit of the standings (`tournaments_audit`)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from typing import TYPE_CHECKING, TypeVar

from events.tournament import TournamentSettings
from service.game.commands import Leave
from service.game.errors import GameError
from service.game.tournament.levels import next_level_at
from service.game.tournament.state import TournamentState, prize_table
from service.tables.errors import as_service_error
from service.tables.facade import JSON, ServiceError, User
from service.tables.tournaments import (
    Registrations,
    TournamentObserver,
    TournamentStore,
    service_error,
    summary,
)
from service.tables.tournaments_audit import audit_tournament
from service.tables.tournaments_manager import TournamentManager

if TYPE_CHECKING:
    from service.tables.service import TableService

PAGE = 50
T = TypeVar("T")


def tournament_json(state: TournamentState, version: int) -> JSON:
    s = state.settings
    settings = {
        "seats": s.seats, "buy_in": s.buy_in, "stack": s.stack, "antes": list(s.antes),
        "hands_per_level": s.hands_per_level, "minutes_per_level": s.minutes_per_level,
        "prizes": list(s.prizes),
        "fill_seconds": s.fill_seconds, "name": summary(state)["name"],
        "turn_seconds": s.turn_seconds,
    }
    names = {u: e.name for u, e in state.entries.items()}
    users = list(state.players) or list(state.entries)
    players = [
        {"user_id": u, "name": names.get(u, f"player {u}"), "place": state.places.get(u),
         "prize": state.prizes.get(u) if state.status == "finished" else None}
        for u in users
    ]
    return {
        "tournament_id": state.tournament_id, "status": state.status, "settings": settings,
        "players": players, "level": state.level, "table_id": state.table_id,
        "version": version,
        # what a screen shows besides: the ante now, when an unfilled one is cancelled, the
        # buy-ins taken, and the percents by place it pays (it starts only when full)
        "ante": state.ante, "created_by": state.created_by, "fill_by": state.fill_deadline,
        # by the players once started, else by the seats (as the listing's `summary`): what
        # it will pay, not what it would pay with the entries so far
        "pool": state.collected,
        "prize_table": list(prize_table(s, len(state.players) or s.seats)),
        # by time, running: when the next boundary falls (the first hand settled from then
        # raises the ante); None otherwise
        "next_level_at": next_level_at(s, level=state.level, started_at=state.started_at)
        if state.status == "running" else None,
    }


class Tournaments:
    def __init__(self, service: TableService, *, poll_seconds: float = 0.5) -> None:
        self.tables = service
        self.store = TournamentStore(service.store, service.streams.namespace, service.clock)
        self.registrations = Registrations(self.store, service.bank, service.transfers)
        self.manager = TournamentManager(
            self.store, self.registrations, service.repo, seeds=service.seed,
            poll_seconds=poll_seconds,
        )
        service.repo.observers.append(self.manager.observe)

    def run(self, stopping: asyncio.Event) -> asyncio.Task[None]:
        return asyncio.create_task(self.manager.run(stopping), name="svara-tournaments")

    async def _guard(self, coro: Awaitable[T]) -> T:
        try:
            return await coro
        except GameError as error:
            raise service_error(error) from error
        except ServiceError:
            raise
        except (OSError, TimeoutError, ConnectionError) as error:
            raise as_service_error(error) from error

    @property
    def observers(self) -> list[TournamentObserver]:
        """Told of each batch of tournament events this process appends (the bot's watch:
        a group's final standings)."""
        return self.store.observers

    async def create(
        self, user: User, settings: TournamentSettings, *, group_chat_id: int | None = None
    ) -> str:
        made = self.registrations.create(user, settings, group_chat_id=group_chat_id)
        result: str = await self._guard(made)
        return result

    async def get(self, tournament_id: str) -> JSON:
        version, state = await self._guard(self.store.load(tournament_id))
        if state is None:
            raise ServiceError(404, "tournament_not_found", f"no tournament {tournament_id!r}")
        return tournament_json(state, version)

    async def list(self, *, limit: int = PAGE, cursor: str | None = None) -> JSON:
        if not 1 <= limit <= 100:
            raise ServiceError(400, "bad_request", "limit must be from 1 to 100")
        rows, following = await self._guard(
            self.tables.store.index_page(self.store.index, after=cursor or "", limit=limit)
        )
        keys = ("tournament_id", "name", "status", "seats", "registered", "buy_in", "table_id",
                "fill_by", "prize_table", "hands_per_level", "minutes_per_level")
        listed = []
        for _, value in rows:
            if value is not None:
                row = json.loads(value)
                listed.append({k: row.get(k) for k in keys})
        return {"tournaments": listed, "next": following}

    async def register(self, user: User, tournament_id: str) -> JSON:
        state = await self._guard(self.registrations.register(user, tournament_id))
        if state.full:  # the last seat: start it now rather than at the manager's next poll
            await self._guard(self.manager.advance(tournament_id))
        return await self.get(tournament_id)

    async def unregister(self, user: User, tournament_id: str) -> JSON:
        await self._guard(self.registrations.unregister(user, tournament_id))
        return await self.get(tournament_id)

    async def audit(self, tournament_id: str) -> JSON:
        audit = audit_tournament(self.store, self.tables.streams, tournament_id)
        result: JSON = await self._guard(audit)
        return result

    async def forfeit(self, user: User, table_id: str) -> None:
        """Leaving a tournament table: sat out, still dealt in until the stack is gone."""
        clock, seed = self.tables.clock, self.tables.seed
        await self._guard(self.tables.repo.execute(
            table_id,
            lambda: Leave(user_id=user.id, transfer_id="forfeit", now=clock(), seed=seed()),
        ))
