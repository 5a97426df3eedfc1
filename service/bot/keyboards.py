"""Inline keyboards. Labels are passed in already translated (the caller knows the language).

Telegram shows `web_app` buttons only in private chats, so a group (and an inline message)
gets a plain URL button to the link `BotConfig.link` builds: the Mini App's own link when its
name is configured, else the bot's deep link, which in turn answers with the web app button.
"""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from service.bot import texts
from service.bot.config import BotConfig
from service.bot.links import hand_payload, table_payload
from service.tables.profiles import LANGUAGES


class SitIn(CallbackData, prefix="sitin"):
    """The timeout notice's button: sit the player in again at `table`."""

    table: str


class ChooseLanguage(CallbackData, prefix="lang"):
    language: str


class SetPings(CallbackData, prefix="pings"):
    on: bool


def webapp_button(url: str, label: str) -> InlineKeyboardButton:
    """A button that opens the web app at `url` (https) or, failing that, a link to it."""
    if url.startswith("https://"):
        return InlineKeyboardButton(text=label, web_app=WebAppInfo(url=url))
    # Telegram refuses web_app buttons without TLS; a link still works in a browser
    return InlineKeyboardButton(text=label, url=url)


def webapp_keyboard(url: str, label: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(inline_keyboard=[[webapp_button(url, label)]])


def table_keyboard(config: BotConfig, table_id: str) -> InlineKeyboardMarkup | None:
    """One button opening `table_id` (None when the web app's address is not configured)."""
    url = config.webapp_url(table_id)
    return webapp_keyboard(url, texts.open_table_button()) if url else None


def link_button(config: BotConfig, bot_username: str, payload: str | None, label: str
                ) -> InlineKeyboardButton:
    """A URL button to `payload` (`service.bot.links`): where chats other than the bot's own
    private one take people."""
    return InlineKeyboardButton(text=label, url=config.link(bot_username, payload))


def group_table_keyboard(
    config: BotConfig, bot_username: str, table_id: str
) -> InlineKeyboardMarkup:
    button = link_button(config, bot_username, table_payload(table_id), texts.join_table_button())
    return InlineKeyboardMarkup(inline_keyboard=[[button]])


def result_keyboard(
    config: BotConfig, bot_username: str | None, table_id: str, hand: int
) -> InlineKeyboardMarkup | None:
    """Under a hand's result in the group: to the table, to sit down or to watch (the same
    link as the invitation), and to watch that hand again (None without the bot's username
    to build them)."""
    if bot_username is None:
        return None
    to_table = link_button(
        config, bot_username, table_payload(table_id), texts.join_or_watch_button()
    )
    again = link_button(
        config, bot_username, hand_payload(table_id, hand), texts.watch_again_button()
    )
    return InlineKeyboardMarkup(inline_keyboard=[[to_table], [again]])


def group_tables_keyboard(
    config: BotConfig, bot_username: str, table_ids: list[str]
) -> InlineKeyboardMarkup:
    rows = [
        [link_button(config, bot_username, table_payload(t), texts.group_table_button(t))]
        for t in table_ids
    ]
    return InlineKeyboardMarkup(inline_keyboard=rows)


def timeout_keyboard(
    config: BotConfig, table_id: str, *, sat_out: bool
) -> InlineKeyboardMarkup | None:
    """Sit in (when sat out) and Open table (when the web app's address is known)."""
    rows: list[list[InlineKeyboardButton]] = []
    if sat_out:
        data = SitIn(table=table_id).pack()
        rows.append([InlineKeyboardButton(text=texts.sit_in_button(), callback_data=data)])
    url = config.webapp_url(table_id)
    if url:
        rows.append([webapp_button(url, texts.open_table_button())])
    return InlineKeyboardMarkup(inline_keyboard=rows) if rows else None


def settings_keyboard(pings: bool) -> InlineKeyboardMarkup:
    languages = [
        InlineKeyboardButton(
            text=texts.LANGUAGE_NAMES[code], callback_data=ChooseLanguage(language=code).pack()
        )
        for code in LANGUAGES
    ]
    toggle = InlineKeyboardButton(
        text=texts.pings_off_button() if pings else texts.pings_on_button(),
        callback_data=SetPings(on=not pings).pack(),
    )
    return InlineKeyboardMarkup(inline_keyboard=[languages[:3], languages[3:], [toggle]])
