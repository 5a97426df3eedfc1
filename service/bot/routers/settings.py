"""`/settings` in a private chat: the player's language and turn pings, the same profile the
web app's settings write (`Tables.set_preferences`)."""

from __future__ import annotations

import contextlib
import logging

from aiogram import F, Router
from aiogram.exceptions import TelegramBadRequest
from aiogram.filters import Command
from aiogram.types import CallbackQuery, InaccessibleMessage, Message

from service.bot import texts
from service.bot.i18n import Catalogs, as_user
from service.bot.keyboards import ChooseLanguage, SetPings, settings_keyboard
from service.bot.ports import BotTables
from service.tables.facade import JSON, ServiceError
from service.tables.profiles import Profile

log = logging.getLogger(__name__)


def make_router() -> Router:
    router = Router(name="settings")
    private = F.chat.type == "private"
    router.message.register(on_settings, Command("settings"), private)
    router.message.register(on_settings_in_group, Command("settings"))
    router.callback_query.register(on_language, ChooseLanguage.filter())
    router.callback_query.register(on_pings, SetPings.filter())
    return router


async def on_settings(message: Message, profile: Profile, i18n: Catalogs) -> None:
    await message.answer(
        texts.settings_text(i18n.current_locale, profile.pings),
        reply_markup=settings_keyboard(profile.pings),
    )


async def on_settings_in_group(message: Message) -> None:
    await message.reply(texts.settings_in_group())


async def on_language(
    query: CallbackQuery, callback_data: ChooseLanguage, tables: BotTables, i18n: Catalogs
) -> None:
    await _change(query, tables, i18n, language=callback_data.language)


async def on_pings(
    query: CallbackQuery, callback_data: SetPings, tables: BotTables, i18n: Catalogs
) -> None:
    await _change(query, tables, i18n, pings=callback_data.on)


async def _change(
    query: CallbackQuery,
    tables: BotTables,
    i18n: Catalogs,
    *,
    language: str | None = None,
    pings: bool | None = None,
) -> None:
    user = as_user(query.from_user)
    try:
        me: JSON = await tables.set_preferences(user, language=language, pings=pings)
    except ServiceError as exc:  # unknown_language (a forged button) or the store away
        log.info("settings of %s not saved: %s", user.id, exc.code)
        await query.answer(texts.settings_failed(), show_alert=True)
        return
    chosen = str(me["language"])
    now_pings = bool(me["settings"]["pings"])
    with i18n.use_locale(chosen):  # answer in the language just chosen
        message = query.message
        if message is not None and not isinstance(message, InaccessibleMessage):
            # "message is not modified" (the same choice twice) changes nothing anyway
            with contextlib.suppress(TelegramBadRequest):
                await message.edit_text(
                    texts.settings_text(chosen, now_pings),
                    reply_markup=settings_keyboard(now_pings),
                )
        await query.answer(texts.settings_saved())

