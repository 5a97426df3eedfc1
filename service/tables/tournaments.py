"""Sit & Go tournaments, the application side: load a tournament's stream, decide with the
pure decider (`service.game.tournament`), append with the expected version and an action
id, and move play chips between wallets and the prize pool.

A tournament lives in its own stream `tournament:<id>` (its own hash tag); the listing is an
index (`<ns>tournaments`, member = the id, value = its summary) written in the same append.
Buy-ins are the wallet's two-step transfer (reserve → `Register` → complete; released if
the tournament refused), with `tournament:<id>` as the wallet's table; a refund or a prize
is a wallet `CashOut` under a deterministic transfer id (`refund:…`, `prize:…`), so it is
credited once whoever credits it. The process manager is `tournaments_manager`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Callable, Sequence

from events.store.base import EventStore, IndexOp
from events.tournament import (
    AnyTournamentEvent,
    TournamentSettings,
    decode_tournament_event,
    encode_tournament_event,
)
from service.game import wallet
from service.game.errors import GameError
from service.game.tournament import decider as td
from service.game.tournament.state import TournamentState, evolve, fold, prize_table
from service.tables.bank import Bank
from service.tables.facade import JSON, ServiceError, User
from service.tables.transfers import Transfers

log = logging.getLogger(__name__)

# Told of every batch this process appends to a tournament, with the state after it:
# synchronous and cheap (they only look and schedule), like the tables' observers.
TournamentObserver = Callable[[str, Sequence[AnyTournamentEvent], TournamentState], None]

CONFLICTS = frozenset({
    "already_registered", "tournament_started", "tournament_full", "tournament_cancelled",
    "not_registered", "tournament_exists", "not_full",
})


def service_error(error: GameError) -> ServiceError:
    if error.code == "tournament_not_found":
        return ServiceError(404, error.code, error.message)
    if error.code == "insufficient_funds":
        return ServiceError(422, "insufficient_chips", error.message)
    if error.code in CONFLICTS:
        return ServiceError(409, error.code, error.message)
    if error.code == "invalid_settings":
        return ServiceError(400, error.code, error.message)
    return ServiceError(422, error.code, error.message)


def wallet_table(tournament_id: str) -> str:
    """The wallet's name for a tournament's pool (its reservations and credits)."""
    return f"tournament:{tournament_id}"


def table_id_for(tournament_id: str, indexable: Callable[[str], bool], ns: str) -> str:
    """The tournament's table id: derived, so every replica that starts it names the same
    table, and drawn (by a counter) until its stream may carry index entries."""
    n = 0
    while True:
        digest = hashlib.sha256(f"{tournament_id}:{n}".encode()).hexdigest()[:16]
        if indexable(f"{ns}table:{digest}"):
            return digest
        n += 1


def summary(state: TournamentState) -> JSON:
    s = state.settings
    return {
        "tournament_id": state.tournament_id,
        "name": state.settings.name or f"Sit & Go {state.tournament_id[:6]}",
        "status": state.status,
        "seats": state.settings.seats,
        "registered": len(state.entries),
        "buy_in": state.settings.buy_in,
        "hands_per_level": s.hands_per_level,
        "minutes_per_level": s.minutes_per_level,
        "table_id": state.table_id,
        "fill_by": state.fill_deadline,
        "prize_table": list(prize_table(s, len(state.players) or s.seats)),
    }


class TournamentStore:
    """Load (fold the whole stream: a tournament has tens of events), decide, append."""

    def __init__(self, store: EventStore, namespace: str, clock: Callable[[], float]) -> None:
        self.store = store
        self.ns = namespace
        self.clock = clock
        self.observers: list[TournamentObserver] = []

    def stream(self, tournament_id: str) -> str:
        return f"{self.ns}tournament:{tournament_id}"

    @property
    def index(self) -> str:
        return f"{self.ns}tournaments"

    async def load(self, tournament_id: str) -> tuple[int, TournamentState | None]:
        stored = await self.store.read(self.stream(tournament_id))
        if not stored:
            return 0, None
        state = fold(decode_tournament_event(e.data) for e in stored)
        return stored[-1].version, state

    async def execute(
        self,
        tournament_id: str,
        command: Callable[[], td.AnyTournamentCommand],
        *,
        action_id: str,
    ) -> TournamentState | None:
        """Decide `command` on the latest state and append; a repeat of `action_id`, or a
        command with nothing to do, appends nothing. Refusals raise GameError."""
        stream = self.stream(tournament_id)
        for _ in range(50):
            version, state = await self.load(tournament_id)
            try:
                events = td.decide(state, command())
            except GameError:
                if await self.store.find_action(stream, action_id) is not None:
                    return state  # a retry after the first attempt landed
                raise
            if not events:
                return state
            after = state
            for event in events:
                after = evolve(after, event)
            assert after is not None
            entry = {**summary(after), "paid": after.paid}  # paid: the manager is done
            row = json.dumps(entry, separators=(",", ":")).encode()
            result = await self.store.append(
                stream,
                [encode_tournament_event(e) for e in events],
                expected_version=version,
                action_id=action_id,
                at=self.clock(),
                index=[IndexOp(index=self.index, member=tournament_id, score=0.0, value=row)],
            )
            if result.status == "appended":
                self._tell(tournament_id, events, after)
                return after
            if result.status == "duplicate":
                return (await self.load(tournament_id))[1]
        raise ServiceError(503, "busy", "the tournament is too busy right now; try again")

    def _tell(
        self, tournament_id: str, events: Sequence[AnyTournamentEvent], after: TournamentState
    ) -> None:
        for observer in self.observers:
            try:
                observer(tournament_id, events, after)
            except Exception:  # an observer never breaks the tournament's step
                log.exception("a tournament observer failed at %s", tournament_id)

    def new_id(self) -> str:
        while True:
            tournament_id = uuid.uuid4().hex[:16]
            if self.store.indexable(self.stream(tournament_id)):
                return tournament_id


class Registrations:
    """Creating, registering and unregistering: the chips' way into and out of the pool."""

    def __init__(self, tournaments: TournamentStore, bank: Bank, transfers: Transfers) -> None:
        self.t = tournaments
        self.bank = bank
        self.transfers = transfers

    async def create(
        self, user: User, settings: TournamentSettings, *, group_chat_id: int | None = None
    ) -> str:
        td.validated(settings)
        tournament_id = self.t.new_id()
        await self.t.execute(
            tournament_id,
            lambda: td.CreateTournament(
                tournament_id=tournament_id, settings=settings, created_by=user.id,
                now=self.t.clock(), group_chat_id=group_chat_id,
            ),
            action_id=f"create:{tournament_id}",
        )
        return tournament_id

    async def register(self, user: User, tournament_id: str) -> TournamentState:
        _, state = await self.t.load(tournament_id)
        # every refusal the state already decides is made before the wallet is touched
        state = td.verify_register(state, user.id)
        await self.bank.open(user.id)
        amount = state.settings.buy_in
        transfer_id = await self.transfers.reserve(user, wallet_table(tournament_id), amount)
        try:
            after = await self.t.execute(
                tournament_id,
                lambda: td.Register(
                    user_id=user.id, name=user.name, transfer_id=transfer_id, amount=amount,
                    now=self.t.clock(),
                ),
                action_id=f"register:{transfer_id}",
            )
        except GameError as error:
            await self.bank.execute(
                user.id, wallet.ReleaseReservation(transfer_id=transfer_id, reason=error.code)
            )
            await self.transfers._unmark(user.id, transfer_id)
            raise
        await self.bank.execute(user.id, wallet.CompleteBuyIn(transfer_id=transfer_id))
        await self.transfers._unmark(user.id, transfer_id)
        assert after is not None
        return after

    async def unregister(self, user: User, tournament_id: str) -> TournamentState:
        after = await self.t.execute(
            tournament_id,
            lambda: td.Unregister(user_id=user.id, now=self.t.clock()),
            action_id=f"unregister:{user.id}:{uuid.uuid4().hex}",
        )
        assert after is not None
        for refund, (user_id, amount) in after.refunds.items():
            if user_id == user.id:
                await self.credit(user_id, tournament_id, refund, amount)
        return after

    async def credit(self, user_id: int, tournament_id: str, transfer_id: str, amount: int) -> None:
        """A refund or a prize, credited once by its deterministic transfer id."""
        await self.bank.execute(
            user_id,
            wallet.CashOut(
                transfer_id=transfer_id, table_id=wallet_table(tournament_id), amount=amount
            ),
        )
