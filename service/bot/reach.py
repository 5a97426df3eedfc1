"""What every notification needs: the bot, the player's language, and a once-only mark.

A notification is sent by whichever replica claims its mark first in the key-value store
(`claim`: SET NX with an expiry), so several replicas seeing the same event send it once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from aiogram import Bot

from service.bot.config import BotConfig
from service.bot.i18n import Catalogs
from service.bot.ports import LiveTables
from service.tables.profiles import Profile, effective_language


@dataclass
class Reach:
    tables: LiveTables
    bot: Bot
    i18n: Catalogs
    config: BotConfig
    clock: Callable[[], float] = field(default=time.time)

    @property
    def namespace(self) -> str:
        return self.tables.streams.namespace

    async def once(self, mark: str, ttl: float) -> bool:
        """True for the one process, of all replicas, that claims `mark` first."""
        return await self.tables.kv.claim(f"{self.namespace}bot:once:{mark}", ttl)

    async def reachable(self, user_id: int) -> Profile | None:
        """The player's profile if the bot may write to them (they started it, no block)."""
        profile = await self.tables.profile(user_id)
        return profile if profile.reachable else None

    @staticmethod
    def language(profile: Profile) -> str:
        return effective_language(profile, profile.telegram_language)
