"""REST endpoints of docs/API.md ("Endpoints"). Handlers only translate HTTP ↔ `Tables`."""

from __future__ import annotations

from typing import Any

import msgspec
from aiohttp import web

from service.api import schemas
from service.api.auth import sign_init_data
from service.api.context import CONFIG, HEALTH_CHECK, TABLES, authenticate
from service.api.errors import ApiError, Handler, json_errors, unmatched
from service.api.openapi import openapi_document
from service.game.settings import validated
from service.tables.chat import catalogue
from service.tables.lobby import CURSOR, LOBBY_PAGE, MAX_LOBBY_PAGE

TABLE_ID = r"{table_id:[A-Za-z0-9_-]{1,64}}"
_encode = msgspec.json.Encoder().encode


def json_response(data: Any, status: int = 200) -> web.Response:
    return web.Response(body=_encode(data), status=status, content_type="application/json")


def _int_param(request: web.Request, name: str, default: int | None = None) -> int:
    raw = request.query.get(name) if name not in request.match_info else request.match_info[name]
    if raw is None:
        if default is None:
            raise ApiError(400, "invalid_parameter", f"{name} is required")
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(400, "invalid_parameter", f"{name} must be a whole number") from None
    if not 0 <= value < 2**53:
        raise ApiError(400, "invalid_parameter", f"{name} is out of range")
    return value


async def health(request: web.Request) -> web.Response:
    check = request.app.get(HEALTH_CHECK)
    if check is not None and not await check():
        raise ApiError(503, "store_unavailable", "the table store is unreachable")
    return json_response({"status": "ok"})


async def openapi(request: web.Request) -> web.Response:
    return json_response(openapi_document())


async def me(request: web.Request) -> web.Response:
    user = authenticate(request)
    return json_response(await request.app[TABLES].me(user))


async def set_preferences(request: web.Request) -> web.Response:
    user = authenticate(request)
    body: schemas.PreferencesBody = schemas.decode_body(
        schemas.preferences_decoder, await request.read()
    )
    answer = await request.app[TABLES].set_preferences(
        user, language=body.language, pings=body.pings
    )
    return json_response(answer)


async def list_tables(request: web.Request) -> web.Response:
    """A page of open tables; `?limit=` (1-200, default 50) and `?cursor=` (the `next` of
    the page before)."""
    authenticate(request)
    limit = _int_param(request, "limit", default=LOBBY_PAGE)
    if not 1 <= limit <= MAX_LOBBY_PAGE:
        raise ApiError(400, "invalid_parameter", f"limit must be between 1 and {MAX_LOBBY_PAGE}")
    cursor = request.query.get("cursor") or None
    if cursor is not None and not CURSOR.fullmatch(cursor):
        raise ApiError(400, "invalid_parameter", "cursor must be the `next` of a page")
    return json_response(await request.app[TABLES].list_tables(limit=limit, cursor=cursor))


async def create_table(request: web.Request) -> web.Response:
    user = authenticate(request)
    body: schemas.CreateTableBody = schemas.decode_body(
        schemas.create_table_decoder, await request.read()
    )
    tables = request.app[TABLES]
    table_id = await tables.create_table(
        user, validated(body.settings()), practice_bots=body.practice_bots, name=body.name,
        private=body.private,
    )
    if not body.private:
        return json_response({"table_id": table_id}, status=201)
    invite = await tables.social.issue_invite(user, table_id)
    return json_response({"table_id": table_id, "invite": invite}, status=201)


async def seat(request: web.Request) -> web.Response:
    user = authenticate(request)
    body: schemas.SeatBody = schemas.decode_body(schemas.seat_decoder, await request.read())
    view = await request.app[TABLES].seat(
        user, request.match_info["table_id"], body.buy_in, body.invite
    )
    return json_response(view)


async def rebuy(request: web.Request) -> web.Response:
    user = authenticate(request)
    body: schemas.SeatBody = schemas.decode_body(schemas.seat_decoder, await request.read())
    view = await request.app[TABLES].rebuy(user, request.match_info["table_id"], body.buy_in)
    return json_response(view)


async def hands(request: web.Request) -> web.Response:
    authenticate(request)
    limit = _int_param(request, "limit", default=10)
    return json_response(
        {"hands": await request.app[TABLES].hands(request.match_info["table_id"], limit)})


async def set_seed(request: web.Request) -> web.Response:
    user = authenticate(request)
    body: schemas.SeedBody = schemas.decode_body(schemas.seed_decoder, await request.read())
    view = await request.app[TABLES].set_client_seed(
        user, request.match_info["table_id"], body.client_seed
    )
    return json_response(view)


async def leave(request: web.Request) -> web.Response:
    user = authenticate(request)
    return json_response(await request.app[TABLES].leave(user, request.match_info["table_id"]))


async def act(request: web.Request) -> web.Response:
    user = authenticate(request)
    body: schemas.ActionBody = schemas.decode_body(schemas.action_decoder, await request.read())
    version = await request.app[TABLES].act(
        user, request.match_info["table_id"], action_id=body.action_id, type=body.type,
        amount=body.amount, expected_version=body.expected_version,
    )
    return json_response({"version": version})


async def view(request: web.Request) -> web.Response:
    user = authenticate(request)
    tables, table_id = request.app[TABLES], request.match_info["table_id"]
    answer = await tables.social.with_invite(
        user, await tables.view(user, table_id, request.query.get("invite")))
    # each seat's `away`, from presence (never part of the state, so not in pushed views)
    return json_response(await tables.social.with_away(table_id, tables.presence, answer))


async def events(request: web.Request) -> web.Response:
    user = authenticate(request)
    after = _int_param(request, "after", default=0)
    version, items = await request.app[TABLES].events(
        user, request.match_info["table_id"], after, request.query.get("invite"))
    return json_response({"version": version, "events": items})


async def audit(request: web.Request) -> web.Response:
    authenticate(request)
    hand = _int_param(request, "hand")
    if hand < 1:
        raise ApiError(404, "unknown_hand", "hands are numbered from 1")
    return json_response(await request.app[TABLES].audit(request.match_info["table_id"], hand))



# -- the social table: quick chat and private tables' invites --------------------------------


async def chat_phrases(request: web.Request) -> web.Response:
    authenticate(request)
    return json_response(catalogue())


async def post_chat(request: web.Request) -> web.Response:
    user = authenticate(request)
    body: schemas.ChatBody = schemas.decode_body(schemas.chat_decoder, await request.read())
    seq = await request.app[TABLES].social.chat.post(
        user, request.match_info["table_id"], phrase=body.phrase, reaction=body.reaction,
        invite=body.invite or request.query.get("invite"),
    )
    return json_response({"seq": seq})


async def get_chat(request: web.Request) -> web.Response:
    user = authenticate(request)
    after = _int_param(request, "after", default=0)
    return json_response(await request.app[TABLES].social.chat.messages(
        user, request.match_info["table_id"], after, request.query.get("invite")))


async def new_invite(request: web.Request) -> web.Response:
    user = authenticate(request)
    invite = await request.app[TABLES].social.issue_invite(user, request.match_info["table_id"])
    return json_response({"table_id": request.match_info["table_id"], "invite": invite})


async def dev_init_data(request: web.Request) -> web.Response:
    """Dev mode only (no BOT_TOKEN): initData for a test user, signed with the dev token."""
    user_id = _int_param(request, "user_id")
    if user_id < 1:
        raise ApiError(400, "invalid_parameter", "user_id must be positive")
    name = request.query.get("name", "").strip()[:64] or f"player {user_id}"
    language = request.query.get("language", "").strip()[:35] or None
    token = request.app[CONFIG].signing_token
    init_data = sign_init_data(token, user_id=user_id, name=name, language_code=language)
    return json_response({"init_data": init_data})


def add_routes(app: web.Application, *, dev_mode: bool) -> None:
    """The API's routes, each handler wrapped in `json_errors`. `add_unmatched` must come
    after every other route under /api/ and /dev/."""
    from service.api import hand_routes, stats_routes
    from service.api.tournament_routes import add_tournament_routes
    from service.api.ws import table_socket

    def get(path: str, handler: Handler, *, timed: bool = True) -> None:
        app.router.add_get(path, json_errors(handler, timed=timed))

    def post(path: str, handler: Handler) -> None:
        app.router.add_post(path, json_errors(handler))

    get("/api/health", health)
    get("/api/openapi.json", openapi)
    get("/api/me", me)
    get("/api/me/hands", hand_routes.my_hands)
    get(f"/api/players/{stats_routes.USER_ID}/stats", stats_routes.player_stats)
    get("/api/leaderboard", stats_routes.leaderboard)
    post("/api/me/settings", set_preferences)
    get("/api/tables", list_tables)
    post("/api/tables", create_table)
    # The table routes are matched in this order: the hot one (actions) first.
    post(f"/api/tables/{TABLE_ID}/actions", act)
    get(f"/api/tables/{TABLE_ID}", view)
    post(f"/api/tables/{TABLE_ID}/seat", seat)
    post(f"/api/tables/{TABLE_ID}/leave", leave)
    post(f"/api/tables/{TABLE_ID}/rebuy", rebuy)
    get(f"/api/tables/{TABLE_ID}/hands", hands)
    post(f"/api/tables/{TABLE_ID}/seed", set_seed)
    get(f"/api/tables/{TABLE_ID}/events", events)
    get(f"/api/tables/{TABLE_ID}/hands/{{hand:[0-9]{{1,9}}}}/audit", audit)
    get(f"/api/tables/{TABLE_ID}/hands/{hand_routes.HAND}/export", hand_routes.export)
    get(f"/api/tables/{TABLE_ID}/hands/{hand_routes.HAND}/replay", hand_routes.replay)
    get(f"/api/tables/{TABLE_ID}/hands/{hand_routes.HAND}/transcript", hand_routes.transcript)
    post(f"/api/tables/{TABLE_ID}/hands/{hand_routes.HAND}/download", hand_routes.mint_downloads)
    get(f"/api/tables/{TABLE_ID}/ws", table_socket, timed=False)
    # -- sharing and the bot's write access (service/api/share.py, grants.py) --
    from service.api.grants import install_grants, write_access
    from service.api.share import share

    post("/api/share", share)
    post("/api/me/write-access", write_access)
    install_grants(app)
    # -- end of sharing --
    add_tournament_routes(get, post)
    # the social table
    get("/api/chat/phrases", chat_phrases)
    post(f"/api/tables/{TABLE_ID}/chat", post_chat)
    get(f"/api/tables/{TABLE_ID}/chat", get_chat)
    post(f"/api/tables/{TABLE_ID}/invite", new_invite)
    if dev_mode:
        get("/dev/init-data", dev_init_data)


def add_unmatched(app: web.Application) -> None:
    """JSON 404/405 for whatever else comes under /api/ and /dev/ (registered last)."""
    app.router.add_route("*", "/api/{tail:.*}", unmatched)
    app.router.add_route("*", "/dev/{tail:.*}", unmatched)
