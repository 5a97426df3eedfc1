"""Every link the bot hands out, built here so the formats cannot drift between a group post,
a reply, a result's buttons, an inline card and a prepared message.

A link carries a payload naming what it opens: `table_<id>`, `table_<id>_<invite>`,
`hand_<id>_<n>` or `tournament_<id>`. With the Mini App's short name from BotFather
(`MINI_APP_NAME`) it is the Mini App's own link, `https://t.me/<bot>/<app>?startapp=<payload>`:
one tap opens the app, which reads the payload as its `start_param`. Without it, the bot's
`https://t.me/<bot>?start=<payload>`: a private chat with the bot, which answers `/start
<payload>` with a button into the web app.
"""

from __future__ import annotations

import re
from typing import NamedTuple
from urllib.parse import quote

TABLE_PREFIX = "table_"
HAND_PREFIX = "hand_"
TOURNAMENT_PREFIX = "tournament_"
# Telegram allows A-Z a-z 0-9 _ - in payloads, at most 64 characters for /start. A table id
# is what the service makes (hex), so it has no "_": the one after it starts the invite.
_ID = r"[A-Za-z0-9-]{1,32}"
_TABLE = re.compile(rf"^table_(?P<table>{_ID})(?:_(?P<invite>[A-Za-z0-9_-]{{1,24}}))?$")
_HAND = re.compile(rf"^hand_(?P<table>{_ID})_(?P<hand>[1-9][0-9]{{0,8}})$")
_TOURNAMENT = re.compile(rf"^tournament_(?P<tournament>{_ID})$")


class Target(NamedTuple):
    """What a payload opens: a table (with its invite), a hand of a table, or a tournament."""

    kind: str  # "table", "hand" or "tournament"
    id: str  # the table's or the tournament's id
    invite: str | None = None
    hand: int | None = None


def table_payload(table_id: str, invite: str | None = None) -> str:
    return f"{TABLE_PREFIX}{table_id}" + (f"_{invite}" if invite else "")


def hand_payload(table_id: str, hand: int) -> str:
    return f"{HAND_PREFIX}{table_id}_{hand}"


def tournament_payload(tournament_id: str) -> str:
    return f"{TOURNAMENT_PREFIX}{tournament_id}"


def bot_link(bot_username: str, mini_app: str | None, payload: str | None = None) -> str:
    """The t.me link opening `payload`: the Mini App's (`mini_app` set) or the bot's chat.
    Without a payload, the Mini App's lobby (or the bot's chat)."""
    if mini_app:
        base = f"https://t.me/{bot_username}/{mini_app}"
        return f"{base}?startapp={payload}" if payload else base
    base = f"https://t.me/{bot_username}"
    return f"{base}?start={payload}" if payload else base


def parse_payload(payload: str | None) -> Target | None:
    """A `/start` (or `start_param`) payload → what it opens; anything else → None."""
    if not payload:
        return None
    if found := _TABLE.match(payload):
        return Target("table", found["table"], invite=found["invite"])
    if found := _HAND.match(payload):
        return Target("hand", found["table"], hand=int(found["hand"]))
    if found := _TOURNAMENT.match(payload):
        return Target("tournament", found["tournament"])
    return None


def share_url(link: str, text: str) -> str:
    """Telegram's share sheet for `link` with `text` (clients without prepared messages)."""
    return f"https://t.me/share/url?url={quote(link, safe='')}&text={quote(text, safe='')}"
