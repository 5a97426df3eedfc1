"""Download capabilities: URLs a client that cannot send our Authorization header may fetch.

Telegram's `WebApp.downloadFile({url, file_name})` has the Telegram client fetch the URL
itself, without the Mini App's headers, and initData must never go into a URL. So an
authenticated `POST /api/tables/{id}/hands/{n}/download` mints, per file, a short-lived token
that names what it opens and is signed by the server:

    token = <user>.<kind>.<expires>.<language>.<mac>
    mac   = base64url(HMAC-SHA256(secret, "svara-download\\n" user kind expires language
                                  table hand)[:18])
    secret = HMAC-SHA256(key="svara-download", msg=<bot token, or the dev-mode token>)

`kind` is `export` or `transcript`; the table and hand are in the URL's path and in the MAC,
so a token opens that one file of that one hand until `expires` (unix seconds) and nothing
else. Every replica of a deployment shares the bot token, so any of them accepts it. An
expired token is 401 `download_expired`; anything else that does not verify (forged,
malformed, another hand's or kind's) is 403 `invalid_download`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import time

from service.api.errors import ApiError
from service.tables.profiles import LANGUAGES

KINDS = ("export", "transcript")
TTL_SECONDS = 300
_TOKEN = re.compile(
    r"^(-?[0-9]{1,20})\.(export|transcript)\.([0-9]{1,12})\.([a-z]{2})\.([A-Za-z0-9_-]{24})$"
)


def download_secret(signing_token: str) -> bytes:
    return hmac.new(b"svara-download", signing_token.encode(), hashlib.sha256).digest()


def _mac(secret: bytes, user_id: int, kind: str, expires: int, language: str,
         table_id: str, hand: int) -> str:  # fmt: skip
    message = f"svara-download\n{user_id}\n{kind}\n{expires}\n{language}\n{table_id}\n{hand}"
    digest = hmac.new(secret, message.encode(), hashlib.sha256).digest()[:18]
    return base64.urlsafe_b64encode(digest).decode()


def mint(
    secret: bytes, user_id: int, kind: str, table_id: str, hand: int, language: str,
    *, now: float | None = None, ttl: int = TTL_SECONDS,
) -> str:
    assert kind in KINDS and language in LANGUAGES
    expires = int(now if now is not None else time.time()) + ttl
    mac = _mac(secret, user_id, kind, expires, language, table_id, hand)
    return f"{user_id}.{kind}.{expires}.{language}.{mac}"


class Grant:
    """What a verified token opens."""

    __slots__ = ("language", "user_id")

    def __init__(self, user_id: int, language: str) -> None:
        self.user_id = user_id
        self.language = language


def check(
    secret: bytes, token: str, kind: str, table_id: str, hand: int, *, now: float | None = None
) -> Grant:
    """The grant of `token` for this file, or 401/403."""
    found = _TOKEN.match(token)
    if found is None:
        raise ApiError(403, "invalid_download", "this download link is not valid")
    user, token_kind, expires_text, language, mac = found.groups()
    expires = int(expires_text)
    right = _mac(secret, int(user), token_kind, expires, language, table_id, hand)
    if not hmac.compare_digest(mac, right) or token_kind != kind or language not in LANGUAGES:
        raise ApiError(403, "invalid_download", "this download link is not valid")
    if (now if now is not None else time.time()) > expires:
        raise ApiError(401, "download_expired", "this download link has expired; ask again")
    return Grant(int(user), language)


def file_name(table_id: str, hand: int, kind: str) -> str:
    return f"svara-{table_id}-hand-{hand}.{'json' if kind == 'export' else 'txt'}"
