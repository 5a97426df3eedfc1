"""The OpenAPI paths of a settled hand as a record (`service.api.hand_routes`): replay,
transcript, the caller's hands and the download links. Merged into `openapi_document`."""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]
_OBJ = {"type": "object"}
_ERROR = {"$ref": "#/components/schemas/Error"}

STEP: JSON = {
    "type": "object", "required": ["version", "hash", "event", "view"], "properties": {
        "version": {"type": "integer"},
        "hash": {"type": "string", "description": "the event's chain hash (docs/CHAIN.md)"},
        "event": {"type": "object", "required": ["type", "at", "data"], "properties": {
            "type": {"type": "string"}, "at": {"type": "number"}, "data": _OBJ},
            "description": "as /events hands it to the caller (the same projection)"},
        "view": {"$ref": "#/components/schemas/TableView"},
        "actor": {"type": ["integer", "null"], "description": "the seat the event is about"},
        "pot_after": {"type": "integer"},
        "deal": {"type": ["integer", "null"]},
        "phase": {"type": ["string", "null"]}}}

MY_HAND: JSON = {
    "type": "object", "required": ["table_id", "hand", "settled_at", "pot", "won", "result"],
    "properties": {
        "table_id": {"type": "string"}, "hand": {"type": "integer"},
        "settled_at": {"type": "number"}, "pot": {"type": "integer"},
        "won": {"type": "integer", "description": "net for the caller: chips won minus chips "
                                                  "put in"},
        "result": {"enum": ["won", "split", "lost", "folded"]},
        "reason": {"type": "string"}, "version": {"type": "integer"},
        "archived": {"type": "boolean", "description": "present (true) when the table has "
                     "been archived: its replay, audit, export and transcript answer 410"}}}


def _json(schema: JSON, description: str = "OK") -> JSON:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*codes: str) -> JSON:
    return {code: _json(_ERROR, "see docs/API.md \"Errors\"") for code in codes}


def hand_paths(table_id: JSON, hand: JSON) -> JSON:
    hand = {**hand, "schema": {"type": "integer", "minimum": 1, "maximum": 999_999_999}}
    lang = {"name": "lang", "in": "query", "description": "en, ru, bg, tr, de or ar (default: "
            "the caller's language, as GET /api/me says; a download link's own)",
            "schema": {"enum": ["en", "ru", "bg", "tr", "de", "ar"]}}
    download = {"name": "download", "in": "query", "description": "a download token from POST "
                "/hands/{n}/download: then no Authorization header is needed (for Telegram's "
                "WebApp.downloadFile); 401 download_expired, 403 invalid_download",
                "schema": {"type": "string"}}
    refusals = _errors("400", "401", "403", "404", "409", "429", "503")
    text = {"description": "the transcript (docs/TRANSCRIPT.md)",
            "content": {"text/plain; charset=utf-8": {"schema": {"type": "string"}}}}
    return {
        "/api/tables/{id}/hands/{n}/replay": {"get": {
            "summary": "A settled hand step by step in the caller's projection: one step per "
                       "event (hand_started through hand_settled), each with the caller's "
                       "view at its version; anyone signed in may read it, like the audit. "
                       "404 unknown_table / unknown_hand, 409 hand_in_progress, 400 for a "
                       "malformed n",
            "parameters": [table_id, hand],
            "responses": {"200": _json({"type": "object", "required": [
                "table_id", "hand", "steps"], "properties": {
                "table_id": {"type": "string"}, "hand": {"type": "integer"},
                "steps": {"type": "array", "items": STEP}}}), **refusals}}},
        "/api/tables/{id}/hands/{n}/transcript": {"get": {
            "summary": "The readable history of a settled hand, text/plain; English is what "
                       "`svara verify --text` prints for the hand's export",
            "parameters": [table_id, hand, lang, download],
            "security": [{"tma": []}, {}],
            "responses": {"200": text, **refusals}}},
        "/api/tables/{id}/hands/{n}/download": {"post": {
            "summary": "Download links for the hand's export and transcript, valid 300 s, "
                       "for the caller only: URLs with a signed `download` token, for "
                       "Telegram's WebApp.downloadFile (which sends no Authorization header)",
            "parameters": [table_id, hand, lang],
            "responses": {"200": _json({"type": "object", "required": [
                "export_url", "transcript_url", "file_names"], "properties": {
                "export_url": {"type": "string"}, "transcript_url": {"type": "string"},
                "file_names": {"type": "object", "properties": {
                    "export": {"type": "string"}, "transcript": {"type": "string"}}},
                "expires_in": {"type": "integer"}}}), **refusals}}},
        "/api/me/hands": {"get": {
            "summary": "The caller's settled hands across every table (closed ones too), "
                       "newest first, a page at a time",
            "parameters": [
                {"name": "limit", "in": "query",
                 "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}},
                {"name": "cursor", "in": "query", "description": "the `next` of the page "
                 "before", "schema": {"type": "string"}}],
            "responses": {"200": _json({"type": "object", "required": ["hands", "next"],
                                        "properties": {
                "hands": {"type": "array", "items": MY_HAND},
                "next": {"type": ["string", "null"]}}}), **refusals}}},
    }
