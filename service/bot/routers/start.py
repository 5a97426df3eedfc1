"""`/start` and its deep links: the way into the web app from a private chat."""

from __future__ import annotations

import logging

from aiogram import F, Router
from aiogram.filters import CommandObject, CommandStart
from aiogram.types import Message

from service.bot import texts
from service.bot.config import BotConfig, table_id_from_payload
from service.bot.keyboards import webapp_keyboard
from service.tables.facade import ServiceError, Tables

log = logging.getLogger(__name__)


def make_router() -> Router:
    router = Router(name="start")
    router.message.filter(F.chat.type == "private")
    router.message.register(on_start, CommandStart())
    return router


async def on_start(
    message: Message, command: CommandObject, tables: Tables, config: BotConfig
) -> None:
    """Greet with a Play button; `/start table_<id>` opens that table instead."""
    table_id = table_id_from_payload(command.args)
    if table_id is None:
        await _greet(message, config)
        return
    try:
        await tables.view(None, table_id)
    except ServiceError as exc:
        if exc.status == 404:
            lobby = config.webapp_url()
            markup = webapp_keyboard(lobby, texts.PLAY_BUTTON) if lobby else None
            await message.answer(texts.TABLE_GONE.format(table_id=table_id), reply_markup=markup)
            return
        # Anything else (store briefly down): still hand out the link; the web app reports it.
        log.warning("could not check table %s: %s", table_id, exc.code)
    url = config.webapp_url(table_id)
    if url is None:
        await message.answer(texts.GREETING_NO_APP)
        return
    await message.answer(
        texts.TABLE_INVITE.format(table_id=table_id),
        reply_markup=webapp_keyboard(url, texts.OPEN_TABLE_BUTTON),
    )


async def _greet(message: Message, config: BotConfig) -> None:
    url = config.webapp_url()
    if url is None:
        await message.answer(texts.GREETING_NO_APP)
        return
    await message.answer(texts.GREETING, reply_markup=webapp_keyboard(url, texts.PLAY_BUTTON))
