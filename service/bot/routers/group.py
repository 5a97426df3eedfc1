"""Groups: `/newtable` opens a table bound to the group (its hands' results are posted there),
`/tables` lists the group's tables that have a free seat."""

from __future__ import annotations

import logging

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from service.bot import texts
from service.bot.config import BotConfig
from service.bot.groups import GroupTables
from service.bot.i18n import Catalogs, as_user
from service.bot.keyboards import group_table_keyboard, group_tables_keyboard, webapp_keyboard
from service.bot.ports import BotTables
from service.game.errors import GameError
from service.game.settings import MAX_ANTE, TableSettings, validated
from service.tables.facade import ServiceError

log = logging.getLogger(__name__)

GROUP_CHATS = {"group", "supergroup"}
LISTED = 10  # tables /tables shows at most


class UsageError(ValueError):
    """The command's arguments do not parse; the message says why (in the current locale)."""


def parse_newtable_args(args: str | None, config: BotConfig) -> TableSettings:
    """`[ante] [seats]` → validated settings; UsageError (with a message) otherwise."""
    parts = (args or "").split()
    if len(parts) > 2:
        raise UsageError(texts.newtable_usage())
    try:
        numbers = [int(part) for part in parts]
    except ValueError:
        raise UsageError(texts.newtable_usage()) from None
    ante = numbers[0] if numbers else config.default_ante
    seats = numbers[1] if len(numbers) > 1 else config.default_seats
    if not 1 <= ante <= MAX_ANTE:
        raise UsageError(f"{texts.newtable_bad_ante(MAX_ANTE)} {texts.newtable_usage()}")
    if not 2 <= seats <= 10:
        raise UsageError(f"{texts.newtable_bad_seats()} {texts.newtable_usage()}")
    try:
        return validated(TableSettings(ante=ante, max_seats=seats))
    except GameError:  # nothing else /newtable sets can be wrong; say how to use it
        raise UsageError(texts.newtable_usage()) from None


def make_router() -> Router:
    router = Router(name="group")
    in_group = F.chat.type.in_(GROUP_CHATS)
    router.message.register(on_newtable_group, Command("newtable"), in_group)
    router.message.register(on_newtable_private, Command("newtable"))
    router.message.register(on_tables_group, Command("tables"), in_group)
    router.message.register(on_tables_private, Command("tables"))
    return router


async def on_newtable_group(
    message: Message,
    command: CommandObject,
    bot: Bot,
    tables: BotTables,
    config: BotConfig,
    groups: GroupTables,
    i18n: Catalogs,
) -> None:
    sender = message.from_user
    if sender is None or sender.is_bot:  # anonymous admins and channels post without a user
        await message.reply(texts.newtable_anonymous())
        return
    try:
        settings = parse_newtable_args(command.args, config)
    except UsageError as exc:
        await message.reply(str(exc))
        return
    try:
        table_id = await tables.create_table(as_user(sender), settings,
                                             group_chat_id=message.chat.id)
    except (ServiceError, GameError) as exc:
        log.warning("/newtable in %s failed: %s", message.chat.id, exc)
        await message.reply(texts.newtable_failed())
        return
    await groups.bind(message.chat.id, table_id, i18n.current_locale)
    me = await bot.me()
    text = texts.newtable_created(sender.full_name, settings.ante, settings.max_seats)
    if me.username is None:  # every real bot has one; a misconfigured fake might not
        log.error("bot has no username; cannot build a deep link")
        await message.answer(text)
        return
    await message.answer(text, reply_markup=group_table_keyboard(config, me.username, table_id))


async def on_newtable_private(message: Message, config: BotConfig) -> None:
    url = config.webapp_url()
    markup = webapp_keyboard(url, texts.play_button()) if url else None
    await message.answer(texts.newtable_private(), reply_markup=markup)


async def on_tables_group(
    message: Message, bot: Bot, tables: BotTables, config: BotConfig, groups: GroupTables
) -> None:
    """The group's tables with a free seat, each with a button to join it."""
    listed: list[str] = []
    lines = [texts.group_tables_header()]
    for table_id in await groups.tables_of(message.chat.id):
        try:
            view = await tables.view(None, table_id)
        except ServiceError as exc:
            if exc.status == 404:
                await groups.unbind(message.chat.id, table_id)
            continue
        settings = view["settings"]
        free = int(settings["max_seats"]) - len(view["seats"])  # the occupied seats
        if free > 0 and len(listed) < LISTED:
            listed.append(table_id)
            lines.append(texts.group_table_line(table_id, int(settings["ante"]), free))
    me = await bot.me()
    if not listed or me.username is None:
        await message.answer(texts.group_no_tables())
        return
    markup = group_tables_keyboard(config, me.username, listed)
    await message.answer("\n".join(lines), reply_markup=markup)


async def on_tables_private(message: Message, config: BotConfig) -> None:
    url = config.webapp_url()
    markup = webapp_keyboard(url, texts.play_button()) if url else None
    await message.answer(texts.tables_private(), reply_markup=markup)
