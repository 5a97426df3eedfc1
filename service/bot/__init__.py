"""The Telegram bot (aiogram 3), in six languages: /start with deep links to tables, /newtable
and /tables in groups, /settings, /help and /rules; turn pings, timeout notices and group
results; every call through one rate-limited sender. `attach_bot` runs it inside the API's
aiohttp application (docs/BOT.md)."""

from service.bot.runner import attach_bot

__all__ = ["attach_bot"]
