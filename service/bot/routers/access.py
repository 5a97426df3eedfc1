"""Telegram's `write_access_allowed` service message: the player let the bot write to them
(from the Mini App's `requestWriteAccess`, say) without ever starting it. The authoritative
signal: it is recorded in their profile (turn pings reach them from now on) and needs no
answer -- Telegram shows the service message itself."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.types import Message

from service.bot.i18n import as_user
from service.bot.ports import BotTables


def make_router() -> Router:
    router = Router(name="access")
    router.message.register(on_write_access_allowed, F.write_access_allowed,
                            F.chat.type == "private")
    return router


async def on_write_access_allowed(message: Message, tables: BotTables) -> None:
    if message.from_user is None:
        return
    await tables.write_access(as_user(message.from_user), allowed=True, explicit=True)
