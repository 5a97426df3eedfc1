"""Telegram Web App initData: validation (constant-time HMAC, `auth_date` window) and, for dev
mode and tests, signing. The user comes only from the signed data (docs/API.md,
"Authentication")."""

from __future__ import annotations

import hashlib
import hmac
import time
from urllib.parse import parse_qsl, urlencode

import msgspec

from service.tables.facade import User

MAX_INIT_DATA_CHARS = 4096


class AuthError(Exception):
    """initData is missing, malformed, forged or expired (HTTP 401, WebSocket close 4401)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class _TelegramUser(msgspec.Struct, frozen=True):
    id: int
    first_name: str = ""
    last_name: str = ""
    username: str = ""
    language_code: str = ""
    allows_write_to_pm: bool = False  # the player lets the bot write to them
    photo_url: str = ""


_user_decoder = msgspec.json.Decoder(_TelegramUser)


def secret_key(bot_token: str) -> bytes:
    """Telegram's Web App key: HMAC_SHA256(key="WebAppData", msg=bot_token)."""
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def _check_string(fields: dict[str, str]) -> str:
    return "\n".join(f"{k}={fields[k]}" for k in sorted(fields) if k != "hash")


def verify_init_data(
    init_data: str, *, key: bytes, max_age: int, now: float | None = None
) -> User:
    """The signed user, or AuthError. `key` is `secret_key(token)` (computed once per server)."""
    if not init_data:
        raise AuthError("missing_init_data", "send Authorization: tma <initData>")
    if len(init_data) > MAX_INIT_DATA_CHARS:
        raise AuthError("invalid_init_data", "initData is too long")
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise AuthError("invalid_init_data", "initData is not a query string") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise AuthError("invalid_init_data", "initData repeats a field")
    given = fields.get("hash", "")
    expected = hmac.new(key, _check_string(fields).encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise AuthError("invalid_init_data", "initData signature does not match")
    try:
        auth_date = int(fields.get("auth_date", ""))
    except ValueError:
        raise AuthError("invalid_init_data", "initData has no valid auth_date") from None
    now = time.time() if now is None else now
    if auth_date > now + 60:  # a minute of clock skew between Telegram and us
        raise AuthError("invalid_init_data", "initData auth_date is in the future")
    if now - auth_date > max_age:
        raise AuthError("expired_init_data", "initData has expired; reopen the app")
    try:
        tg_user = _user_decoder.decode(fields.get("user", ""))
    except msgspec.MsgspecError:
        raise AuthError("invalid_init_data", "initData has no valid user") from None
    name = " ".join(p for p in (tg_user.first_name, tg_user.last_name) if p)
    return User(
        id=tg_user.id,
        name=name or tg_user.username or f"player {tg_user.id}",
        language_code=tg_user.language_code[:35] or None,
        # shown beside the player's name in the lobby: only an https link Telegram signed
        photo_url=tg_user.photo_url if tg_user.photo_url.startswith("https://")
        and len(tg_user.photo_url) <= 512 else None,
    )


def writes_allowed(init_data: str) -> bool:
    """Whether initData that `verify_init_data` already accepted says the bot may write to
    its user (`allows_write_to_pm`: Telegram sets it when they granted it, e.g. on opening
    the Mini App from a link)."""
    try:
        return _user_decoder.decode(dict(parse_qsl(init_data)).get("user", "")).allows_write_to_pm
    except msgspec.MsgspecError:
        return False


def auth_date(init_data: str) -> int:
    """The `auth_date` of initData that `verify_init_data` already accepted."""
    return int(dict(parse_qsl(init_data))["auth_date"])


def sign_init_data(
    bot_token: str,
    *,
    user_id: int,
    name: str,
    auth_date: int | None = None,
    language_code: str | None = None,
    allows_write_to_pm: bool = False,
    photo_url: str | None = None,
) -> str:
    """initData as Telegram would send it for this user (dev mode and tests)."""
    fields_of_user: dict[str, str | int | bool] = {"id": user_id, "first_name": name}
    if language_code:
        fields_of_user["language_code"] = language_code
    if allows_write_to_pm:
        fields_of_user["allows_write_to_pm"] = True
    if photo_url:
        fields_of_user["photo_url"] = photo_url
    user = msgspec.json.encode(fields_of_user).decode()
    fields = {
        "auth_date": str(int(time.time()) if auth_date is None else auth_date),
        "query_id": f"dev{user_id}",
        "user": user,
    }
    digest = hmac.new(
        secret_key(bot_token), _check_string(fields).encode(), hashlib.sha256
    ).hexdigest()
    return urlencode({**fields, "hash": digest})
