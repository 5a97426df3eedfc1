"""Profile events: one stream per user (`profile:<user_id>`), what the player chose for
themselves -- the language of the web app and the bot, whether the bot may call them to the
table. Past-tense names, explicit tags; new fields get defaults so old events still decode.
"""

from __future__ import annotations

import msgspec


class ProfileEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every profile event (`type` is the tag)."""


class PreferencesSet(
    ProfileEvent, frozen=True, kw_only=True, tag="preferences_set", omit_defaults=True
):
    """The player changed one or more preferences; a field left out (None) is unchanged."""

    language: str | None = None  # one of service.tables.profiles.LANGUAGES
    pings: bool | None = None  # may the bot message them when it is their turn


AnyProfileEvent = PreferencesSet

_encoder = msgspec.json.Encoder()
_decoder: msgspec.json.Decoder[AnyProfileEvent] = msgspec.json.Decoder(AnyProfileEvent)


def encode_profile_event(event: AnyProfileEvent) -> bytes:
    return _encoder.encode(event)


def decode_profile_event(data: bytes) -> AnyProfileEvent:
    return _decoder.decode(data)
