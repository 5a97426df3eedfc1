"""Request bodies and WebSocket frames as msgspec structs: decoding *is* validation.

Bodies are size-capped before they are decoded (`Config.max_body_bytes`, enforced by aiohttp's
`client_max_size`), so a huge body costs nothing but a 413.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from service.game.settings import LIMITS, MAX_CHIPS, TableSettings

ActionId = Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
# Versions are bounded like the HTTP `after` (JavaScript's exact integers): beyond any stream,
# and below what Redis accepts as a stream id.
MAX_VERSION = 2**53 - 1
Version = Annotated[int, msgspec.Meta(ge=0, le=MAX_VERSION)]
Chips = Annotated[int, msgspec.Meta(ge=0, le=MAX_CHIPS)]


def _bounds(name: str) -> msgspec.Meta:
    least, most = LIMITS[name]
    return msgspec.Meta(ge=least, le=most)


class CreateTableBody(TableSettings, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """POST /api/tables: every TableSettings option, plus practice bots to seat at once.
    Every number is bounded here, at the edge (`service.game.settings.LIMITS`), so a body the
    game would refuse is a 400 before anything runs."""

    ante: Annotated[int, _bounds("ante")]
    bet_unit: Annotated[int, _bounds("bet_unit")] | None = None
    max_seats: Annotated[int, _bounds("max_seats")] = 6
    min_buy_in: Annotated[int, _bounds("min_buy_in")] | None = None
    max_buy_in: Annotated[int, _bounds("max_buy_in")] | None = None
    turn_seconds: Annotated[int, _bounds("turn_seconds")] = 30
    svara_join_seconds: Annotated[int, _bounds("svara_join_seconds")] | None = None
    next_hand_seconds: Annotated[int, _bounds("next_hand_seconds")] = 3
    max_raises: Annotated[int, _bounds("max_raises")] = 3
    rake_percent: Annotated[int, _bounds("rake_percent")] = 0
    practice_bots: Annotated[int, msgspec.Meta(ge=0, le=9)] = 0
    # Checked by the service (`service.game.names`: 400 `invalid_name`); the bound here only
    # keeps a huge string from going further.
    name: Annotated[str, msgspec.Meta(max_length=256)] | None = None
    private: bool = False

    def settings(self) -> TableSettings:
        fields = msgspec.structs.asdict(self)
        for extra in ("practice_bots", "name", "private"):
            fields.pop(extra)
        return TableSettings(**fields)


Language = Literal["en", "ru", "bg", "tr", "de", "ar"]  # service.game.profile.LANGUAGES


class PreferencesBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """POST /api/me/settings: what the player changes (a field left out is unchanged)."""

    language: Language | None = None
    pings: bool | None = None


Invite = Annotated[str, msgspec.Meta(max_length=64)]


class SeatBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    buy_in: Chips
    invite: Invite | None = None  # a private table's (POST /seat only; rebuy ignores it)


ChatId = Annotated[str, msgspec.Meta(max_length=32)]


class ChatBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """POST /api/tables/{id}/chat: exactly one of the two, an id of GET /api/chat/phrases."""

    phrase: ChatId | None = None
    reaction: ChatId | None = None
    invite: Invite | None = None


ClientSeed = Annotated[
    str,
    msgspec.Meta(
        pattern="^[A-Za-z0-9_-]{1,64}$",
        description="the player's own seed for v2 decks: 1-64 of A-Z a-z 0-9 _ -",
    ),
]


class SeedBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """POST /api/tables/{id}/seed (docs/FAIRNESS.md "Decks")."""

    client_seed: ClientSeed


class ActionBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """POST /api/tables/{id}/actions."""

    action_id: ActionId
    type: Annotated[str, msgspec.Meta(min_length=1, max_length=32)]
    amount: Chips | None = None
    expected_version: Version | None = None


# WebSocket frames from the client, told apart by "type".
class AuthFrame(msgspec.Struct, frozen=True, tag="auth"):
    init_data: Annotated[str, msgspec.Meta(max_length=4096)]
    invite: Invite | None = None  # a private table's, for someone not seated there


class ResumeFrame(msgspec.Struct, frozen=True, tag="resume"):
    after: Version = 0
    views: bool = False  # opt-in: event frames also carry the caller's view at their version
    # The chat's seq last seen: the messages after it, then live ones (absent: live only).
    chat_after: Version | None = None


class ChatFrame(msgspec.Struct, frozen=True, tag="chat", forbid_unknown_fields=True):
    phrase: ChatId | None = None
    reaction: ChatId | None = None


class AwayFrame(msgspec.Struct, frozen=True, tag="away", forbid_unknown_fields=True):
    """The app was minimised (true) or brought back (false)."""

    away: bool


class PingFrame(msgspec.Struct, frozen=True, tag="ping"):
    pass


class ActionFrame(msgspec.Struct, frozen=True, tag="action", forbid_unknown_fields=True):
    """An action over the socket. The frame's own "type" is "action", so the action's type
    travels as `action` (a string), or the whole POST body travels as `action` (an object).
    Unknown fields are refused, as in the POST body (one contract for both)."""

    action: str | ActionBody
    action_id: ActionId | None = None
    amount: Chips | None = None
    expected_version: Version | None = None

    def body(self) -> ActionBody:
        if isinstance(self.action, ActionBody):
            return self.action
        if self.action_id is None:
            raise msgspec.ValidationError("Object missing required field `action_id`")
        return ActionBody(
            action_id=self.action_id, type=self.action, amount=self.amount,
            expected_version=self.expected_version,
        )


ClientFrame = AuthFrame | ResumeFrame | PingFrame | ActionFrame | ChatFrame | AwayFrame

create_table_decoder = msgspec.json.Decoder(CreateTableBody)
seat_decoder = msgspec.json.Decoder(SeatBody)
seed_decoder = msgspec.json.Decoder(SeedBody)
preferences_decoder = msgspec.json.Decoder(PreferencesBody)
action_decoder = msgspec.json.Decoder(ActionBody)
chat_decoder = msgspec.json.Decoder(ChatBody)
frame_decoder = msgspec.json.Decoder(ClientFrame)


def decode_body(decoder: msgspec.json.Decoder[Any], raw: bytes) -> Any:
    """Decode a request body; an empty body reads as `{}` (so a missing field is named)."""
    return decoder.decode(raw if raw.strip() else b"{}")

