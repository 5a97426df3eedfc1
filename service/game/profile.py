"""The profile decider: a player's language, turn pings and whether the bot may write to them,
as `decide(profile, command) -> events` and `evolve(profile, event) -> profile` over the
`events.profile` stream (`service.tables.profiles` loads, decides and appends).

The language a player sees is `effective_language`: their own choice if they made one, else
their Telegram client's `language_code` (`ru-RU` -> `ru`), else English.

The profile also says whether the bot may write to the player (`bot`): Telegram lets a bot
message users who started it, and a user who blocked it answers every message with 403. A
player who came from a link and never started the bot may still have let it write to them
(`write_access`: the Mini App's `allows_write_to_pm`, or `requestWriteAccess`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal

import msgspec

from events.profile import (
    AnyProfileEvent,
    BotBlocked,
    BotStarted,
    PreferencesSet,
    WriteAccessSet,
)
from service.game.errors import GameError

LANGUAGES: Final = ("en", "ru", "bg", "tr", "de", "ar")  # en first: the fallback
DEFAULT_LANGUAGE: Final = "en"


BotStatus = Literal["never", "started", "blocked"]


class Profile(msgspec.Struct, frozen=True, kw_only=True):
    language: str | None = None  # None: never chosen (Telegram's language_code decides)
    pings: bool = True
    bot: BotStatus = "never"  # may the bot write to them: only when "started"
    telegram_language: str | None = None  # their client's language_code when they started it
    write_access: bool = False  # Telegram says they let the bot write to them (a Mini App grant)

    @property
    def reachable(self) -> bool:
        """The bot may send this player a message: they started it, or let it write to them
        from the Mini App, and did not block it since."""
        return self.bot == "started" or (self.bot == "never" and self.write_access)


EMPTY = Profile()


def supported_language(code: str | None) -> str | None:
    """The supported language a Telegram `language_code` (IETF tag) names, or None."""
    if not code:
        return None
    primary = code.strip().replace("_", "-").split("-", 1)[0].lower()
    return primary if primary in LANGUAGES else None


def effective_language(profile: Profile, language_code: str | None) -> str:
    """What the player sees: their choice, else their Telegram language, else English."""
    return profile.language or supported_language(language_code) or DEFAULT_LANGUAGE


def evolve(profile: Profile, event: AnyProfileEvent) -> Profile:
    if isinstance(event, BotStarted):
        return msgspec.structs.replace(
            profile, bot="started", telegram_language=event.language_code
        )
    if isinstance(event, BotBlocked):  # a 403 is the proof that no grant holds any more
        return msgspec.structs.replace(profile, bot="blocked", write_access=False)
    if isinstance(event, WriteAccessSet):
        unblocked = event.allowed and event.explicit and profile.bot == "blocked"
        return msgspec.structs.replace(
            profile, write_access=event.allowed, bot="never" if unblocked else profile.bot
        )
    language = event.language if event.language is not None else profile.language
    pings = event.pings if event.pings is not None else profile.pings
    return msgspec.structs.replace(profile, language=language, pings=pings)


def fold(events: Iterable[AnyProfileEvent], profile: Profile = EMPTY) -> Profile:
    for event in events:
        profile = evolve(profile, event)
    return profile


# -- commands: what the player (or Telegram, for them) asks of their profile ----------------


class ProfileCommand(msgspec.Struct, frozen=True, kw_only=True):
    """Base of every profile command."""


class SetPreferences(ProfileCommand, frozen=True, kw_only=True):
    """Change the language and/or the turn pings; None leaves one as it is."""

    language: str | None = None
    pings: bool | None = None


class StartBot(ProfileCommand, frozen=True, kw_only=True):
    """The player wrote to the bot in private; `language_code` is their Telegram client's."""

    language_code: str | None = None


class BlockBot(ProfileCommand, frozen=True, kw_only=True):
    """Telegram says the player blocked the bot."""


class GrantWrites(ProfileCommand, frozen=True, kw_only=True):
    """Telegram told whether the player lets the bot write to them: `explicit` when the
    player granted it just now (requestWriteAccess, the bot's service message), not when it is
    read from a signed initData's `allows_write_to_pm`."""

    allowed: bool
    explicit: bool


AnyProfileCommand = SetPreferences | StartBot | BlockBot | GrantWrites


def decide(profile: Profile, command: AnyProfileCommand) -> list[AnyProfileEvent]:
    """The events `command` produces on `profile` (none: nothing changes). Raises GameError."""
    match command:
        case SetPreferences(language=language, pings=pings):
            return set_preferences(profile, language=language, pings=pings)
        case StartBot(language_code=language_code):
            return start_bot(profile, language_code)
        case BlockBot():
            return block_bot(profile)
        case GrantWrites(allowed=allowed, explicit=explicit):
            return grant_writes(profile, allowed=allowed, explicit=explicit)
    raise AssertionError(f"unhandled profile command {command!r}")  # pragma: no cover


# -- one rule per command (public: `decide` is the dispatch, these are the rules) ----------


def set_preferences(
    profile: Profile, *, language: str | None = None, pings: bool | None = None
) -> list[AnyProfileEvent]:
    """The events that record a change (none if nothing changes). Refuses an unsupported
    language with GameError `unknown_language` (a 400 at the service's boundary)."""
    if language is not None and language not in LANGUAGES:
        raise GameError("unknown_language", f"language must be one of {', '.join(LANGUAGES)}")
    changed_language = language if language != profile.language else None
    changed_pings = pings if pings != profile.pings else None
    if changed_language is None and changed_pings is None:
        return []
    return [PreferencesSet(language=changed_language, pings=changed_pings)]


def start_bot(profile: Profile, language_code: str | None) -> list[AnyProfileEvent]:
    """The player wrote to the bot in private: it may write to them (a change only when it
    could not before, or their Telegram language changed)."""
    code = language_code[:35] if language_code else None
    if profile.bot == "started" and profile.telegram_language == code:
        return []
    return [BotStarted(language_code=code)]


def block_bot(profile: Profile) -> list[AnyProfileEvent]:
    """The player blocked the bot: nothing more is written to them until they start it."""
    return [BotBlocked()] if profile.reachable else []


def grant_writes(profile: Profile, *, allowed: bool, explicit: bool) -> list[AnyProfileEvent]:
    """Telegram told whether the player lets the bot write to them. Only a change is an
    event. The signed initData's `allows_write_to_pm` (not explicit) never overrides a block
    the bot saw itself (a 403 after it); the player's fresh grant (explicit) does."""
    if allowed and not explicit and profile.bot == "blocked":
        return []
    if profile.write_access == allowed and not (allowed and profile.bot == "blocked"):
        return []
    return [WriteAccessSet(allowed=allowed, explicit=explicit)]
