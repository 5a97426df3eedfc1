"""What no other handler took: a button from an old message (its data no longer parses)."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery

from service.bot import texts


def make_router() -> Router:
    router = Router(name="fallback")
    router.callback_query.register(on_stale_button)
    return router


async def on_stale_button(query: CallbackQuery) -> None:
    await query.answer(texts.stale_button(), show_alert=True)
