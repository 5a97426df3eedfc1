"""What handlers share: typed app keys and the authenticate-then-rate-limit step."""

from __future__ import annotations

import time
import weakref
from collections.abc import Awaitable, Callable

from aiohttp import web

from service.api.auth import AuthError, auth_date, verify_init_data
from service.api.config import Config
from service.api.errors import ApiError
from service.api.ratelimit import RateLimiter
from service.tables.facade import Tables, User

CONFIG = web.AppKey("config", Config)
TABLES = web.AppKey("tables", Tables)
LIMITER = web.AppKey("limiter", RateLimiter)
AUTH_KEY = web.AppKey("auth_key", bytes)
HealthCheck = Callable[[], Awaitable[bool]]
HEALTH_CHECK: web.AppKey[HealthCheck] = web.AppKey("health_check")
AUTH_CACHE_SIZE = 50_000
AUTH_CACHE: web.AppKey[dict[str, tuple[User, float]]] = web.AppKey("auth_cache")
SOCKETS: web.AppKey[weakref.WeakSet[web.WebSocketResponse]] = web.AppKey("sockets")
# Told of each initData string the first time this process accepts it (user, initData): once
# a session, not once a request (service/api/grants.py records the bot's write access).
NewInitData = Callable[[User, str], None]
ON_NEW_INIT_DATA: web.AppKey[list[NewInitData]] = web.AppKey("on_new_init_data")


def user_from_init_data(app: web.Application, init_data: str) -> User:
    """Verify once per distinct initData string; later requests hit the cache until the
    string's own expiry (a Mini App sends the same initData for a whole session)."""
    cache = app[AUTH_CACHE]
    hit = cache.get(init_data)
    now = time.time()
    if hit is not None and now < hit[1]:
        return hit[0]
    config = app[CONFIG]
    user = verify_init_data(init_data, key=app[AUTH_KEY], max_age=config.auth_max_age, now=now)
    if len(cache) >= AUTH_CACHE_SIZE:
        cache.clear()  # crude but bounded; a miss only costs one HMAC
    cache[init_data] = (user, auth_date(init_data) + config.auth_max_age)
    for hook in app.get(ON_NEW_INIT_DATA, ()):
        hook(user, init_data)
    return user


def authenticate(request: web.Request) -> User:
    """The signed caller of this request (401 otherwise), charged one rate-limit token."""
    header = request.headers.get("Authorization", "")
    scheme, _, init_data = header.partition(" ")
    if scheme.lower() != "tma" or not init_data.strip():
        raise AuthError("missing_init_data", "send Authorization: tma <initData>")
    user = user_from_init_data(request.app, init_data.strip())
    charge(request.app, user)
    return user


def charge(app: web.Application, user: User) -> None:
    limiter = app[LIMITER]
    if not limiter.allow(user.id):
        wait = limiter.retry_after(user.id)
        raise ApiError(429, "rate_limited", f"too many requests; retry in {wait:.1f} s",
                       retry_after=round(wait, 3))
