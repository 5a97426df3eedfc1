"""What the bot needs to know about where the web app lives, and the links it builds.

Links are built in one place so the deep-link format (`table_<id>`) and the web app's query
parameter (`?table=<id>`) cannot drift apart between handlers.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from urllib.parse import quote

import msgspec

DEEP_LINK_PREFIX = "table_"
# Telegram allows A-Z a-z 0-9 _ - in /start payloads, at most 64 characters.
TABLE_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,58}$")
WEBHOOK_PATH = "/telegram/webhook"


class BotConfig(msgspec.Struct, frozen=True, kw_only=True):
    public_url: str | None  # where the web app is served, e.g. https://svara.example
    default_ante: int = 10
    default_seats: int = 6

    def webapp_url(self, table_id: str | None = None, invite: str | None = None) -> str | None:
        """The web app's address, opening `table_id` when given (a private one with its
        `invite`); None when not configured."""
        if not self.public_url:
            return None
        base = self.public_url.rstrip("/") + "/"
        if not table_id:
            return base
        url = f"{base}?table={quote(table_id, safe='')}"
        return f"{url}&invite={quote(invite, safe='')}" if invite else url


def deep_link(bot_username: str, table_id: str) -> str:
    """A t.me link that opens a private chat with the bot and sends `/start table_<id>`."""
    return f"https://t.me/{bot_username}?start={DEEP_LINK_PREFIX}{table_id}"


def table_id_from_payload(payload: str | None) -> str | None:
    """`table_<id>` → `<id>`; anything else (absent, foreign, malformed) → None."""
    if not payload or not payload.startswith(DEEP_LINK_PREFIX):
        return None
    table_id = payload[len(DEEP_LINK_PREFIX) :]
    return table_id if TABLE_ID_RE.match(table_id) else None


# `table_<id>_<invite>`: a private table's link. The service's table ids are 16 hex digits
# (never an underscore) and its invites 22 URL-safe characters, so the split is unambiguous.
PRIVATE_LINK_RE = re.compile(r"^([0-9a-f]{16})_([A-Za-z0-9_-]{22})$")


def table_link_from_payload(payload: str | None) -> tuple[str, str | None] | None:
    """`table_<id>` → (id, None); `table_<id>_<invite>` → (id, invite); else None."""
    table_id = table_id_from_payload(payload)
    if table_id is None:
        return None
    private = PRIVATE_LINK_RE.match(table_id)
    return (private[1], private[2]) if private else (table_id, None)


def webhook_secret(token: str) -> str:
    """The webhook's secret token, derived from the bot token.

    Derived rather than random so every replica sets and checks the same value without
    sharing state; it reveals nothing about the token (HMAC, one-way).
    """
    return hmac.new(b"svara-webhook", token.encode(), hashlib.sha256).hexdigest()
