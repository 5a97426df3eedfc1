"""The dispatcher: feature routers, the player's language on every update, and the injected
application layer and config."""

from __future__ import annotations

import logging

from aiogram import Dispatcher
from aiogram.types import ErrorEvent

from service.bot import texts
from service.bot.config import BotConfig
from service.bot.groups import GroupTables
from service.bot.i18n import Catalogs, PlayerLocale
from service.bot.ports import BotTables
from service.bot.routers import (
    access,
    fallback,
    group,
    info,
    inline,
    settings,
    sitin,
    start,
    top,
    tournament,
)


def build_dispatcher(
    tables: BotTables,
    config: BotConfig,
    i18n: Catalogs,
    groups: GroupTables,
) -> Dispatcher:
    """Handlers receive `tables`, `config`, `groups` (the tables bound to each group) as
    keyword arguments (aiogram workflow data), and `i18n` and the sender's `profile` from the
    locale middleware."""
    dp = Dispatcher()
    dp["tables"] = tables
    dp["config"] = config
    dp["groups"] = groups
    PlayerLocale(i18n, tables).setup(dp)
    dp.include_routers(
        access.make_router(),
        start.make_router(),
        inline.make_router(),
        group.make_router(),
        tournament.make_router(),
        settings.make_router(),
        sitin.make_router(),
        info.make_router(),
        top.make_router(),
        fallback.make_router(),  # last: what nothing else took
    )
    dp.errors.register(on_error)
    return dp


async def on_error(event: ErrorEvent) -> bool:
    """A handler failed on our side: log it and tell the person, rather than stay silent
    (in their language: the locale middleware runs for errors too)."""
    log = logging.getLogger(__name__)
    log.error("bot handler failed on update %s", event.update.update_id, exc_info=event.exception)
    message = event.update.message
    query = event.update.callback_query
    try:
        if message is not None:
            await message.answer(texts.sorry())
        elif query is not None:
            await query.answer(texts.sorry(), show_alert=True)
    except Exception:  # Telegram unreachable too: the log line above is all we can do
        log.warning("could not send the apology either")
    return True
