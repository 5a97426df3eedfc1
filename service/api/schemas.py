"""Request bodies and WebSocket frames as msgspec structs: decoding *is* validation.

Bodies are size-capped before they are decoded (`Config.max_body_bytes`, enforced by aiohttp's
`client_max_size`), so a huge body costs nothing but a 413.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from service.game.settings import TableSettings

ActionId = Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
Version = Annotated[int, msgspec.Meta(ge=0)]
Chips = Annotated[int, msgspec.Meta(ge=0, le=10**12)]


class CreateTableBody(TableSettings, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """POST /api/tables: every TableSettings option, plus practice bots to seat at once."""

    practice_bots: Annotated[int, msgspec.Meta(ge=0, le=9)] = 0

    def settings(self) -> TableSettings:
        fields = msgspec.structs.asdict(self)
        fields.pop("practice_bots")
        return TableSettings(**fields)


Language = Literal["en", "ru", "bg", "tr", "de", "ar"]  # service.tables.profiles.LANGUAGES


class PreferencesBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """POST /api/me/settings: what the player changes (a field left out is unchanged)."""

    language: Language | None = None
    pings: bool | None = None


class SeatBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    buy_in: Chips


ClientSeed = Annotated[
    str,
    msgspec.Meta(
        pattern="^[A-Za-z0-9_-]{1,64}$",
        description="the player's own seed for v2 decks: 1-64 of A-Z a-z 0-9 _ -",
    ),
]


class SeedBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """POST /api/tables/{id}/seed (DESIGN.md "Players' seeds")."""

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


class ResumeFrame(msgspec.Struct, frozen=True, tag="resume"):
    after: Version = 0
    views: bool = False  # opt-in: event frames also carry the caller's view at their version


class PingFrame(msgspec.Struct, frozen=True, tag="ping"):
    pass


class ActionFrame(msgspec.Struct, frozen=True, tag="action"):
    """An action over the socket. The frame's own "type" is "action", so the action's type
    travels as `action` (a string), or the whole POST body travels as `action` (an object)."""

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


ClientFrame = AuthFrame | ResumeFrame | PingFrame | ActionFrame

create_table_decoder = msgspec.json.Decoder(CreateTableBody)
seat_decoder = msgspec.json.Decoder(SeatBody)
seed_decoder = msgspec.json.Decoder(SeedBody)
preferences_decoder = msgspec.json.Decoder(PreferencesBody)
action_decoder = msgspec.json.Decoder(ActionBody)
frame_decoder = msgspec.json.Decoder(ClientFrame)


def decode_body(decoder: msgspec.json.Decoder[Any], raw: bytes) -> Any:
    """Decode a request body; an empty body reads as `{}` (so a missing field is named)."""
    return decoder.decode(raw if raw.strip() else b"{}")

