"""What handlers share: typed app keys and the authenticate-then-rate-limit step."""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Callable

from aiohttp import web

from service.api.auth import AuthError, verify_init_data
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
SOCKETS: web.AppKey[weakref.WeakSet[web.WebSocketResponse]] = web.AppKey("sockets")


def user_from_init_data(app: web.Application, init_data: str) -> User:
    config = app[CONFIG]
    return verify_init_data(init_data, key=app[AUTH_KEY], max_age=config.auth_max_age)


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
