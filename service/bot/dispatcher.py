"""The dispatcher: feature routers plus the injected application layer and config."""

from __future__ import annotations

from aiogram import Dispatcher

from service.bot.config import BotConfig
from service.bot.routers import group, info, start
from service.tables.facade import Tables


def build_dispatcher(tables: Tables, config: BotConfig) -> Dispatcher:
    """Handlers receive `tables` and `config` as keyword arguments (aiogram workflow data)."""
    dp = Dispatcher()
    dp["tables"] = tables
    dp["config"] = config
    dp.include_routers(start.make_router(), group.make_router(), info.make_router())
    return dp
