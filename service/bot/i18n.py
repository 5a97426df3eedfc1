"""The bot's languages: aiogram's gettext i18n over the catalogs in `locales/<lang>/LC_MESSAGES`.

The `.po` files are the only copy of the translations: `Catalogs` compiles each with Babel in
memory when the bot starts (a few milliseconds), so there are no `.mo` files to build, commit or
forget to rebuild. English is the source language (the msgids); it has no catalog.

Which language a person gets (`PlayerLocale`): their own choice from the web app or /settings,
else their Telegram client's `language_code`, else English (`service.tables.profiles`). A
private message also records that they started the bot (the bot may then write to them).

Updating the catalogs after changing a text (Babel's command line):

    pybabel extract -F service/bot/locales/babel.cfg -o service/bot/locales/messages.pot .
    pybabel update -i service/bot/locales/messages.pot -d service/bot/locales -D messages

then translate the new or fuzzy entries; tests/bot/test_catalogs.py fails until every
language has every text.
"""

from __future__ import annotations

import gettext
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from io import BytesIO
from pathlib import Path
from typing import Any

from aiogram.types import CallbackQuery, Message, TelegramObject
from aiogram.types import User as TelegramUser
from aiogram.utils.i18n import I18n, I18nMiddleware
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from service.bot.ports import BotTables
from service.tables.facade import User
from service.tables.profiles import DEFAULT_LANGUAGE, EMPTY, Profile, effective_language

log = logging.getLogger(__name__)

LOCALES = Path(__file__).with_name("locales")
DOMAIN = "messages"


class Catalogs(I18n):
    """aiogram's `I18n`, reading `.po` catalogs (compiled in memory) instead of `.mo` files."""

    def find_locales(self) -> dict[str, gettext.GNUTranslations]:
        translations: dict[str, gettext.GNUTranslations] = {}
        for po in sorted(self.path.glob(f"*/LC_MESSAGES/{self.domain}.po")):
            locale = po.parent.parent.name
            with po.open("rb") as source:
                catalog = read_po(source, locale=locale, domain=self.domain)
            compiled = BytesIO()
            write_mo(compiled, catalog, use_fuzzy=False)  # a fuzzy entry falls back to English
            compiled.seek(0)
            translations[locale] = gettext.GNUTranslations(compiled)
        return translations

    @contextmanager
    def context(self) -> Iterator[I18n]:
        """Make this the current I18n for `gettext`. aiogram keeps "the current instance" in a
        context variable per class, and `gettext` looks up `I18n`'s: a subclass must set that
        one, not its own."""
        token = I18n.set_current(self)
        try:
            yield self
        finally:
            I18n.reset_current(token)

    @contextmanager
    def speaking(self, language: str) -> Iterator[None]:
        """Texts called inside are in `language` (for messages sent outside a handler)."""
        with self.context(), self.use_locale(language):
            yield


def make_i18n() -> Catalogs:
    return Catalogs(path=LOCALES, default_locale=DEFAULT_LANGUAGE, domain=DOMAIN)


def as_user(sender: TelegramUser) -> User:
    return User(id=sender.id, name=sender.full_name, language_code=sender.language_code)


class PlayerLocale(I18nMiddleware):
    """Each update in the language of the person who sent it; their profile goes to the
    handlers as `profile`."""

    def __init__(self, i18n: I18n, tables: BotTables) -> None:
        super().__init__(i18n)
        self.tables = tables

    async def get_locale(self, event: TelegramObject, data: dict[str, Any]) -> str:
        sender: TelegramUser | None = data.get("event_from_user")
        if sender is None or sender.is_bot:
            return self.i18n.default_locale
        profile = await self._profile(event, data, sender)
        data["profile"] = profile
        return effective_language(profile, sender.language_code)

    async def _profile(
        self, event: TelegramObject, data: dict[str, Any], sender: TelegramUser
    ) -> Profile:
        chat = data.get("event_chat")
        wrote_in_private = (
            isinstance(event, Message | CallbackQuery)
            and chat is not None
            and chat.type == "private"
        )
        try:
            if wrote_in_private:
                return await self.tables.bot_started(as_user(sender))
            return await self.tables.profile(sender.id)
        except Exception:  # the store briefly down: answer in Telegram's language anyway
            log.warning("could not read the profile of %s", sender.id, exc_info=True)
            return EMPTY
