"""`POST /api/share`: a card of a table or a settled hand, stored with Telegram as a prepared
message the Mini App hands to `shareMessage` (`service.bot.sharing`).

Whoever may see the table may share it, whoever may read a hand's audit may share the hand:
the same answers as those endpoints (404 for no such table or hand, 409 `hand_in_progress`).
Without a bot (dev mode), or when Telegram does not take the message, the answer is 503
`bot_unavailable` and still carries `fallback_url`, a share link to the web app itself.
"""

from __future__ import annotations

import logging
from typing import Annotated

import aiohttp
import msgspec
from aiogram.exceptions import TelegramAPIError
from aiohttp import web

from service.api import schemas
from service.api.context import CONFIG, TABLES, authenticate
from service.api.errors import ApiError
from service.api.routes import json_response
from service.bot.cards import Card, HandCard, TableCard, load_hand, load_table, message_of
from service.bot.config import BotConfig
from service.bot.links import share_url
from service.bot.sharing import SHARING_KEY

log = logging.getLogger("svara.api")

TableId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
HandNumber = Annotated[int, msgspec.Meta(ge=0, le=2**31)]


class ShareTable(msgspec.Struct, frozen=True, tag="table", tag_field="kind",
                 forbid_unknown_fields=True):
    table_id: TableId
    invite: schemas.Invite | None = None  # a private table's, as the sharer holds it


class ShareHand(msgspec.Struct, frozen=True, tag="hand", tag_field="kind",
                forbid_unknown_fields=True):
    table_id: TableId
    hand: HandNumber


share_decoder: msgspec.json.Decoder[ShareTable | ShareHand] = msgspec.json.Decoder(
    ShareTable | ShareHand
)


async def share(request: web.Request) -> web.Response:
    user = authenticate(request)
    body: ShareTable | ShareHand = schemas.decode_body(share_decoder, await request.read())
    tables = request.app[TABLES]
    card: Card
    if isinstance(body, ShareTable):
        card = await load_table(tables, body.table_id, user, body.invite)
        if card.private:
            card = card._replace(
                invite=await tables.social.shared_invite(user, body.table_id, body.invite))
    else:
        card = await load_hand(tables, body.table_id, body.hand)
    sharing = request.app.get(SHARING_KEY)
    if sharing is None:
        raise ApiError(503, "bot_unavailable",
                       "this server runs without a Telegram bot (dev mode), so there is no "
                       "prepared message; share fallback_url instead",
                       fallback_url=web_fallback(request, card))
    try:
        return json_response(await sharing.prepare(user, card))
    except (TelegramAPIError, aiohttp.ClientError, TimeoutError) as exc:
        log.warning("savePreparedInlineMessage failed: %s", exc)
        raise ApiError(503, "bot_unavailable",
                       "Telegram did not take the message just now; share fallback_url instead",
                       fallback_url=web_fallback(request, card)) from None


def web_fallback(request: web.Request, card: Card) -> str:
    """A share link to the web app itself (its PUBLIC_URL, else the address asked): there is
    no bot to link to."""
    public = request.app[CONFIG].public_url or str(request.url.origin())
    config = BotConfig(public_url=public)
    if isinstance(card, TableCard):
        url = config.webapp_url(card.table_id, card.invite)
    else:
        assert isinstance(card, HandCard)
        url = config.hand_url(card.outcome.table_id, card.outcome.number)
    assert url is not None  # a public_url was given
    return share_url(url, message_of(card))
