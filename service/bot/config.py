"""What the bot needs to know about where the web app lives and what it is called in
Telegram. The t.me links themselves are built in `service.bot.links`; the web app's own
addresses (`?table=<id>`) here, the one place that knows its query parameters.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import quote

import msgspec

from service.bot.links import bot_link

WEBHOOK_PATH = "/telegram/webhook"


class BotConfig(msgspec.Struct, frozen=True, kw_only=True):
    public_url: str | None  # where the web app is served, e.g. https://svara.example
    default_ante: int = 10
    default_seats: int = 6
    # The Mini App's short name in BotFather (`MINI_APP_NAME`): links open it directly
    # (`t.me/<bot>/<app>?startapp=...`); None: they go through the bot's chat (`?start=`).
    mini_app_name: str | None = None

    def link(self, bot_username: str, payload: str | None = None) -> str:
        """The t.me link to `payload` (`service.bot.links`) for this bot."""
        return bot_link(bot_username, self.mini_app_name, payload)

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

    def hand_url(self, table_id: str, hand: int) -> str | None:
        """The web app's link to hand `hand` at `table_id`: it opens the hand's replayer (from
        which its audit is a tap away)."""
        base = self.webapp_url()
        return f"{base}?hand={quote(table_id, safe='')}_{hand}" if base else None

    def tournament_url(self, tournament_id: str) -> str | None:
        """The web app opening tournament `tournament_id` (its `?tournament=` link)."""
        if not self.public_url:
            return None
        return f"{self.public_url.rstrip('/')}/?tournament={quote(tournament_id, safe='')}"



def webhook_secret(token: str) -> str:
    """The webhook's secret token, derived from the bot token.

    Derived rather than random so every replica sets and checks the same value without
    sharing state; it reveals nothing about the token (HMAC, one-way).
    """
    return hmac.new(b"svara-webhook", token.encode(), hashlib.sha256).hexdigest()
