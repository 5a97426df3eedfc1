"""The OpenAPI description of sharing and the bot's write access (service/api/share.py,
grants.py), merged into the served document by `service.api.openapi`."""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]

_ERROR = {"$ref": "#/components/schemas/Error"}


def _json(schema: JSON, description: str = "OK") -> JSON:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


SCHEMAS: JSON = {
    "ShareBody": {"oneOf": [
        {"type": "object", "required": ["kind", "table_id"], "additionalProperties": False,
         "properties": {"kind": {"const": "table"}, "table_id": {"type": "string"}}},
        {"type": "object", "required": ["kind", "table_id", "hand"],
         "additionalProperties": False,
         "properties": {"kind": {"const": "hand"}, "table_id": {"type": "string"},
                        "hand": {"type": "integer", "minimum": 0}}},
    ], "discriminator": {"propertyName": "kind"}},
    "Shared": {"type": "object",
               "required": ["prepared_message_id", "expires_at", "fallback_url"],
               "properties": {
        "prepared_message_id": {"type": "string", "description": "for Telegram.WebApp."
                                "shareMessage (Bot API 8.0 savePreparedInlineMessage)"},
        "expires_at": {"type": "integer", "description": "epoch seconds"},
        "fallback_url": {"type": "string", "description": "https://t.me/share/url?url=&text= "
                         "with the same link and text, for clients without shareMessage"}}},
    "WriteAccessBody": {"type": "object", "required": ["allowed"],
                        "additionalProperties": False,
                        "properties": {"allowed": {"type": "boolean"}}},
}

PATHS: JSON = {
    "/api/share": {"post": {
        "summary": "A card to share: `kind` table (its name, ante and free seats, a Join "
                   "button) or hand (its result once settled, a Watch button), stored with "
                   "Telegram as a prepared message for the caller. The buttons link to the "
                   "Mini App (`https://t.me/<bot>/<MINI_APP_NAME>?startapp=table_<id>` or "
                   "`hand_<id>_<n>`; the bot's `?start=` link without MINI_APP_NAME). Whoever "
                   "may see the table / read the hand's audit may share it",
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/ShareBody"}}}},
        "responses": {
            "200": _json({"$ref": "#/components/schemas/Shared"}),
            "400": _json(_ERROR, "malformed body"),
            "401": _json(_ERROR, "missing, invalid or expired initData"),
            "404": _json(_ERROR, "unknown table or hand"),
            "409": _json(_ERROR, "hand_in_progress: the hand is not settled yet"),
            "429": _json(_ERROR, "rate limited"),
            "503": _json({"allOf": [_ERROR, {"type": "object", "properties": {
                "fallback_url": {"type": "string"}}}]},
                "bot_unavailable (no bot in dev mode, or Telegram refused): the error also "
                "carries `fallback_url`, a share link to the web app itself; or "
                "store_unavailable"),
        }}},
    "/api/me/write-access": {"post": {
        "summary": "After Telegram.WebApp.requestWriteAccess: whether the caller let the bot "
                   "write to them. Answers like GET /api/me, whose `can_ping` says whether "
                   "the bot can reach them now (turn pings). The server also records "
                   "`allows_write_to_pm` from the signed initData by itself",
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/WriteAccessBody"}}}},
        "responses": {
            "200": _json({"type": "object", "properties": {"can_ping": {"type": "boolean"}}}),
            "400": _json(_ERROR, "malformed body"),
            "401": _json(_ERROR, "missing, invalid or expired initData"),
            "429": _json(_ERROR, "rate limited"),
            "503": _json(_ERROR, "store unreachable"),
        }}},
}

ME_CAN_PING = (
    "; `can_ping`: whether the bot may write to them (they started it, or let it write from "
    "the Mini App, and did not block it) -- when false the app may ask (requestWriteAccess)"
)
