"""Mapping refusals to ServiceError, so adapters never see anything else for client input."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from events.store.base import StoreFull, StoreUnavailable
from service.game.errors import CONFLICT_CODES, FORBIDDEN_CODES, GameError
from service.tables.facade import ServiceError

BAD_REQUEST_CODES = frozenset(
    {
        "invalid_settings",
        "unknown_action",
        "amount_required",
        "bad_request",
        "invalid_client_seed",
        "unknown_language",
    }
)


def from_game_error(error: GameError) -> ServiceError:
    if error.code in FORBIDDEN_CODES:
        status = 403
    elif error.code in CONFLICT_CODES:
        status = 409
    elif error.code in BAD_REQUEST_CODES:
        status = 400
    else:
        status = 422
    return ServiceError(status, error.code, error.message)


def not_found(table_id: str) -> ServiceError:
    return ServiceError(404, "table_not_found", f"no table {table_id!r}")


def conflict(version: int) -> ServiceError:
    return ServiceError(
        409, "version_conflict", f"the table is at version {version}", version=version
    )


def bad_request(message: str) -> ServiceError:
    return ServiceError(400, "bad_request", message)


@asynccontextmanager
async def service_errors() -> AsyncIterator[None]:
    """Turn GameError and StoreUnavailable into ServiceError at the service's boundary."""
    try:
        yield
    except TRANSLATED as error:
        raise as_service_error(error) from error


# What the service's boundary turns into ServiceError (`as_service_error`).
TRANSLATED = (GameError, StoreUnavailable, ConnectionError, TimeoutError, OSError)


def as_service_error(error: BaseException) -> ServiceError:
    """The ServiceError for one of TRANSLATED (for hot paths that cannot afford the context
    manager: `except TRANSLATED as e: raise as_service_error(e) from e`)."""
    if isinstance(error, GameError):
        return from_game_error(error)
    if isinstance(error, StoreFull):  # not "try again shortly": someone must free memory
        return ServiceError(503, "store_full", "the store is full and refuses writes; try later")
    # The cause (unreachable, or busy past the wait for a connection) stays chained for the
    # API's 503 log line (`service.api.errors.classify`).
    return ServiceError(503, "store_unavailable", "the store is unreachable or busy; try again")
