"""`/newtable` in a group: create a table for the group and post a button to it."""

from __future__ import annotations

import logging

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from service.bot import texts
from service.bot.config import BotConfig
from service.bot.keyboards import group_table_keyboard, webapp_keyboard
from service.game.errors import GameError
from service.game.settings import TableSettings, validated
from service.tables.facade import ServiceError, Tables, User

log = logging.getLogger(__name__)

GROUP_CHATS = {"group", "supergroup"}


class UsageError(ValueError):
    """The command's arguments do not parse; the message says why."""


def parse_newtable_args(args: str | None, config: BotConfig) -> TableSettings:
    """`[ante] [seats]` → validated settings; UsageError (with a message) otherwise."""
    parts = (args or "").split()
    if len(parts) > 2:
        raise UsageError(texts.NEWTABLE_USAGE)
    try:
        numbers = [int(part) for part in parts]
    except ValueError:
        raise UsageError(texts.NEWTABLE_USAGE) from None
    ante = numbers[0] if numbers else config.default_ante
    seats = numbers[1] if len(numbers) > 1 else config.default_seats
    try:
        return validated(TableSettings(ante=ante, max_seats=seats))
    except GameError as exc:
        raise UsageError(f"{exc.message}. {texts.NEWTABLE_USAGE}") from None


def make_router() -> Router:
    router = Router(name="group")
    router.message.register(on_newtable_group, Command("newtable"), F.chat.type.in_(GROUP_CHATS))
    router.message.register(on_newtable_private, Command("newtable"))
    return router


async def on_newtable_group(
    message: Message, command: CommandObject, bot: Bot, tables: Tables, config: BotConfig
) -> None:
    sender = message.from_user
    if sender is None or sender.is_bot:  # anonymous admins and channels post without a user
        await message.reply(texts.NEWTABLE_FAILED.format(reason="send it as yourself"))
        return
    try:
        settings = parse_newtable_args(command.args, config)
    except UsageError as exc:
        await message.reply(str(exc))
        return
    user = User(id=sender.id, name=sender.full_name, language_code=sender.language_code)
    try:
        table_id = await tables.create_table(user, settings)
    except (ServiceError, GameError) as exc:
        await message.reply(texts.NEWTABLE_FAILED.format(reason=exc.message))
        return
    me = await bot.me()
    text = texts.NEWTABLE_CREATED.format(
        name=sender.full_name, ante=settings.ante, seats=settings.max_seats
    )
    if me.username is None:  # every real bot has one; a misconfigured fake might not
        log.error("bot has no username; cannot build a deep link")
        await message.answer(text)
        return
    await message.answer(text, reply_markup=group_table_keyboard(me.username, table_id))


async def on_newtable_private(message: Message, config: BotConfig) -> None:
    url = config.webapp_url()
    markup = webapp_keyboard(url, texts.PLAY_BUTTON) if url else None
    await message.answer(texts.NEWTABLE_PRIVATE, reply_markup=markup)
