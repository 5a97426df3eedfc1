"""The endpoints of a settled hand as a record (docs/API.md): its replay, its transcript, the
caller's own hands, and the download links (`service.api.downloads`) that let Telegram's
client fetch the export and the transcript without our Authorization header."""

from __future__ import annotations

import re

import msgspec
from aiohttp import web

from service.api import downloads
from service.api.context import CONFIG, TABLES, authenticate, charge
from service.api.errors import ApiError, classify, error_body
from service.tables.facade import ServiceError, User

HAND = "{hand:[^/]{1,32}}"
MY_HANDS_PAGE = 20
_CURSOR = re.compile(r"^[0-9]{14}:[A-Za-z0-9_-]{1,64}:[0-9]{1,10}$")
_encode_json = msgspec.json.Encoder().encode


def _json(data: object, status: int = 200) -> web.Response:
    return web.Response(body=_encode_json(data), status=status, content_type="application/json")


def hand_number(request: web.Request) -> int:
    raw = request.match_info["hand"]
    if not raw.isdigit() or len(raw) > 9:
        raise ApiError(400, "invalid_parameter", "the hand number must be a whole number")
    hand = int(raw)
    if hand < 1:
        raise ApiError(404, "unknown_hand", "hands are numbered from 1")
    return hand


def _secret(request: web.Request) -> bytes:
    return downloads.download_secret(request.app[CONFIG].signing_token)


def _language(request: web.Request) -> str | None:
    language = request.query.get("lang") or None
    if language is not None and not re.fullmatch(r"[a-z]{2}", language):
        raise ApiError(400, "invalid_parameter", "lang must be a language code such as en")
    return language


async def replay(request: web.Request) -> web.Response:
    user = authenticate(request)
    hand = hand_number(request)
    table_id = request.match_info["table_id"]
    return _json(await request.app[TABLES].replay(user, table_id, hand))


async def my_hands(request: web.Request) -> web.Response:
    user = authenticate(request)
    raw = request.query.get("limit", str(MY_HANDS_PAGE))
    if not raw.isdigit() or not 1 <= int(raw) <= 100:
        raise ApiError(400, "invalid_parameter", "limit must be between 1 and 100")
    cursor = request.query.get("cursor") or None
    if cursor is not None and not _CURSOR.match(cursor):
        raise ApiError(400, "invalid_parameter", "cursor must be the `next` of a page")
    return _json(await request.app[TABLES].my_hands(user, cursor, int(raw)))


async def mint_downloads(request: web.Request) -> web.Response:
    """`{"export_url", "transcript_url", "file_names": {"export", "transcript"}}`: links
    valid for `downloads.TTL_SECONDS`, for the caller only, in the caller's language."""
    user = authenticate(request)
    hand = hand_number(request)
    table_id = request.match_info["table_id"]
    tables = request.app[TABLES]
    language = _language(request) or (await tables.me(user))["language"]
    if language not in ("en", "ru", "bg", "tr", "de", "ar"):
        raise ApiError(400, "unknown_language", f"no language {language!r}")
    public = request.app[CONFIG].public_url
    base = public.rstrip("/") if public else str(request.url.origin())
    secret = _secret(request)
    urls = {}
    for kind in downloads.KINDS:
        token = downloads.mint(secret, user.id, kind, table_id, hand, language)
        urls[f"{kind}_url"] = f"{base}/api/tables/{table_id}/hands/{hand}/{kind}?download={token}"
    names = {kind: downloads.file_name(table_id, hand, kind) for kind in downloads.KINDS}
    return _json({**urls, "file_names": names, "expires_in": downloads.TTL_SECONDS})


async def _open(request: web.Request, kind: str, hand: int) -> tuple[User, str | None]:
    """The caller of a download GET: the token's user (no Authorization header needed), or
    the authenticated caller when there is no token."""
    token = request.query.get("download")
    if token is None:
        return authenticate(request), None
    table_id = request.match_info["table_id"]
    grant = downloads.check(_secret(request), token, kind, table_id, hand)
    user = User(id=grant.user_id, name="")
    charge(request.app, user)
    return user, grant.language


def _download_headers(response: web.StreamResponse, name: str) -> None:
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    response.headers["Access-Control-Allow-Origin"] = "*"


def _refusal(exc: Exception) -> web.Response:
    """A download GET's refusal, with the CORS header (the client must be able to read it)."""
    known = classify(exc)
    if known is None:
        raise exc
    status, code, message, extra = known
    response = _json(error_body(code, message, **extra), status=status)
    response.headers["Access-Control-Allow-Origin"] = "*"
    return response


async def export(request: web.Request) -> web.Response:
    try:
        hand = hand_number(request)
        await _open(request, "export", hand)
        table_id = request.match_info["table_id"]
        response = _json(await request.app[TABLES].export(table_id, hand))
    except (ApiError, ServiceError) as exc:
        if "download" not in request.query:
            raise
        return _refusal(exc)
    _download_headers(response, downloads.file_name(table_id, hand, "export"))
    return response


async def transcript(request: web.Request) -> web.Response:
    try:
        hand = hand_number(request)
        user, language = await _open(request, "transcript", hand)
        language = _language(request) or language
        table_id = request.match_info["table_id"]
        text = await request.app[TABLES].transcript(user, table_id, hand, language)
    except (ApiError, ServiceError) as exc:
        if "download" not in request.query:
            raise
        return _refusal(exc)
    response = web.Response(text=text, content_type="text/plain", charset="utf-8")
    if "download" in request.query:
        _download_headers(response, downloads.file_name(table_id, hand, "transcript"))
    return response
