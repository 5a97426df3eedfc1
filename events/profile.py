"""Profile events: one stream per user (`profile:<user_id>`), what the player chose for
themselves -- the language of the web app and the bot, whether the bot may call them to the
table -- and whether the bot may write to them at all (Telegram lets a bot message only users
who started it, until they block it). Past-tense names, explicit tags; new fields get
defaults so old events still decode.
"""

from __future__ import annotations

import msgspec


class ProfileEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every profile event (`type` is the tag)."""


class PreferencesSet(
    ProfileEvent, frozen=True, kw_only=True, tag="preferences_set", omit_defaults=True
):
    """The player changed one or more preferences; a field left out (None) is unchanged."""

    language: str | None = None  # one of service.game.profile.LANGUAGES
    pings: bool | None = None  # may the bot message them when it is their turn


class BotStarted(ProfileEvent, frozen=True, kw_only=True, tag="bot_started", omit_defaults=True):
    """The player opened a private chat with the bot (/start, or any message after blocking
    it), so the bot may write to them; `language_code` is their Telegram client's language
    then (it picks the bot's language for them until they choose one)."""

    language_code: str | None = None


class BotBlocked(ProfileEvent, frozen=True, kw_only=True, tag="bot_blocked"):
    """Telegram refused a message to the player (403) or told the bot it was blocked: write
    nothing to them until they start the bot again."""


class WriteAccessSet(ProfileEvent, frozen=True, kw_only=True, tag="write_access_set"):
    """Telegram said whether the player lets the bot write to them without having started
    it: the Mini App's signed `allows_write_to_pm`, its `requestWriteAccess` answer, or the
    `write_access_allowed` service message. `explicit`: the player just granted it (the app's
    request, the service message), which also undoes an earlier block."""

    allowed: bool
    explicit: bool = False


AnyProfileEvent = PreferencesSet | BotStarted | BotBlocked | WriteAccessSet

_encoder = msgspec.json.Encoder()
_decoder: msgspec.json.Decoder[AnyProfileEvent] = msgspec.json.Decoder(AnyProfileEvent)


def encode_profile_event(event: AnyProfileEvent) -> bytes:
    return _encoder.encode(event)


def decode_profile_event(data: bytes) -> AnyProfileEvent:
    return _decoder.decode(data)
