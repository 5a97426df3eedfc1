"""Commands: what someone asks a table to do. Imperative names; the decider answers with events.

Time and randomness come in with the command (`now`, `seed`), so the decider stays pure and
replay stays deterministic. The service fills `seed` with `secrets.token_bytes(32)` on every
command; the decider uses it only when the command leads to a new deal.
"""

from __future__ import annotations

import math
from typing import Literal

import msgspec

from service.game.errors import GameError
from service.game.settings import TableSettings


class Command(msgspec.Struct, frozen=True, kw_only=True):
    now: float  # seconds since the epoch, from the service's clock
    seed: bytes = b""  # 32 random bytes; used only if this command deals cards


class CreateTable(Command, frozen=True, kw_only=True):
    table_id: str
    settings: TableSettings
    created_by: int  # user id
    # The deployment's idle limit, recorded in `table_created` (0.0: the rule's day).
    idle_close_seconds: float = 0.0
    tournament_id: str = ""  # a Sit & Go's table ("" : a cash table)
    name: str = ""  # already checked (`service.game.names.table_name`)
    private: bool = False
    group_chat_id: int | None = None  # the Telegram group of a /newtable table


class SitDown(Command, frozen=True, kw_only=True):
    """Take a seat with chips already reserved from the wallet under `transfer_id`."""

    user_id: int
    name: str
    buy_in: int
    transfer_id: str
    seat: int | None = None  # None: the first free seat


class Leave(Command, frozen=True, kw_only=True):
    """Stand up; a player still in the hand folds first. The stack goes back under `transfer_id`."""

    user_id: int
    transfer_id: str
    # Set when standing up to buy in again with this many chips at the same seat: the
    # stand-up is refused unless that rebuy is allowed (`legal.verify_rebuy`), so a rebuy the
    # rules refuse never costs the player their seat.
    rebuy: int | None = None


class PlaceBlind(Command, frozen=True, kw_only=True):
    user_id: int
    amount: int


class Pass(Command, frozen=True, kw_only=True):
    user_id: int


class Look(Command, frozen=True, kw_only=True):
    user_id: int


class Call(Command, frozen=True, kw_only=True):
    user_id: int


class Raise(Command, frozen=True, kw_only=True):
    user_id: int
    amount: int  # the new level ("raise to"), as in docs/API.md "Endpoints"


class Fold(Command, frozen=True, kw_only=True):
    user_id: int


class JoinSvara(Command, frozen=True, kw_only=True):
    user_id: int


class SkipSvara(Command, frozen=True, kw_only=True):
    user_id: int


class SitIn(Command, frozen=True, kw_only=True):
    user_id: int


class SetClientSeed(Command, frozen=True, kw_only=True):
    """A seated player's own seed for v2 decks (docs/FAIRNESS.md "Decks"): 1-64 characters
    of [A-Za-z0-9_-]; it counts from the next deal dealt after it."""

    user_id: int
    client_seed: str


class Tick(Command, frozen=True, kw_only=True):
    """The clock reached `state.deadline`: time out the turn, close the svara join window, or
    start the next hand. Refused with `not_due` before the deadline, so timers may fire early,
    twice, or on several processes: at most one Tick per deadline is ever appended."""


class SeatPlayers(Command, frozen=True, kw_only=True):
    """Seat a tournament's players at its empty table at once, each with `stack` tournament
    chips (no wallet: the transfer id names the tournament), so hand 1 deals them all."""

    players: tuple[tuple[int, str], ...]  # (user id, name) in seat order
    stack: int


class ChangeAnte(Command, frozen=True, kw_only=True):
    """A tournament's level `level`: `ante` from the next hand on; a level not above the
    table's is no change (the process manager may ask twice)."""

    ante: int
    level: int


PlayerCommand = PlaceBlind | Pass | Look | Call | Raise | Fold | JoinSvara | SkipSvara | SitIn
TableCommand = (
    CreateTable | SitDown | Leave | PlayerCommand | SetClientSeed | Tick
    | SeatPlayers | ChangeAnte  # tournament tables
)

ActionType = Literal[
    "blind", "pass", "look", "call", "raise", "fold", "join_svara", "skip_svara", "sit_in"
]
ACTION_TYPES: tuple[str, ...] = (
    "blind",
    "pass",
    "look",
    "call",
    "raise",
    "fold",
    "join_svara",
    "skip_svara",
    "sit_in",
)
_NEEDS_AMOUNT: dict[str, type[PlaceBlind] | type[Raise]] = {"blind": PlaceBlind, "raise": Raise}
_NO_AMOUNT: dict[str, type[Pass | Look | Call | Fold | JoinSvara | SkipSvara | SitIn]] = {
    "pass": Pass,
    "look": Look,
    "call": Call,
    "fold": Fold,
    "join_svara": JoinSvara,
    "skip_svara": SkipSvara,
    "sit_in": SitIn,
}


def check_numbers(command: TableCommand) -> None:
    """Refuse numbers that are not whole numbers (or, for an idle limit, not a number of
    seconds) before any handler reads them.

    Clients' numbers reach commands already typed (the API decodes bodies with msgspec), but a
    direct caller may pass `1.5` or `"3"`. Checked here, in one place, because the compiled
    build of the game core (mypyc, docs/ARCHITECTURE.md) raises TypeError on the first read of a
    mistyped field, where the pure build would reach the handler's own check.
    """
    if isinstance(command, PlaceBlind):
        _whole(command.amount, "invalid_amount", "the blind must be a whole number of chips")
    elif isinstance(command, Raise):
        _whole(command.amount, "invalid_amount", "the raise must be a whole number of chips")
    elif isinstance(command, SetClientSeed):
        if type(command.client_seed) is not str:
            raise GameError("invalid_client_seed", "a client seed is a string")
    elif isinstance(command, CreateTable):
        idle = command.idle_close_seconds
        if type(idle) not in (int, float) or not 0 <= idle < math.inf:  # NaN fails both
            raise GameError("invalid_settings", "the idle limit is a number of seconds, 0 or more")
        if command.group_chat_id is not None and type(command.group_chat_id) is not int:
            raise GameError("invalid_settings", "a group chat id is a whole number")
    elif isinstance(command, SitDown):
        _whole(command.buy_in, "invalid_amount", "the buy-in must be a whole number of chips")
        if command.seat is not None:
            _whole(command.seat, "invalid_seat", "a seat is a whole number")
    elif isinstance(command, Leave) and command.rebuy is not None:
        _whole(command.rebuy, "invalid_amount", "the buy-in must be a whole number of chips")


def _whole(value: object, code: str, message: str) -> None:
    if type(value) is not int:  # bool is an int subclass, and no number
        raise GameError(code, message)


def command_for_action(
    action: str, *, user_id: int, amount: int | None, now: float, seed: bytes = b""
) -> PlayerCommand:
    """Map an API action (`type` + optional `amount`) to its command.

    Raises GameError `unknown_action` / `amount_required` with a message for people.
    """
    if action in _NEEDS_AMOUNT:
        if amount is None:
            raise GameError("amount_required", f"'{action}' needs an amount")
        return _NEEDS_AMOUNT[action](user_id=user_id, amount=amount, now=now, seed=seed)
    if action in _NO_AMOUNT:
        return _NO_AMOUNT[action](user_id=user_id, now=now, seed=seed)
    raise GameError("unknown_action", f"unknown action type {action!r}; one of {ACTION_TYPES}")
