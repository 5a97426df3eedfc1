"""The bot's command menu and menu button, per language.

`setMyCommands` once per language and chat kind (private chats get /start /settings /top
/rules /help, groups /newtable /tables /tournament /top /rules /help; English is the default
for every other language). The menu button next to the message box opens the web app
(`setChatMenuButton`): the default for all chats at start, and per chat, in its player's
language, on /start. Telegram accepts Web App buttons only for `https://` addresses; without
one there is no menu button.
"""

from __future__ import annotations

from aiogram import Bot
from aiogram.types import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    MenuButtonWebApp,
    WebAppInfo,
)

from service.bot import texts
from service.bot.config import BotConfig
from service.bot.i18n import Catalogs
from service.tables.profiles import DEFAULT_LANGUAGE, LANGUAGES

PRIVATE_COMMANDS = ("start", "settings", "top", "rules", "help")
GROUP_COMMANDS = ("newtable", "tables", "tournament", "top", "rules", "help")


async def set_commands(bot: Bot, i18n: Catalogs) -> None:
    for language in LANGUAGES:
        with i18n.speaking(language):
            described = texts.command_descriptions()
        code = None if language == DEFAULT_LANGUAGE else language
        for scope, names in (
            (BotCommandScopeAllPrivateChats(), PRIVATE_COMMANDS),
            (BotCommandScopeAllGroupChats(), GROUP_COMMANDS),
        ):
            commands = [BotCommand(command=name, description=described[name]) for name in names]
            await bot.set_my_commands(commands, scope=scope, language_code=code)


async def set_menu_button(
    bot: Bot,
    config: BotConfig,
    i18n: Catalogs,
    *,
    language: str = DEFAULT_LANGUAGE,
    chat_id: int | None = None,
) -> bool:
    """Point the menu button at the web app (all chats, or `chat_id`); False without https."""
    url = config.webapp_url()
    if url is None or not url.startswith("https://"):
        return False
    with i18n.speaking(language):
        label = texts.menu_button()
    button = MenuButtonWebApp(text=label, web_app=WebAppInfo(url=url))
    await bot.set_chat_menu_button(chat_id=chat_id, menu_button=button)
    return True
