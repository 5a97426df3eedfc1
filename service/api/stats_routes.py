"""The player stats and leaderboard endpoints (docs/API.md, "Player stats and
leaderboards"): they parse the request and ask the service (`service.tables.stats`)."""

from __future__ import annotations

import re

import msgspec
from aiohttp import web

from service.api.context import TABLES, authenticate
from service.api.errors import ApiError

USER_ID = "{user_id:[^/]{1,32}}"
_ID = re.compile(r"^-?[0-9]{1,16}$")
_MAX_ID = 2**53 - 1  # a Telegram id always fits JavaScript's safe integers
_encode = msgspec.json.Encoder().encode


def _json(data: object) -> web.Response:
    return web.Response(body=_encode(data), content_type="application/json")


def parse_id(raw: str, what: str) -> int:
    """A Telegram user or chat id from a path or query (400 `invalid_parameter` otherwise)."""
    if not _ID.match(raw) or int(raw) == 0 or abs(int(raw)) > _MAX_ID:
        raise ApiError(400, "invalid_parameter", f"{what} must be a nonzero whole number")
    return int(raw)


async def player_stats(request: web.Request) -> web.Response:
    authenticate(request)
    user_id = parse_id(request.match_info["user_id"], "user_id")
    return _json(await request.app[TABLES].player_stats(user_id))


async def leaderboard(request: web.Request) -> web.Response:
    user = authenticate(request)
    period = request.query.get("period", "week")
    if period not in ("week", "all"):
        raise ApiError(400, "invalid_parameter", "period must be 'week' or 'all'")
    raw = request.query.get("group")
    group = None if raw is None or raw == "" else parse_id(raw, "group")
    return _json(await request.app[TABLES].leaderboard(period, group, user.id))
