"""The tournament endpoints of docs/API.md ("Tournaments"): handlers only translate HTTP to
the service's `Tournaments` (`service.tables.tournaments_service`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import msgspec
from aiohttp import web

from events.tournament import TournamentSettings
from service.api.context import TABLES, authenticate
from service.api.errors import ApiError, Handler
from service.api.schemas import decode_body
from service.tables.tournaments_service import Tournaments

TOURNAMENT_ID = r"{tournament_id:[A-Za-z0-9_-]{1,64}}"
CURSOR_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_encode = msgspec.json.Encoder().encode
Small = Annotated[int, msgspec.Meta(ge=0, le=10**12)]


class CreateTournamentBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    seats: Annotated[int, msgspec.Meta(ge=2, le=10)]
    buy_in: Small
    stack: Small
    antes: Annotated[list[Small], msgspec.Meta(min_length=1, max_length=50)]
    # the ante schedule: exactly one of the two (both or neither: 400 invalid_settings)
    hands_per_level: Small | None = None
    minutes_per_level: Small | None = None
    prizes: Annotated[list[Small], msgspec.Meta(max_length=10)] = []
    fill_seconds: Small = 600
    name: Annotated[str, msgspec.Meta(max_length=64)] = ""
    turn_seconds: Annotated[int, msgspec.Meta(ge=5, le=600)] = 15

    def settings(self) -> TournamentSettings:
        if (self.hands_per_level is None) == (self.minutes_per_level is None):
            raise ApiError(400, "invalid_settings",
                           "give exactly one of hands_per_level or minutes_per_level")
        return TournamentSettings(
            seats=self.seats, buy_in=self.buy_in, stack=self.stack, antes=tuple(self.antes),
            hands_per_level=self.hands_per_level or 0,
            minutes_per_level=self.minutes_per_level or 0, prizes=tuple(self.prizes),
            fill_seconds=self.fill_seconds, name=self.name.strip(),
            turn_seconds=self.turn_seconds,
        )


_create_decoder = msgspec.json.Decoder(CreateTournamentBody)


def _json(data: Any, status: int = 200) -> web.Response:
    return web.Response(body=_encode(data), status=status, content_type="application/json")


def _tournaments(request: web.Request) -> Tournaments:
    found = request.app[TABLES].tournaments
    if found is None:
        raise ApiError(404, "not_found", "this server runs no tournaments")
    return found


async def create(request: web.Request) -> web.Response:
    user = authenticate(request)
    body: CreateTournamentBody = decode_body(_create_decoder, await request.read())
    tournament_id = await _tournaments(request).create(user, body.settings())
    return _json({"tournament_id": tournament_id}, status=201)


async def listing(request: web.Request) -> web.Response:
    authenticate(request)
    raw = request.query.get("limit", "50")
    if not raw.isdigit() or not 1 <= int(raw) <= 100:
        raise ApiError(400, "invalid_parameter", "limit must be between 1 and 100")
    cursor = request.query.get("cursor") or None
    if cursor is not None and (len(cursor) > 64 or not set(cursor) <= CURSOR_CHARS):
        raise ApiError(400, "invalid_parameter", "cursor must be the `next` of a page")
    return _json(await _tournaments(request).list(limit=int(raw), cursor=cursor))


async def show(request: web.Request) -> web.Response:
    authenticate(request)
    return _json(await _tournaments(request).get(request.match_info["tournament_id"]))


async def register(request: web.Request) -> web.Response:
    user = authenticate(request)
    tid = request.match_info["tournament_id"]
    return _json(await _tournaments(request).register(user, tid))


async def unregister(request: web.Request) -> web.Response:
    user = authenticate(request)
    tid = request.match_info["tournament_id"]
    return _json(await _tournaments(request).unregister(user, tid))


async def audit(request: web.Request) -> web.Response:
    authenticate(request)
    return _json(await _tournaments(request).audit(request.match_info["tournament_id"]))


def add_tournament_routes(
    get: Callable[[str, Handler], None], post: Callable[[str, Handler], None]
) -> None:
    get("/api/tournaments", listing)
    post("/api/tournaments", create)
    get(f"/api/tournaments/{TOURNAMENT_ID}", show)
    post(f"/api/tournaments/{TOURNAMENT_ID}/register", register)
    post(f"/api/tournaments/{TOURNAMENT_ID}/unregister", unregister)
    get(f"/api/tournaments/{TOURNAMENT_ID}/audit", audit)
