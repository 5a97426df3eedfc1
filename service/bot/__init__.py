"""The Telegram bot (aiogram 3): /start with deep links to tables, /newtable in groups,
/help and /rules. `attach_bot` runs it inside the API's aiohttp application."""

from service.bot.runner import attach_bot

__all__ = ["attach_bot"]
