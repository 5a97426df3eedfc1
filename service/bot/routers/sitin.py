"""The timeout notice's Sit in button: sits the player in again at that table."""

from __future__ import annotations

import logging

from aiogram import Router
from aiogram.types import CallbackQuery, InaccessibleMessage

from service.bot import texts
from service.bot.config import BotConfig
from service.bot.i18n import as_user
from service.bot.keyboards import SitIn, table_keyboard
from service.bot.ports import BotTables
from service.tables.facade import ServiceError

log = logging.getLogger(__name__)


def make_router() -> Router:
    router = Router(name="sitin")
    router.callback_query.register(on_sit_in, SitIn.filter())
    return router


async def on_sit_in(
    query: CallbackQuery, callback_data: SitIn, tables: BotTables, config: BotConfig
) -> None:
    table_id = callback_data.table
    message = query.message
    # One action id per notice: pressing the button twice is one sit_in (the second gets the
    # first one's answer).
    tag = message.message_id if message is not None else query.id
    try:
        await tables.act(
            as_user(query.from_user), table_id, action_id=f"bot-sitin:{tag}", type="sit_in"
        )
    except ServiceError as exc:
        await query.answer(_refusal(exc, table_id), show_alert=True)
        return
    await query.answer(texts.sat_in())
    if message is not None and not isinstance(message, InaccessibleMessage):
        text = f"{message.text or ''}\n\n{texts.sat_in()}".strip()
        await message.edit_text(text, reply_markup=table_keyboard(config, table_id))


def _refusal(error: ServiceError, table_id: str) -> str:
    if error.status == 404:
        return texts.table_gone(table_id)
    if error.code == "not_seated":
        return texts.sit_in_no_seat(table_id)
    if error.code == "not_sat_out":
        return texts.sit_in_not_sat_out(table_id)
    log.warning("sit_in at %s refused: %s", table_id, error.code)
    return texts.sit_in_failed()
