"""Inline keyboards: the web app button for private chats, a deep-link button for groups.

Telegram shows `web_app` buttons only in private chats, so a group gets a plain URL button
to the bot's deep link, which in turn answers with the web app button.
"""

from __future__ import annotations

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from service.bot import texts
from service.bot.config import deep_link


def webapp_keyboard(url: str, label: str) -> InlineKeyboardMarkup:
    """A button that opens the web app at `url` (https) or, failing that, a link to it."""
    if url.startswith("https://"):
        button = InlineKeyboardButton(text=label, web_app=WebAppInfo(url=url))
    else:  # Telegram refuses web_app buttons without TLS; a link still works in a browser
        button = InlineKeyboardButton(text=label, url=url)
    return InlineKeyboardMarkup(inline_keyboard=[[button]])


def group_table_keyboard(bot_username: str, table_id: str) -> InlineKeyboardMarkup:
    button = InlineKeyboardButton(
        text=texts.JOIN_TABLE_BUTTON, url=deep_link(bot_username, table_id)
    )
    return InlineKeyboardMarkup(inline_keyboard=[[button]])
