"""The checks of a request's arguments, before anything is read or written.

Each public method of `TableService` runs the guards of its arguments first, in the order of
its signature, so a malformed request is refused the same way whichever method gets it and
never reaches the store; `existing` is the one guard that reads: the table must be there. What
a guard raises is a `ServiceError` (or a `GameError` from the game core's own verifier, which
the service's boundary translates). Rules of the game are not restated here: they are the game
core's (`service.game.legal`).
"""

from __future__ import annotations

import re
from typing import NamedTuple, TypeGuard

from service.game.legal import verify_client_seed
from service.game.settings import TableSettings
from service.game.state import TableState
from service.tables.errors import bad_request, not_found
from service.tables.facade import ServiceError
from service.tables.history import MAX_LIMIT as MAX_HISTORY
from service.tables.repo import TableRepo

MAX_ACTION_ID = 128
TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# The highest version a reader may name (JavaScript's exact integers, as the API's `after`):
# past it, Redis refuses the stream id.
MAX_VERSION = 2**53 - 1


def is_int(value: object) -> TypeGuard[int]:
    """A whole number, and not a bool (JSON's true is no count of chips)."""
    return isinstance(value, int) and not isinstance(value, bool)


def table_ref(table_id: object) -> str:
    """A table id the store could hold (else 404: no such table, without a read)."""
    if not isinstance(table_id, str) or not TABLE_ID.match(table_id):
        raise not_found(str(table_id))
    return table_id


def whole(value: object, name: str) -> None:
    """An optional whole number (None passes)."""
    if value is not None and not is_int(value):
        raise bad_request(f"{name} must be a whole number")


def chips(buy_in: object) -> None:
    if not is_int(buy_in) or buy_in <= 0:
        raise bad_request("buy_in must be a positive whole number of chips")


def after(version: object) -> None:
    if not is_int(version) or not 0 <= version <= MAX_VERSION:
        raise bad_request(f"after must be a version: a whole number from 0 to {MAX_VERSION}")


def hand_ref(table_id: object, hand: object) -> None:
    if not is_int(hand) or hand < 1:
        raise ServiceError(404, "hand_not_found", "hands are numbered from 1")
    table_ref(table_id)


def history_limit(limit: object) -> None:
    if not is_int(limit) or not 1 <= limit <= MAX_HISTORY:
        raise bad_request(f"limit must be between 1 and {MAX_HISTORY}")


def action(
    table_id: object,
    action_id: object,
    type: object,
    amount: object,
    expected_version: object,
) -> None:
    """An action's arguments (the game core validates the type and amount: `act`)."""
    if not isinstance(action_id, str) or not 0 < len(action_id) <= MAX_ACTION_ID:
        raise bad_request(f"action_id must be a string of 1 to {MAX_ACTION_ID} characters")
    whole(amount, "amount")
    whole(expected_version, "expected_version")
    if not isinstance(type, str):
        raise bad_request("type must be a string")
    table_ref(table_id)


def client_seed(seed: object) -> None:
    """The seed's form is the game core's rule, asked before the table is read."""
    verify_client_seed(seed)


def practice_bots(count: object, settings: TableSettings) -> None:
    """At least one seat left for a human (practice bots are this layer's, not the game's)."""
    if not is_int(count) or not 0 <= count < settings.max_seats:
        raise bad_request(f"practice_bots must be between 0 and {settings.max_seats - 1}")


class Table(NamedTuple):
    """A table that exists: its version and state."""

    version: int
    state: TableState


async def existing(repo: TableRepo, table_id: object) -> Table:
    """The table, read through the repo's cache; 404 when the id is malformed or unused."""
    loaded = await repo.load(table_ref(table_id))
    if loaded.state is None:
        raise not_found(str(table_id))
    return Table(loaded.version, loaded.state)


async def state_of(repo: TableRepo, table_id: object) -> TableState:
    """The table's state; 404 when the id is malformed or unused."""
    return (await existing(repo, table_id)).state
