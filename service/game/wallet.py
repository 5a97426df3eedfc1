"""The wallet decider: `decide(state, command) -> events` and `evolve(state, event) -> state`
for a user's play-money ledger (the events are `events.wallet`).

Every transfer step is idempotent by `transfer_id`: asking again for a step that already
happened (or can no longer happen) yields no events, so retries, racing processes and the
reconciler can all ask freely. Refusals raise GameError with a stable code. Time comes in
with the command (`now`), so the decider is pure; `service.tables.bank` loads, decides and
appends.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field

import msgspec

from events.wallet import (
    AnyWalletEvent,
    BuyInCompleted,
    BuyInReserved,
    CashedOut,
    CashOutCancelled,
    CashOutRequested,
    ChipsGranted,
    GrantReason,
    ReservationReleased,
)
from service.game.errors import GameError

SECONDS_PER_DAY = 86_400


def day_of(now: float) -> int:
    """Days since the epoch (UTC): the unit of the daily top-up."""
    return int(now // SECONDS_PER_DAY)


@dataclass(frozen=True)
class Reservation:
    table_id: str
    amount: int
    expires_at: float


@dataclass(frozen=True)
class PendingCashOut:
    table_id: str
    requested_at: float


@dataclass(frozen=True)
class WalletState:
    """A wallet folded from its events. `balance` is what the user may spend now."""

    opened: bool = False
    balance: int = 0
    granted: int = 0  # every chip ever granted to this wallet
    last_grant_day: int = -1
    reserved: dict[str, Reservation] = field(default_factory=dict)  # pending buy-ins
    leaving: dict[str, PendingCashOut] = field(default_factory=dict)  # pending cash-outs
    seats: dict[str, int] = field(default_factory=dict)  # table_id -> open (completed) buy-ins
    finished: frozenset[str] = frozenset()  # transfer ids whose story is over

    @property
    def held(self) -> int:
        """Chips reserved but not yet known to be at a table."""
        return sum(r.amount for r in self.reserved.values())

    @property
    def tables(self) -> list[str]:
        return sorted(t for t, n in self.seats.items() if n > 0)


EMPTY = WalletState()


# -- commands: what the application asks of a wallet (imperative; the answer is events) -----


class WalletCommand(msgspec.Struct, frozen=True, kw_only=True):
    """Base of every wallet command."""


class GrantChips(WalletCommand, frozen=True, kw_only=True):
    reason: GrantReason
    amount: int
    now: float


class ReserveBuyIn(WalletCommand, frozen=True, kw_only=True):
    transfer_id: str
    table_id: str
    amount: int
    expires_at: float


class ReleaseReservation(WalletCommand, frozen=True, kw_only=True):
    transfer_id: str
    reason: str


class CompleteBuyIn(WalletCommand, frozen=True, kw_only=True):
    transfer_id: str


class RequestCashOut(WalletCommand, frozen=True, kw_only=True):
    transfer_id: str
    table_id: str
    now: float


class CashOut(WalletCommand, frozen=True, kw_only=True):
    """Credit what the table paid out. The table stream is the truth: no request needed."""

    transfer_id: str
    table_id: str
    amount: int


class CancelCashOut(WalletCommand, frozen=True, kw_only=True):
    transfer_id: str
    reason: str


AnyWalletCommand = (
    GrantChips
    | ReserveBuyIn
    | ReleaseReservation
    | CompleteBuyIn
    | RequestCashOut
    | CashOut
    | CancelCashOut
)


def decide(state: WalletState, command: AnyWalletCommand) -> list[AnyWalletEvent]:
    """The events `command` produces on `state` (none: nothing to do). Raises GameError."""
    match command:
        case GrantChips(reason=reason, amount=amount, now=now):
            return grant(state, reason=reason, amount=amount, now=now)
        case ReserveBuyIn(transfer_id=tid, table_id=table_id, amount=amount, expires_at=exp):
            return reserve(
                state, transfer_id=tid, table_id=table_id, amount=amount, expires_at=exp
            )
        case ReleaseReservation(transfer_id=tid, reason=reason):
            return release(state, transfer_id=tid, reason=reason)
        case CompleteBuyIn(transfer_id=tid):
            return complete(state, transfer_id=tid)
        case RequestCashOut(transfer_id=tid, table_id=table_id, now=now):
            return request_cash_out(state, transfer_id=tid, table_id=table_id, now=now)
        case CashOut(transfer_id=tid, table_id=table_id, amount=amount):
            return cash_out(state, transfer_id=tid, table_id=table_id, amount=amount)
        case CancelCashOut(transfer_id=tid, reason=reason):
            return cancel_cash_out(state, transfer_id=tid, reason=reason)
    raise AssertionError(f"unhandled wallet command {command!r}")  # pragma: no cover


def evolve(state: WalletState, event: AnyWalletEvent) -> WalletState:
    replace = dataclasses.replace
    match event:
        case ChipsGranted(amount=amount, day=day):
            return replace(
                state,
                opened=True,
                balance=state.balance + amount,
                granted=state.granted + amount,
                last_grant_day=max(state.last_grant_day, day),
            )
        case BuyInReserved(transfer_id=tid, table_id=table_id, amount=amount, expires_at=exp):
            return replace(
                state,
                balance=state.balance - amount,
                reserved={**state.reserved, tid: Reservation(table_id, amount, exp)},
            )
        case ReservationReleased(transfer_id=tid):
            reservation = state.reserved[tid]
            reserved = {k: v for k, v in state.reserved.items() if k != tid}
            return replace(
                state,
                balance=state.balance + reservation.amount,
                reserved=reserved,
                finished=state.finished | {tid},
            )
        case BuyInCompleted(transfer_id=tid):
            reservation = state.reserved[tid]
            reserved = {k: v for k, v in state.reserved.items() if k != tid}
            seats = dict(state.seats)
            seats[reservation.table_id] = seats.get(reservation.table_id, 0) + 1
            return replace(state, reserved=reserved, seats=seats, finished=state.finished | {tid})
        case CashOutRequested(transfer_id=tid, table_id=table_id, requested_at=at):
            return replace(state, leaving={**state.leaving, tid: PendingCashOut(table_id, at)})
        case CashedOut(transfer_id=tid, table_id=table_id, amount=amount):
            seats = dict(state.seats)
            seats[table_id] = seats.get(table_id, 0) - 1
            if seats[table_id] == 0:
                del seats[table_id]
            leaving = {k: v for k, v in state.leaving.items() if k != tid}
            return replace(
                state,
                balance=state.balance + amount,
                seats=seats,
                leaving=leaving,
                finished=state.finished | {tid},
            )
        case CashOutCancelled(transfer_id=tid):
            leaving = {k: v for k, v in state.leaving.items() if k != tid}
            return replace(state, leaving=leaving, finished=state.finished | {tid})
    raise AssertionError(f"unhandled wallet event {event!r}")  # pragma: no cover


def fold(events: Iterable[AnyWalletEvent], state: WalletState = EMPTY) -> WalletState:
    for event in events:
        state = evolve(state, event)
    return state


# -- one rule per command (public: `decide` is the dispatch, these are the rules) ----------


def grant(
    state: WalletState, *, reason: GrantReason, amount: int, now: float
) -> list[AnyWalletEvent]:
    """The starting grant on first sight; a daily top-up when the wallet is dry; a practice
    bot's float whenever it cannot afford a seat. Anything else: no event."""
    if amount <= 0:
        return []
    day = day_of(now)
    if reason == "start":
        due = not state.opened
    elif reason == "daily_topup":
        dry = state.balance == 0 and not state.reserved and not state.tables
        due = state.opened and dry and state.last_grant_day < day
    else:
        due = True
    return [ChipsGranted(amount=amount, reason=reason, day=day)] if due else []


def next_topup_at(state: WalletState, now: float) -> float:
    """When the daily top-up can next be granted, once the wallet is dry and seated nowhere:
    `now` if none was granted today (UTC), else the start of the next UTC day. The web app
    shows it to a player with an empty wallet."""
    day = day_of(now)
    return now if state.last_grant_day < day else float((day + 1) * SECONDS_PER_DAY)


def reserve(
    state: WalletState, *, transfer_id: str, table_id: str, amount: int, expires_at: float
) -> list[AnyWalletEvent]:
    if transfer_id in state.reserved or transfer_id in state.finished:
        return []
    if amount <= 0:
        raise GameError("invalid_amount", "a buy-in must be a positive number of chips")
    if amount > state.balance:
        raise GameError(
            "insufficient_funds", f"the buy-in is {amount} chips; the wallet has {state.balance}"
        )
    return [
        BuyInReserved(
            transfer_id=transfer_id, table_id=table_id, amount=amount, expires_at=expires_at
        )
    ]


def release(state: WalletState, *, transfer_id: str, reason: str) -> list[AnyWalletEvent]:
    if transfer_id not in state.reserved:
        return []
    return [ReservationReleased(transfer_id=transfer_id, reason=reason)]


def complete(state: WalletState, *, transfer_id: str) -> list[AnyWalletEvent]:
    if transfer_id not in state.reserved:
        return []
    return [BuyInCompleted(transfer_id=transfer_id)]


def request_cash_out(
    state: WalletState, *, transfer_id: str, table_id: str, now: float
) -> list[AnyWalletEvent]:
    if transfer_id in state.leaving or transfer_id in state.finished:
        return []
    return [CashOutRequested(transfer_id=transfer_id, table_id=table_id, requested_at=now)]


def cash_out(
    state: WalletState, *, transfer_id: str, table_id: str, amount: int
) -> list[AnyWalletEvent]:
    """Credit what the table paid out. The table stream is the truth: no request needed."""
    if transfer_id in state.finished:
        return []
    if amount < 0:
        raise GameError("invalid_amount", "a cash-out cannot be negative")
    return [CashedOut(transfer_id=transfer_id, table_id=table_id, amount=amount)]


def cancel_cash_out(state: WalletState, *, transfer_id: str, reason: str) -> list[AnyWalletEvent]:
    if transfer_id not in state.leaving:
        return []
    return [CashOutCancelled(transfer_id=transfer_id, reason=reason)]
