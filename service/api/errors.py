"""The API's error format and the handler wrapper that guarantees it.

Every refusal is `{"error": {"code", "message", ...}}` (docs/API.md, "Errors"). Anything a client
can cause maps to a 4xx here; only a real bug becomes a 500, and that is logged with its trace.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable
from time import perf_counter
from typing import Any

import msgspec
from aiohttp import web
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import OutOfMemoryError as RedisOutOfMemoryError
from redis.exceptions import TimeoutError as RedisTimeoutError

from events.store.base import StoreFull, StoreUnavailable
from service import metrics
from service.api.auth import AuthError
from service.game.errors import CONFLICT_CODES, FORBIDDEN_CODES, GameError
from service.tables.facade import ServiceError

log = logging.getLogger("svara.api")

# The longest a request waits for an answer (deploy/README.md "A slow or partitioned Redis").
# Each store call has its own timeouts (a command's 2 s, the pool's 5 s wait for a
# connection), but a request makes several in a row and may queue for a connection first: a
# silent Redis held requests for 10 s and more. Past this the handler is cancelled and the
# client gets 503 `store_unavailable`; an action's outcome is then unknown, and retrying it
# with the same action_id is safe. A healthy Redis answers a whole request in milliseconds.
REQUEST_DEADLINE = 5.0

NOT_FOUND_CODES = frozenset({"unknown_table", "table_not_found", "unknown_hand", "not_found"})
_encode = msgspec.json.Encoder().encode


class ApiError(Exception):
    """A refusal decided in the API layer itself (bad body, rate limit, unknown route ...)."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}, **extra}


def json_error(status: int, code: str, message: str, **extra: Any) -> web.Response:
    response = web.Response(
        status=status, body=_encode(error_body(code, message, **extra)),
        content_type="application/json",
    )
    retry = extra.get("retry_after")
    if status == 429 and isinstance(retry, int | float):  # whole seconds, rounded up
        response.headers["Retry-After"] = str(max(1, math.ceil(retry)))
    return response


def game_error_status(code: str) -> int:
    if code in FORBIDDEN_CODES:
        return 403
    if code == "invalid_client_seed":
        return 400
    if code in CONFLICT_CODES:
        return 409
    if code in NOT_FOUND_CODES:
        return 404
    return 422


def classify(exc: BaseException) -> tuple[int, str, str, dict[str, Any]] | None:
    """(status, code, message, extra) for an exception a client can cause; None for a bug.

    Every 503 (the store unreachable, busy past its wait, a stream too contended) is logged
    here with its cause, the one place every HTTP and WebSocket refusal passes through, so an
    operator sees why it happened rather than only a count of 503s -- except `store_full`,
    which the store logs once per episode (it lasts until someone frees memory, and a line
    per refused request would flood the log meanwhile)."""
    known = _classify(exc)
    if known is not None and known[0] == 503 and known[1] != "store_full":
        log.warning("answering 503 %s: %s", known[1], why(exc))
    return known


def why(exc: BaseException) -> str:
    """The exception and what caused it, innermost last ("A: x <- B: y")."""
    parts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(parts) < 6:
        seen.add(id(current))
        parts.append(f"{type(current).__name__}: {current}")
        current = current.__cause__ or current.__context__
    return " <- ".join(parts)


def _classify(exc: BaseException) -> tuple[int, str, str, dict[str, Any]] | None:
    if isinstance(exc, ApiError | ServiceError):
        return exc.status, exc.code, exc.message, dict(exc.extra)
    if isinstance(exc, AuthError):
        return 401, exc.code, exc.message, {}
    if isinstance(exc, GameError):
        return game_error_status(exc.code), exc.code, exc.message, {}
    if isinstance(exc, StoreFull | RedisOutOfMemoryError):
        return 503, "store_full", "the table store is full and refuses writes; try later", {}
    if isinstance(exc, StoreUnavailable | RedisConnectionError | RedisTimeoutError):
        return 503, "store_unavailable", "the table store is unreachable; try again shortly", {}
    if isinstance(exc, msgspec.ValidationError):
        return 400, "invalid_body", str(exc), {}
    if isinstance(exc, msgspec.DecodeError):
        return 400, "malformed_json", "the body is not valid JSON", {}
    return None


_HTTP_CODES = {
    400: "bad_request", 404: "not_found", 405: "method_not_allowed",
    413: "body_too_large", 415: "unsupported_media_type",
}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def json_errors(handler: Handler, *, timed: bool = True) -> Handler:
    """Wrap a route handler: every refusal becomes the JSON error format; real bugs are
    logged, not leaked. Per handler rather than as a middleware: an aiohttp middleware puts
    two more coroutine layers under every request, the action included (a few percent of
    its CPU); `unmatched` answers what the router refuses before any handler runs.

    With `timed` (not for WebSockets, which live for minutes) each request's time and status
    go to `svara_http_request_duration_seconds` / `svara_http_responses_total`, through a
    recorder bound to the handler's name once, here."""
    record = metrics.request_observer(getattr(handler, "__name__", "handler")) if timed else None
    load = metrics.LOAD

    async def guarded(request: web.Request) -> web.StreamResponse:
        started = perf_counter()
        try:
            if record is None:  # a WebSocket: lives for minutes, no deadline
                response = await handler(request)
            else:
                response = await _within_deadline(handler, request, load)
        except web.HTTPException as exc:
            if exc.status < 400 or not request.path.startswith(("/api/", "/dev/")):
                raise
            code = _HTTP_CODES.get(exc.status, "http_error")
            response = json_error(exc.status, code, exc.reason)
        except Exception as exc:
            known = classify(exc)
            if known is None:
                log.exception("unhandled error on %s %s", request.method, request.path,
                              extra={"table": request.match_info.get("table_id")})
                response = json_error(500, "internal_error", "something went wrong on our side")
            else:
                status, code, message, extra = known
                response = json_error(status, code, message, **extra)
        if record is not None:
            record(response.status, perf_counter() - started)
        return response

    guarded.__name__ = getattr(handler, "__name__", "handler")
    guarded.__doc__ = handler.__doc__
    return guarded


async def _within_deadline(
    handler: Handler, request: web.Request, load: metrics.Load
) -> web.StreamResponse:
    load.http_in_flight += 1
    try:
        async with asyncio.timeout(REQUEST_DEADLINE) as scope:
            return await handler(request)
    except TimeoutError:
        if not scope.expired():
            raise
        raise StoreUnavailable(
            f"no answer within the request deadline ({REQUEST_DEADLINE} s)"
        ) from None
    finally:
        load.http_in_flight -= 1


async def unmatched(request: web.Request) -> web.StreamResponse:
    """The last route under /api/ and /dev/: no route has this path (404), or none for this
    method (405, with Allow), in the JSON error format."""
    allowed: set[str] = set()
    for resource in request.app.router.resources():
        if resource is request.match_info.route.resource:
            continue
        _match, methods = await resource.resolve(request)
        allowed |= methods
    if allowed:
        response = json_error(405, "method_not_allowed", "Method Not Allowed")
        response.headers["Allow"] = ",".join(sorted(allowed))
        return response
    return json_error(404, "not_found", "Not Found")
