"""The social table's part of the OpenAPI document: quick chat, private tables' invites,
table names, photos in lobby rows and `away` at seats (merged by `openapi.openapi_document`)."""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]
_OBJ = {"type": "object"}

SCHEMAS: JSON = {
    "ChatMessage": {"type": "object", "required": ["seq", "at", "seat", "user_id", "name"],
                    "properties": {
        "seq": {"type": "integer", "description": "the table's chat sequence number"},
        "at": {"type": "number", "description": "server time, epoch seconds"},
        "seat": {"type": ["integer", "null"], "description": "null: a spectator"},
        "user_id": {"type": "integer"}, "name": {"type": "string"},
        "phrase": {"type": "string", "description": "an id of GET /api/chat/phrases"},
        "reaction": {"type": "string", "description": "an id of GET /api/chat/phrases"}}},
    "ChatPage": {"type": "object", "required": ["seq", "messages"], "properties": {
        "seq": {"type": "integer", "description": "the newest seq (0: none yet)"},
        "messages": {"type": "array", "items": {"$ref": "#/components/schemas/ChatMessage"},
                     "description": "after `after`, oldest first (the last 200 are kept)"}}},
    "ChatFrameOut": {"type": "object", "required": ["type", "message"], "properties": {
        "type": {"const": "chat"},
        "message": {"$ref": "#/components/schemas/ChatMessage"}}},
    "LobbyPlayer": {"type": "object", "required": ["seat", "user_id", "name", "photo_url"],
                    "properties": {
        "seat": {"type": "integer"}, "user_id": {"type": "integer"}, "name": {"type": "string"},
        "photo_url": {"type": ["string", "null"],
                      "description": "the player's Telegram photo, where known"}}},
}

# Added to TableSummary's properties (lobby rows) and to the view's seats.
SUMMARY_PROPERTIES: JSON = {
    "name": {"type": ["string", "null"],
             "description": "the name its creator gave it; null: show \"<host_name>'s table\" "
                            "in the viewer's language"},
    "host_name": {"type": ["string", "null"]},
    "players": {"type": "array", "items": {"$ref": "#/components/schemas/LobbyPlayer"}},
}
SEAT_PROPERTIES: JSON = {
    "away": {"type": "boolean", "description": "the player has no socket open to the table, "
                                              "or minimised the app"},
}


def paths(op: Any, json: Any, ref: Any, table_id: JSON) -> JSON:
    invite = {"name": "invite", "in": "query", "schema": {"type": "string"},
              "description": "a private table's invite token (from its link)"}
    after = {"name": "after", "in": "query", "description": "the last seq seen (default 0)",
             "schema": {"type": "integer", "minimum": 0, "maximum": 2**53 - 1}}
    return {
        "/api/chat/phrases": {"get": op(
            "The ids of the quick-chat phrases and reactions (each app shows them in its "
            "viewer's language)",
            json({"type": "object", "properties": {
                "phrases": {"type": "array", "items": {"type": "string"}},
                "reactions": {"type": "array", "items": {"type": "string"}}}}))},
        "/api/tables/{id}/chat": {
            "post": op(
                "Send one phrase (seated players; a spectator's phrase is 403 `not_seated`) "
                "or one reaction (anyone who may watch). Both or neither: 400 `bad_request`; "
                "an unknown id: 400 `unknown_phrase` / `unknown_reaction`. One message every "
                "2 s per player and table, bursts of 3, across replicas: beyond it 429 "
                "`rate_limited` with `retry_after` (seconds, also the `Retry-After` header) "
                "and nothing is stored",
                json({"type": "object", "properties": {"seq": {"type": "integer"}}}),
                body="ChatBody", params=[table_id, invite]),
            "get": op("The chat's messages after a seq", json(ref("ChatPage")),
                      params=[table_id, after, invite]),
        },
        "/api/tables/{id}/invite": {"post": op(
            "A private table's new invite token (its host only: 403 `not_host`); the old one "
            "stops working (404 `invite_revoked`). 409 `not_private` for a public table",
            json({"type": "object", "properties": {"table_id": {"type": "string"},
                                                   "invite": {"type": "string"}}}),
            params=[table_id])},
    }


WS_NOTE = (
    " Social frames: client `{\"type\": \"chat\", \"phrase\"|\"reaction\": id}` (answered "
    "`{\"type\": \"chat_ack\", \"seq\"}` or an error frame, as POST chat), `{\"type\": "
    "\"away\", \"away\": bool}` (the app minimised or back); server `{\"type\": \"chat\", "
    "\"message\"}` (ChatFrameOut): the messages after the resume's `chat_after`, then live "
    "ones, without gaps or repeats (no `chat_after`: live ones only). A private table's "
    "socket needs `invite` in the auth frame unless the caller is or was seated there "
    "(else 4404)."
)
