"""Prepared messages (Bot API 8.0 `savePreparedInlineMessage`): the Mini App's share button.

The app asks the server (`POST /api/share`) for a card of a table or a hand; the bot stores it
with Telegram for that one player, and the app hands its id to `shareMessage`, which lets the
player pick a chat and sends the card there as if from inline mode. Clients too old for that
get `fallback_url`, Telegram's share sheet with the same link and text.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from aiogram import Bot
from aiohttp import web

from service.bot.cards import Card, article, message_of, payload_of
from service.bot.config import BotConfig
from service.bot.i18n import Catalogs
from service.bot.links import share_url
from service.bot.ports import BotTables
from service.tables.facade import JSON, ServiceError, User
from service.tables.profiles import EMPTY, effective_language


class Sharing:
    def __init__(self, bot: Bot, tables: BotTables, i18n: Catalogs, config: BotConfig) -> None:
        self.bot = bot
        self.tables = tables
        self.i18n = i18n
        self.config = config

    async def language(self, user: User) -> str:
        try:
            profile = await self.tables.profile(user.id)
        except ServiceError:  # the store briefly down: their Telegram language will do
            profile = EMPTY
        return effective_language(profile, user.language_code)

    async def prepare(self, user: User, card: Card) -> JSON:
        """Store `card` for `user` to send; its id, expiry (unix seconds) and fallback."""
        me = await self.bot.me()  # aiogram asks Telegram once, then remembers
        if me.username is None:  # every real bot has one
            raise ServiceError(503, "bot_unavailable", "the bot has no username to link to")
        with self.i18n.speaking(await self.language(user)):
            result = article(self.config, me.username, card, payload_of(card))
            text = message_of(card)
        prepared = await self.bot.save_prepared_inline_message(
            user_id=user.id, result=result, allow_user_chats=True, allow_bot_chats=False,
            allow_group_chats=True, allow_channel_chats=True,
        )
        link = self.config.link(me.username, payload_of(card))
        return {
            "prepared_message_id": prepared.id,
            "expires_at": unix_seconds(prepared.expiration_date),
            "fallback_url": share_url(link, text),
        }


def unix_seconds(when: datetime | timedelta | int) -> int:
    if isinstance(when, datetime):
        return int(when.timestamp())
    if isinstance(when, timedelta):  # aiogram's type allows it; Telegram sends a date
        return int(datetime.now().timestamp() + when.total_seconds())
    return int(when)


SHARING_KEY = web.AppKey("svara_bot_sharing", Sharing)
