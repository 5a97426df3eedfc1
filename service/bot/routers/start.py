"""`/start` and its deep links: the way into the web app from a private chat. Also where the
bot learns that a user blocked or unblocked it (Telegram's `my_chat_member` updates)."""

from __future__ import annotations

import logging

from aiogram import Bot, F, Router
from aiogram.filters import KICKED, MEMBER, ChatMemberUpdatedFilter, CommandObject, CommandStart
from aiogram.types import ChatMemberUpdated, Message

from service.bot import texts
from service.bot.config import BotConfig
from service.bot.i18n import Catalogs, as_user
from service.bot.keyboards import webapp_keyboard
from service.bot.links import parse_payload
from service.bot.menu import set_menu_button
from service.bot.ports import BotTables
from service.bot.routers.tournament import send_private_card
from service.tables.facade import ServiceError

log = logging.getLogger(__name__)


def make_router() -> Router:
    router = Router(name="start")
    router.message.filter(F.chat.type == "private")
    router.message.register(on_start, CommandStart())
    router.my_chat_member.filter(F.chat.type == "private")
    router.my_chat_member.register(
        on_blocked, ChatMemberUpdatedFilter(member_status_changed=KICKED)
    )
    router.my_chat_member.register(
        on_unblocked, ChatMemberUpdatedFilter(member_status_changed=MEMBER)
    )
    return router


async def on_start(
    message: Message, command: CommandObject, bot: Bot, tables: BotTables, config: BotConfig,
    i18n: Catalogs,
) -> None:
    """Greet with a Play button; `/start table_<id>` opens that table instead, `/start
    hand_<id>_<n>` that hand, `/start tournament_<id>` shows that tournament's card. The
    chat's menu button opens the web app, labelled in the player's language."""
    await _menu_button(bot, config, i18n, message.chat.id)
    target = parse_payload(command.args)
    if target is not None and target.kind == "tournament":
        if not await send_private_card(message, tables, config, target.id):
            await _greet(message, config)  # this server runs no tournaments: the lobby
        return
    if target is None:
        await _greet(message, config)
        return
    table_id, invite = target.id, target.invite
    try:
        await tables.view(None, table_id, invite)
    except ServiceError as exc:
        if exc.status == 404:
            lobby = config.webapp_url()
            markup = webapp_keyboard(lobby, texts.play_button()) if lobby else None
            replaced = exc.code == "invite_revoked"
            text = texts.invite_replaced(table_id) if replaced else texts.table_gone(table_id)
            await message.answer(text, reply_markup=markup)
            return
        # Anything else (store briefly down): still hand out the link; the web app reports it.
        log.warning("could not check table %s: %s", table_id, exc.code)
    if target.hand is not None:
        url = config.hand_url(table_id, target.hand)
        text, label = texts.hand_invite(table_id, target.hand), texts.watch_again_button()
    else:
        url = config.webapp_url(table_id, invite)
        text, label = texts.table_invite(table_id), texts.open_table_button()
    if url is None:
        await message.answer(texts.greeting_no_app())
        return
    await message.answer(text, reply_markup=webapp_keyboard(url, label))


async def _greet(message: Message, config: BotConfig) -> None:
    url = config.webapp_url()
    if url is None:
        await message.answer(texts.greeting_no_app())
        return
    await message.answer(texts.greeting(), reply_markup=webapp_keyboard(url, texts.play_button()))


async def _menu_button(bot: Bot, config: BotConfig, i18n: Catalogs, chat_id: int) -> None:
    try:
        await set_menu_button(bot, config, i18n, language=i18n.current_locale, chat_id=chat_id)
    except Exception:  # a nicety: the greeting matters more
        log.warning("could not set the menu button of chat %s", chat_id, exc_info=True)


async def on_blocked(update: ChatMemberUpdated, tables: BotTables) -> None:
    await tables.bot_blocked(update.from_user.id)


async def on_unblocked(update: ChatMemberUpdated, tables: BotTables) -> None:
    await tables.bot_started(as_user(update.from_user))
