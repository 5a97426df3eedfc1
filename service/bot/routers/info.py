"""`/help` and `/rules`: plain text, in any chat, in the sender's language."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import Message

from service.bot import texts


def make_router() -> Router:
    router = Router(name="info")
    router.message.register(on_help, Command("help"))
    router.message.register(on_rules, Command("rules"))
    return router


async def on_help(message: Message) -> None:
    await message.answer(texts.help_text())


async def on_rules(message: Message) -> None:
    await message.answer(texts.rules())
