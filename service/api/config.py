"""Server configuration: environment variables (12-factor) → one frozen Config.

Every variable is listed in the README's "Configuration" section. Parsing is strict so a typo
stops the server at start instead of misbehaving later.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from service.logs import LOG_FORMATS

BOT_MODES = ("webhook", "polling", "off")


class ConfigError(ValueError):
    """An environment variable has a value the server cannot use."""


@dataclass(frozen=True)
class Config:
    redis_url: str | None = None  # None: the embedded in-process store
    bot_token: str | None = None  # None: dev mode (signed test users, /dev/init-data)
    public_url: str | None = None
    telegram_api_url: str | None = None  # None: Telegram's own Bot API
    # The Mini App's short name in BotFather: invitations link to it (`?startapp=`); None:
    # to the bot's chat (`?start=`), which answers with a button into the web app.
    mini_app_name: str | None = None
    bot_mode: str = "off"
    auth_max_age: int = 86400
    rate_per_second: float = 20.0
    rate_burst: int = 40
    max_body_bytes: int = 16 * 1024
    ws_queue_size: int = 256
    ws_heartbeat_seconds: float = 20.0
    ws_send_timeout_seconds: float = 5.0
    ws_auth_timeout_seconds: float = 10.0
    # Sockets being set up at once (auth -> `ready`); more wait their turn, so a reconnect
    # storm queues behind a short line instead of in front of every player's action.
    ws_setup_concurrency: int = 32
    practice_bots: int = 2
    namespace: str = ""  # a prefix for every stream name: several deployments on one Redis
    log_format: str = "text"  # or "json": one JSON object a line (service/logs.py)
    listen_backlog: int = 4096  # the listening socket's queue (the kernel caps it at somaxconn)
    workers: int = 0  # processes serving the port; 0: one per core on Redis (1 embedded)
    # How long a table may stay with nobody seated (after its creation, or after its last
    # player left) before it closes; recorded in each table as it is created.
    idle_close_seconds: int = 600
    # Dev mode signs test users with a random per-process token, made once here.
    # Dev mode signs test users with a random per-process token made here, unless DEV_TOKEN
    # shares one between dev-mode replicas.
    dev_token: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    @property
    def dev_mode(self) -> bool:
        return self.bot_token is None

    @property
    def signing_token(self) -> str:
        """The token initData is checked against: the bot's, or the dev-mode one."""
        return self.bot_token if self.bot_token is not None else self.dev_token

    @property
    def bot_enabled(self) -> bool:
        return self.bot_token is not None and self.bot_mode != "off"

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Config:
        """Read the variables; empty values count as unset."""

        def get(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        bot_token = get("BOT_TOKEN")
        bot_mode = get("BOT_MODE") or ("polling" if bot_token and not get("PUBLIC_URL") else
                                       "webhook" if bot_token else "off")
        if bot_mode not in BOT_MODES:
            raise ConfigError(f"BOT_MODE must be one of {', '.join(BOT_MODES)}, not {bot_mode!r}")
        if bot_mode == "webhook" and bot_token and not get("PUBLIC_URL"):
            raise ConfigError("BOT_MODE=webhook needs PUBLIC_URL (the address Telegram calls)")
        config = cls(
            redis_url=get("REDIS_URL"),
            bot_token=bot_token,
            public_url=get("PUBLIC_URL"),
            telegram_api_url=get("TELEGRAM_API_URL"),
            mini_app_name=_mini_app_name(get("MINI_APP_NAME")),
            bot_mode=bot_mode,
            auth_max_age=_int(get, "AUTH_MAX_AGE", 86400, low=1),
            rate_per_second=float(_int(get, "RATE_LIMIT_PER_SECOND", 20, low=1)),
            rate_burst=_int(get, "RATE_LIMIT_BURST", 40, low=1),
            max_body_bytes=_int(get, "MAX_BODY_BYTES", 16 * 1024, low=256),
            ws_queue_size=_int(get, "WS_QUEUE_SIZE", 256, low=1),
            ws_heartbeat_seconds=float(_int(get, "WS_HEARTBEAT_SECONDS", 20, low=1)),
            ws_setup_concurrency=_int(get, "WS_SETUP_CONCURRENCY", 32, low=1),
            practice_bots=_int(get, "PRACTICE_BOTS", 2, low=0),
            namespace=_namespace(get("SVARA_NAMESPACE")),
            log_format=_log_format(get("LOG_FORMAT")),
            listen_backlog=_int(get, "LISTEN_BACKLOG", 4096, low=1),
            workers=_int(get, "WORKERS", 0, low=1),
            idle_close_seconds=_int(get, "IDLE_CLOSE_SECONDS", 600, low=1),
        )
        dev_token = get("DEV_TOKEN")
        return replace(config, dev_token=dev_token) if dev_token else config


def _log_format(raw: str | None) -> str:
    value = (raw or "text").lower()
    if value not in LOG_FORMATS:
        raise ConfigError(f"LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}, not {raw!r}")
    return value


def _mini_app_name(raw: str | None) -> str | None:
    # BotFather's rule for a Mini App's short name, so a typo fails at start, not in a link
    if raw is not None and not re.fullmatch(r"[A-Za-z0-9_]{3,30}", raw):
        raise ConfigError("MINI_APP_NAME is the Mini App's short name in BotFather: 3-30 "
                          f"letters, digits or '_', not {raw!r}")
    return raw


def _namespace(raw: str | None) -> str:
    if raw is None:
        return ""
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,40}", raw):
        raise ConfigError("SVARA_NAMESPACE may use letters, digits, '_', '.', '-' (1-40 chars)")
    return f"{raw}:"


def _int(get: Callable[[str], str | None], name: str, default: int, *, low: int) -> int:
    raw = get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, not {raw!r}") from None
    if value < low:
        raise ConfigError(f"{name} must be at least {low}, not {value}")
    return value
