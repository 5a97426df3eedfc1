"""The table commands that move no chips: creating a table, a player's own seed for the deck,
and a player's action in a hand -- the hot path, each answered with its metrics.

Each goes through the one command path (`TableRepo.execute`); the rules are the game core's,
decided atomically with the append, so what is checked here first is only the arguments'
form (`guards`) and, for an action, the command the game core builds from them.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

from events.store.base import EventStore
from service import metrics
from service.game.commands import CreateTable, SetClientSeed, command_for_action
from service.game.settings import TableSettings, validated
from service.tables import guards
from service.tables.errors import TRANSLATED, as_service_error
from service.tables.facade import ServiceError, User
from service.tables.repo import TableRepo


class Actions:
    def __init__(
        self,
        store: EventStore,
        repo: TableRepo,
        *,
        clock: Callable[[], float],
        seed: Callable[[], bytes],
        idle_close_seconds: float,
    ) -> None:
        self.store = store
        self.repo = repo
        self.clock = clock
        self.seed = seed
        self.idle_close_seconds = idle_close_seconds

    async def create(self, user: User, settings: TableSettings, *, practice_bots: int,
                     name: str = "", private: bool = False,
                     group_chat_id: int | None = None) -> str:
        """A new table (without its practice bots: `PracticeBots.add` seats them)."""
        validated(settings)
        guards.practice_bots(practice_bots, settings)
        table_id = self._new_table_id()
        await self.repo.execute(
            table_id,
            lambda: CreateTable(
                table_id=table_id,
                settings=settings,
                created_by=user.id,
                now=self.clock(),
                seed=self.seed(),
                idle_close_seconds=self.idle_close_seconds,
                name=name,
                private=private,
                group_chat_id=group_chat_id,
            ),
            action_id=f"create:{table_id}",
        )
        return table_id

    def _new_table_id(self) -> str:
        """A fresh id whose stream can carry index entries (on a Cluster, about one random id
        in 256 lands in an index slot: see `events.store.keys`). Creating a table touches
        nothing shared: no directory, no version-checked append but the table's own."""
        while True:
            table_id = uuid.uuid4().hex[:16]
            if self.store.indexable(self.repo.streams.table(table_id)):
                return table_id

    async def set_client_seed(self, user: User, table_id: str, client_seed: str) -> None:
        guards.client_seed(client_seed)
        await guards.existing(self.repo, table_id)
        await self.repo.execute(
            table_id,
            lambda: SetClientSeed(user_id=user.id, client_seed=client_seed, now=self.clock()),
        )

    async def act(
        self,
        user: User,
        table_id: str,
        *,
        action_id: str,
        type: str,
        amount: int | None = None,
        expected_version: int | None = None,
    ) -> int:
        """`TableService.act`: refusals come out as ServiceError, each observed in metrics."""
        started = time.perf_counter()
        try:  # service_errors(), inline: this is the hot path
            guards.action(table_id, action_id, type, amount, expected_version)
            scoped = f"{user.id}:{action_id}"
            # A retried action_id needs no lookup here: the append answers `duplicate`, and
            # the repo looks it up whenever it would otherwise answer "nothing appended".
            command_for_action(type, user_id=user.id, amount=amount, now=0.0)  # validate early
            outcome = await self.repo.execute(
                table_id,
                lambda: command_for_action(
                    type, user_id=user.id, amount=amount, now=self.clock(), seed=self.seed()
                ),
                action_id=scoped,
                expected_version=expected_version,
            )
        except TRANSLATED as error:
            refusal = as_service_error(error)
            metrics.observe_action(type, metrics.outcome_of_status(refusal.status),
                                   time.perf_counter() - started)
            raise refusal from error
        except ServiceError as refusal:
            metrics.observe_action(type, metrics.outcome_of_status(refusal.status),
                                   time.perf_counter() - started)
            raise
        except Exception:
            metrics.observe_action(type, "error", time.perf_counter() - started)
            raise
        metrics.observe_action(type, outcome.status, time.perf_counter() - started)
        return outcome.version
