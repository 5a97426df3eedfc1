"""The dispatcher: feature routers plus the injected application layer and config."""

from __future__ import annotations

import logging

from aiogram import Dispatcher
from aiogram.types import ErrorEvent

from service.bot import texts
from service.bot.config import BotConfig
from service.bot.routers import group, info, start
from service.tables.facade import Tables


def build_dispatcher(tables: Tables, config: BotConfig) -> Dispatcher:
    """Handlers receive `tables` and `config` as keyword arguments (aiogram workflow data)."""
    dp = Dispatcher()
    dp["tables"] = tables
    dp["config"] = config
    dp.include_routers(start.make_router(), group.make_router(), info.make_router())
    dp.errors.register(on_error)
    return dp


async def on_error(event: ErrorEvent) -> bool:
    """A handler failed on our side: log it and tell the person, rather than stay silent."""
    logging.getLogger(__name__).error(
        "bot handler failed on update %s", event.update.update_id, exc_info=event.exception
    )
    message = event.update.message
    if message is not None:
        try:
            await message.answer(texts.SORRY)
        except Exception:  # Telegram unreachable too: the log line above is all we can do
            logging.getLogger(__name__).warning("could not send the apology either")
    return True
