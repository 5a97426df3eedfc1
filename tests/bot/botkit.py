"""What the bot tests share besides fixtures: the fake Bot API's token, the public URL, this
suite's ports, and what the bot says in a language (from the real catalogs)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import cache
from typing import Any

from service.bot.i18n import Catalogs, make_i18n
from tests.support import ports

TOKEN = "123456:TEST-token-for-the-fake-api"
PUBLIC_URL = "https://svara.example"
PORTS = range(8200, 8250)  # the bot tests' half of this suite's range 8200-8299

# The `bot_app` fixture: start(tables, mode=..., public_url=..., mini_app_name=...) -> base URL.
BotApp = Callable[..., Awaitable[str]]


def free_port() -> int:
    """A free port of the bot tests' range."""
    return ports.free_port(PORTS)


@cache
def catalogs() -> Catalogs:
    return make_i18n()


def say(language: str, text: Callable[..., str], *args: Any) -> str:
    """What the bot says with `text(*args)` in `language` (from the real catalogs)."""
    with catalogs().speaking(language):
        return text(*args)
