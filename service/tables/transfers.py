"""Chips between wallet and table streams: two steps, idempotent, finished by a reconciler.

Buy-in: reserve in the wallet (chips leave the balance) → SitDown at the table with action_id
`sit:<transfer_id>` → mark the reservation completed; a refused SitDown releases it. Cash-out:
record the intent in the wallet → Leave at the table with action_id `leave:<transfer_id>` →
credit the stack the table paid out (PlayerLeft.cashed_out).

Why nothing is created or lost when a process dies between steps: the table's action ids make
"did the second step happen?" a single lookup (`find_action`), and every wallet step is
idempotent by transfer id. The one race (a stalled process seating after the reconciler gave
the chips back) is fenced by time: a reservation expires at `expires_at` and the seating step
refuses to run after it, while the reconciler releases only after `expires_at + grace`.

How the reconciler finds the transfers to finish without reading every wallet: each transfer
is *marked* (`<user>:<transfer>` in the store's `<ns>transfers` marks, scored by when) before
the wallet event that starts it, and unmarked only after the wallet event that ends it. So
every wallet with a transfer in flight has a mark, whatever crashes when: a write-ahead
superset, consistent without a shared atomic step (a wallet's stream and the marks are in
different Cluster slots). A mark whose transfer never reached the wallet is dropped by the
reconciler once `ttl + grace` has passed (a reservation can no longer start after its own
`expires_at`, fixed when it is marked); one whose transfer is over, at once.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import Callable, Sequence

from events.store.base import StoreUnavailable
from events.table import PlayerLeft, TableEvent
from service.game import wallet
from service.game.commands import Leave, SitDown
from service.game.errors import GameError
from service.tables.bank import Bank
from service.tables.facade import ServiceError, User
from service.tables.repo import Outcome, TableRepo

log = logging.getLogger(__name__)


def sit_action(transfer_id: str) -> str:
    return f"sit:{transfer_id}"


def leave_action(transfer_id: str) -> str:
    return f"leave:{transfer_id}"


def _refused(error: Exception) -> bool:
    """A definite refusal (nothing appended), as opposed to an unknown outcome (store down)."""
    if isinstance(error, GameError):
        return True
    return isinstance(error, ServiceError) and 400 <= error.status < 500


def _paid(events: Sequence[TableEvent], transfer_id: str) -> int | None:
    for event in events:
        if isinstance(event, PlayerLeft) and event.transfer_id == transfer_id:
            return event.cashed_out
    return None


def _code(error: Exception) -> str:
    return getattr(error, "code", type(error).__name__)


def transfer_mark(user_id: int, transfer_id: str) -> str:
    return f"{user_id}:{transfer_id}"


def parse_mark(member: str) -> tuple[int, str] | None:
    user, _, transfer_id = member.partition(":")
    try:
        return int(user), transfer_id
    except ValueError:
        return None


class Transfers:
    def __init__(
        self,
        tables: TableRepo,
        bank: Bank,
        *,
        clock: Callable[[], float],
        seeds: Callable[[], bytes],
        ttl: float = 60.0,
        grace: float = 60.0,
    ) -> None:
        self.tables = tables
        self.bank = bank
        self.clock = clock
        self.seeds = seeds
        self.ttl = ttl
        self.grace = grace

    # -- buy-in -------------------------------------------------------------------------------

    async def reserve(self, user: User, table_id: str, amount: int) -> str:
        """Step one of a buy-in: set chips aside. Returns the transfer id."""
        transfer_id = uuid.uuid4().hex
        now = self.clock()
        expires_at = now + self.ttl
        await self._mark(user.id, transfer_id, now)
        try:
            await self.bank.execute(
                user.id,
                wallet.ReserveBuyIn(
                    transfer_id=transfer_id, table_id=table_id, amount=amount,
                    expires_at=expires_at,
                ),
            )
        except GameError:  # refused (insufficient funds): nothing is in flight
            await self._unmark(user.id, transfer_id)
            raise
        return transfer_id

    async def _mark(self, user_id: int, transfer_id: str, now: float) -> None:
        """Before the wallet hears of a transfer (see the module docstring)."""
        store = self.tables.store
        await store.mark(self.tables.streams.transfers, transfer_mark(user_id, transfer_id), now)

    async def _unmark(self, user_id: int, transfer_id: str) -> None:
        """After the wallet event that ends a transfer. Best effort: a mark left behind costs
        the reconciler one look, and it drops it."""
        store = self.tables.store
        with contextlib.suppress(StoreUnavailable):
            await store.unmark(self.tables.streams.transfers, transfer_mark(user_id, transfer_id))

    async def seat(
        self, user: User, table_id: str, transfer_id: str, *, seat: int | None = None
    ) -> Outcome:
        """Step two: seat with the reservation (at `seat`, or the lowest free one), then
        complete it (or release it if refused)."""
        _, state = await self.bank.load(user.id)
        reservation = state.reserved.get(transfer_id)
        if reservation is None:
            raise GameError("unknown_transfer", "this buy-in is no longer pending")
        if reservation.table_id != table_id:
            raise GameError("unknown_transfer", "this buy-in was reserved for another table")

        def command() -> SitDown:
            now = self.clock()
            if now >= reservation.expires_at:
                raise GameError("transfer_expired", "the buy-in took too long; try again")
            return SitDown(
                user_id=user.id,
                name=user.name,
                buy_in=reservation.amount,
                transfer_id=transfer_id,
                seat=seat,
                now=now,
                seed=self.seeds(),
            )

        try:
            outcome = await self.tables.execute(
                table_id, command, action_id=sit_action(transfer_id)
            )
        except Exception as error:
            if _refused(error):
                await self.bank.execute(
                    user.id, wallet.ReleaseReservation(transfer_id=transfer_id, reason=_code(error))
                )
                await self._unmark(user.id, transfer_id)
            raise
        await self.bank.execute(user.id, wallet.CompleteBuyIn(transfer_id=transfer_id))
        await self._unmark(user.id, transfer_id)
        return outcome

    async def buy_in(
        self, user: User, table_id: str, amount: int, *, seat: int | None = None
    ) -> Outcome:
        transfer_id = await self.reserve(user, table_id, amount)
        return await self.seat(user, table_id, transfer_id, seat=seat)

    # -- cash-out -----------------------------------------------------------------------------

    async def request_leave(self, user: User, table_id: str) -> str:
        """Step one of a cash-out: the write-ahead intent. Returns the transfer id."""
        transfer_id = uuid.uuid4().hex
        now = self.clock()
        await self._mark(user.id, transfer_id, now)
        await self.bank.execute(
            user.id,
            wallet.RequestCashOut(transfer_id=transfer_id, table_id=table_id, now=now),
        )
        return transfer_id

    async def leave(
        self, user_id: int, table_id: str, transfer_id: str, *, rebuy: int | None = None
    ) -> Outcome:
        """Step two: stand up at the table, then credit the stack (cancel if refused). With
        `rebuy`, the table refuses the stand-up unless that rebuy is allowed."""

        def command() -> Leave:
            return Leave(
                user_id=user_id,
                transfer_id=transfer_id,
                rebuy=rebuy,
                now=self.clock(),
                seed=self.seeds(),
            )

        try:
            outcome = await self.tables.execute(
                table_id, command, action_id=leave_action(transfer_id)
            )
        except Exception as error:
            if _refused(error):
                reason = _code(error)
                await self.bank.execute(
                    user_id, wallet.CancelCashOut(transfer_id=transfer_id, reason=reason)
                )
                await self._unmark(user_id, transfer_id)
            raise
        if outcome.status == "appended":
            paid = _paid(outcome.events, transfer_id)
        else:
            paid = await self._left_amount(table_id, transfer_id, outcome.version)
        await self._credit(user_id, table_id, transfer_id, paid)
        return outcome

    async def _left_amount(self, table_id: str, transfer_id: str, version: int) -> int | None:
        """What PlayerLeft(transfer_id) paid out, looking back from `version` (where find_action
        said the leave's append ended)."""
        for after in (max(0, version - 64), 0):
            events = await self.tables.events_between(table_id, after, version)
            paid = _paid(events, transfer_id)
            if paid is not None or after == 0:
                return paid
        return None  # pragma: no cover - the loop always returns

    async def _credit(
        self, user_id: int, table_id: str, transfer_id: str, paid: int | None
    ) -> None:
        if paid is None:
            raise ServiceError(
                500, "transfer_lost", f"the table has no record of leave {transfer_id}"
            )
        await self.bank.execute(
            user_id, wallet.CashOut(transfer_id=transfer_id, table_id=table_id, amount=paid)
        )
        await self._unmark(user_id, transfer_id)

    async def cash_out(self, user: User, table_id: str, *, rebuy: int | None = None) -> Outcome:
        transfer_id = await self.request_leave(user, table_id)
        return await self.leave(user.id, table_id, transfer_id, rebuy=rebuy)

    # -- rebuy --------------------------------------------------------------------------------

    async def rebuy(self, user: User, table_id: str, amount: int, *, seat: int) -> Outcome:
        """Stand up and buy in again with `amount` at `seat`, in the order in which a refusal
        changes nothing: the chips are reserved first, then the stand-up, which the table
        refuses unless the whole rebuy is allowed (`Leave.rebuy`; the reservation is then
        released), then the seat. Only when the wallet needs the chips left at the table to
        cover `amount` do they come back first (the caller checked that both together do).
        A seat taken by someone else in between moves the player to the lowest free one."""
        try:
            transfer_id: str | None = await self.reserve(user, table_id, amount)
        except GameError as error:
            if error.code != "insufficient_funds":
                raise
            transfer_id = None
        try:
            await self.cash_out(user, table_id, rebuy=amount)
        except Exception as error:
            if transfer_id is not None and _refused(error):
                await self.bank.execute(
                    user.id, wallet.ReleaseReservation(transfer_id=transfer_id, reason=_code(error))
                )
                await self._unmark(user.id, transfer_id)
            raise
        if transfer_id is None:
            transfer_id = await self.reserve(user, table_id, amount)
        try:
            return await self.seat(user, table_id, transfer_id, seat=seat)
        except GameError as error:
            if error.code != "seat_taken":  # refused: `seat` released the reservation
                raise
        return await self.buy_in(user, table_id, amount)

    # -- the reconciler -----------------------------------------------------------------------

    async def reconcile_wallet(self, user_id: int) -> int:
        """Finish this wallet's half-done transfers, deciding by what the table stream says.
        Returns how many transfers it finished."""
        _, state = await self.bank.load(user_id)
        now = self.clock()
        finished = 0
        for transfer_id, reservation in list(state.reserved.items()):
            stream = self.tables.streams.table(reservation.table_id)
            action = sit_action(transfer_id)
            if reservation.table_id.startswith("tournament:"):  # a buy-in into a prize pool
                stream = f"{self.tables.streams.namespace}{reservation.table_id}"
                action = f"register:{transfer_id}"
            if await self.tables.store.find_action(stream, action) is not None:
                await self.bank.execute(user_id, wallet.CompleteBuyIn(transfer_id=transfer_id))
                finished += 1
            elif now > reservation.expires_at + self.grace:
                await self.bank.execute(
                    user_id, wallet.ReleaseReservation(transfer_id=transfer_id, reason="expired")
                )
                finished += 1
        for transfer_id, pending in list(state.leaving.items()):
            stream = self.tables.streams.table(pending.table_id)
            version = await self.tables.store.find_action(stream, leave_action(transfer_id))
            if version is not None:
                paid = await self._left_amount(pending.table_id, transfer_id, version)
                await self._credit(user_id, pending.table_id, transfer_id, paid)
                finished += 1
            elif now > pending.requested_at + self.grace:
                # Finish the user's intent with the same action id: a stalled original and
                # this retry write at most one PlayerLeft between them.
                try:
                    await self.leave(user_id, pending.table_id, transfer_id)
                except Exception as error:
                    if not _refused(error):
                        raise
                finished += 1
        return finished

    async def forget_finished(self, user_id: int, marks: Sequence[tuple[str, float]]) -> None:
        """Drop this wallet's marks whose transfer is over, or never started and now never
        can (older than ttl + grace); keep the rest for the next pass."""
        _, state = await self.bank.load(user_id)
        now = self.clock()
        for transfer_id, marked_at in marks:
            over = transfer_id in state.finished
            in_flight = transfer_id in state.reserved or transfer_id in state.leaving
            if over or (not in_flight and now > marked_at + self.ttl + self.grace):
                await self._unmark(user_id, transfer_id)
