"""The OpenAPI 3 document served at /api/openapi.json. Request schemas come from the msgspec
structs that validate them, so the document cannot drift from what the server accepts."""

from __future__ import annotations

from functools import cache
from typing import Any

import msgspec

from service.api import schemas

JSON = dict[str, Any]


def _ref(name: str) -> JSON:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: JSON, description: str = "OK") -> JSON:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_ERRORS = {
    "400": _json(_ref("Error"), "malformed body or parameter"),
    "401": _json(_ref("Error"), "missing, invalid or expired initData"),
    "403": _json(_ref("Error"), "not allowed: not your seat or not your turn"),
    "404": _json(_ref("Error"), "unknown table or hand"),
    "409": _json(_ref("Error"), "version_conflict (with `version`) or hand_in_progress"),
    "413": _json(_ref("Error"), "body too large"),
    "422": _json(_ref("Error"), "illegal action"),
    "429": _json(_ref("Error"), "rate limited"),
    "503": _json(_ref("Error"), "store unreachable"),
}
_TABLE_ID = {"name": "id", "in": "path", "required": True,
             "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"}}


def _op(summary: str, ok: JSON, *, body: str | None = None, params: list[JSON] | None = None,
        status: str = "200", auth: bool = True) -> JSON:
    op: JSON = {"summary": summary, "responses": {status: ok, **_ERRORS}}
    if body:
        op["requestBody"] = {"required": True,
                             "content": {"application/json": {"schema": _ref(body)}}}
    if params:
        op["parameters"] = params
    if not auth:
        op["security"] = []
    return op


_VIEW = _json(_ref("TableView"), "the caller's view")
_OBJ = {"type": "object"}

_COMPONENT_SCHEMAS: JSON = {
    "Error": {"type": "object", "required": ["error"], "properties": {
        "error": {"type": "object", "required": ["code", "message"], "properties": {
            "code": {"type": "string"}, "message": {"type": "string"}}},
        "version": {"type": "integer"}}},
    "EventFrame": {"type": "object", "required": ["type", "version", "event"], "properties": {
        "type": {"const": "event"}, "version": {"type": "integer"},
        "event": {"$ref": "#/components/schemas/Event"},
        "view": {"$ref": "#/components/schemas/TableView",
                 "description": "only after a resume with views: true (see the ws path)"}}},
    "TableView": {"type": "object", "required": ["table_id", "version", "settings", "hand",
                                                 "seats", "you"], "properties": {
        "table_id": {"type": "string"}, "version": {"type": "integer"}, "settings": _OBJ,
        "hand": {"type": ["object", "null"]},
        "seats": {"type": "array", "items": _OBJ},
        "you": {"type": "object", "properties": {
            "seat": {"type": ["integer", "null"]},
            "cards": {"type": ["array", "null"], "items": {"type": "string"}},
            "score": {"type": ["integer", "null"]},
            "legal": {"type": "array", "items": {"type": "object", "required": ["type"],
                      "properties": {"type": {"type": "string"}, "min": {"type": "integer"},
                                     "max": {"type": "integer"},
                                     "amount": {"type": "integer"}}}}}}}},
    "TablePage": {"type": "object", "required": ["tables", "next"], "properties": {
        "tables": {"type": "array", "items": {"$ref": "#/components/schemas/TableSummary"}},
        "next": {"type": ["string", "null"],
                 "description": "the cursor of the next page; null on the last page"}}},
    "TableSummary": {"type": "object", "required": [
        "table_id", "ante", "max_seats", "seated", "phase"], "properties": {
        "table_id": {"type": "string"}, "ante": {"type": "integer"},
        "max_seats": {"type": "integer"}, "seated": {"type": "integer"},
        "seats_free": {"type": "integer"},
        "phase": {"enum": ["waiting", "blind", "betting", "svara_join", "settled"]},
        "created_by": {"type": "integer"}, "turn_seconds": {"type": "integer"},
        "min_buy_in": {"type": "integer"}, "max_buy_in": {"type": "integer"}}},
    "Event": {"type": "object", "required": ["version", "type", "at", "data"], "properties": {
        "version": {"type": "integer"}, "type": {"type": "string"}, "at": {"type": "number"},
        "data": _OBJ}},
}


@cache
def openapi_document() -> JSON:
    _, components = msgspec.json.schema_components(
        [schemas.CreateTableBody, schemas.SeatBody, schemas.ActionBody, schemas.ClientFrame],
        ref_template="#/components/schemas/{name}",
    )
    after = {"name": "after", "in": "query",
             "schema": {"type": "integer", "minimum": 0, "maximum": 2**53 - 1}}
    limit = {"name": "limit", "in": "query", "description": "tables per page (default 50)",
             "schema": {"type": "integer", "minimum": 1, "maximum": 200}}
    cursor = {"name": "cursor", "in": "query",
              "description": "the `next` of the page before (omit for the first page)",
              "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"}}
    hand = {"name": "n", "in": "path", "required": True,
            "schema": {"type": "integer", "minimum": 1}}
    paths: JSON = {
        "/api/health": {"get": _op("Liveness and store reachability",
                                   _json({"type": "object"}), auth=False)},
        "/api/openapi.json": {"get": _op("This document", _json(_OBJ), auth=False)},
        "/api/me": {"get": _op("The caller, their wallet balance and their tables",
                               _json(_OBJ))},
        "/api/tables": {
            "get": _op("Open tables (every table not closed), a page at a time in table-id "
                       "order", _json(_ref("TablePage")), params=[limit, cursor]),
            "post": _op("Create a table", _json(_OBJ, "created: {table_id}"),
                        body="CreateTableBody", status="201"),
        },
        "/api/tables/{id}": {"get": _op("The caller's view of a table", _VIEW,
                                        params=[_TABLE_ID])},
        "/api/tables/{id}/seat": {"post": _op("Sit down with a buy-in", _VIEW,
                                              body="SeatBody", params=[_TABLE_ID])},
        "/api/tables/{id}/leave": {"post": _op("Stand up; chips go back to the wallet", _VIEW,
                                               params=[_TABLE_ID])},
        "/api/tables/{id}/actions": {"post": _op(
            "Act (blind, pass, look, call, raise, fold, join_svara, skip_svara, sit_in); "
            "a repeated action_id returns the first answer",
            _json({"type": "object", "properties": {"version": {"type": "integer"}}}),
            body="ActionBody", params=[_TABLE_ID])},
        "/api/tables/{id}/events": {"get": _op(
            "Events after a version, in the caller's projection",
            _json({"type": "object", "properties": {
                "version": {"type": "integer"},
                "events": {"type": "array", "items": _ref("Event")}}}),
            params=[_TABLE_ID, after])},
        "/api/tables/{id}/hands/{n}/audit": {"get": _op(
            "Audit of a settled hand: hash chain, deck, chips, replay", _json(_OBJ),
            params=[_TABLE_ID, hand])},
        "/api/tables/{id}/ws": {"get": _op(
            "WebSocket. Client frames: ClientFrame (auth first, then resume/action/ping). "
            "Server frames: ready, event (EventFrame), ack, error, pong. A resume with "
            "`\"views\": true` makes event frames carry `view`, the caller's TableView at "
            "that frame's version, so a client needs no GET per event: every live frame that "
            "is the newest one queued for the socket has it (a frame followed at once by a "
            "newer one, e.g. the first of the events one action appended, may omit it), and "
            "a catch-up's newest frame has it. Close codes: 4401 auth, "
            "4404 unknown table, 4408 too slow (reconnect and resume), 4429 rate limited, "
            "1011 store unreachable",
            {"description": "switching protocols"}, params=[_TABLE_ID], status="101")},
        "/dev/init-data": {"get": _op(
            "Dev mode only (no BOT_TOKEN): signed initData for a test user",
            _json(_OBJ), auth=False, params=[
                {"name": "user_id", "in": "query", "required": True,
                 "schema": {"type": "integer", "minimum": 1}},
                {"name": "name", "in": "query", "schema": {"type": "string"}}])},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Svara API", "version": "1"},
        "paths": paths,
        "components": {
            "schemas": {**components, **_COMPONENT_SCHEMAS},
            "securitySchemes": {"tma": {"type": "apiKey", "in": "header",
                                        "name": "Authorization",
                                        "description": "tma <Telegram.WebApp.initData>"}},
        },
        "security": [{"tma": []}],
    }
