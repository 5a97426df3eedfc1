"""Inline mode: `@<bot>` typed in any chat offers the player's open tables (where they sit,
the most recently active first) and a "New table" card; whichever they pick is sent to that
chat as a card with a Join button (`service.bot.cards`). Telegram asks as the player types, so
the answer is cached briefly and per person (`is_personal`). BotFather must have inline mode
switched on for the bot (`/setinline`)."""

from __future__ import annotations

import asyncio
import logging

from aiogram import Bot, Router
from aiogram.types import InlineQuery, InlineQueryResultUnion

from service.bot.cards import TableCard, article, load_table, new_table_article
from service.bot.config import BotConfig
from service.bot.i18n import as_user
from service.bot.links import table_payload
from service.bot.ports import BotTables
from service.tables.facade import ServiceError

log = logging.getLogger(__name__)

LISTED = 10  # tables offered at most
LOOKED_AT = 20  # tables read at most to find them (a player rarely sits at more)
CACHE_SECONDS = 10


def make_router() -> Router:
    router = Router(name="inline")
    router.inline_query.register(on_inline_query)
    return router


async def _card(tables: BotTables, table_id: str) -> tuple[float, TableCard] | None:
    """The table's card and when it last moved (None: gone, or not readable now)."""
    try:
        card = await load_table(tables, table_id)
        version = await tables.version(table_id)
        _, last = await tables.events(None, table_id, max(0, version - 1))
    except ServiceError:
        return None
    return (float(last[-1]["at"]) if last else 0.0), card


async def open_tables(tables: BotTables, query: InlineQuery) -> list[TableCard]:
    """The tables the player sits at, the most recently active first, at most `LISTED`."""
    try:
        seated: list[str] = list((await tables.me(as_user(query.from_user)))["tables"])
    except ServiceError as exc:
        log.warning("no tables for the inline query of %s: %s", query.from_user.id, exc.code)
        return []
    found = await asyncio.gather(*(_card(tables, t) for t in seated[:LOOKED_AT]))
    ranked = sorted((f for f in found if f is not None), key=lambda f: -f[0])
    return [card for _, card in ranked[:LISTED]]


async def on_inline_query(
    query: InlineQuery, bot: Bot, tables: BotTables, config: BotConfig
) -> None:
    me = await bot.me()
    if me.username is None:  # every real bot has one
        await query.answer([], cache_time=CACHE_SECONDS, is_personal=True)
        return
    results: list[InlineQueryResultUnion] = [
        article(config, me.username, card, table_payload(card.table_id))
        for card in await open_tables(tables, query)
    ]
    results.append(new_table_article(config, me.username))
    await query.answer(results, cache_time=CACHE_SECONDS, is_personal=True)
