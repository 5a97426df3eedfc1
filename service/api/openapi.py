"""The OpenAPI 3 document served at /api/openapi.json. Request schemas come from the msgspec
structs that validate them, so the document cannot drift from what the server accepts."""

from __future__ import annotations

from functools import cache
from typing import Any

import msgspec

from service.api import openapi_social as social
from service.api import schemas
from service.api.openapi_hands import hand_paths
from service.api.openapi_stats import stats_paths

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
        "host": {"type": ["string", "null"],
                 "description": "whom the table is named after: its creator while seated, "
                                "else the person seated longest; null when no person sits"},
        "name": {"type": ["string", "null"],
                 "description": "the name its creator gave it; null: the app names it after "
                                "`host`"},
        "private": {"type": "boolean", "description": "not in the lobby: seated by invite"},
        "created_by": {"type": "integer"},
        "invite": {"type": "string", "description": "a private table's current invite, in "
                                                    "its creator's GET view only"},
        "hand": {"type": ["object", "null"], "properties": {
            "last_blind": {"type": "integer", "description": "the last blind this deal (0: none)"},
            "last_blind_seat": {"type": ["integer", "null"]},
            "must_double": {"type": "boolean",
                            "description": "after blinds and before any raise: a player who "
                                           "did not go blind must raise to at least twice "
                                           "the last blind (no call)"}}},
        "seats": {"type": "array", "items": {"type": "object", "properties": {
            "timed_out": {"type": "boolean",
                          "description": "folded by the clock this deal, not by the player"},
            "sat_out": {"type": "boolean",
                        "description": "sat out after two turns in a row ran out; "
                                       "`sit_in` returns"}}}},
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
                 "description": "the cursor of the next page (a place in the lobby's order, "
                                "not a count); null on the last page"}}},
    "TableSummary": {"type": "object", "required": [
        "table_id", "ante", "max_seats", "seated", "phase"], "properties": {
        "table_id": {"type": "string"}, "ante": {"type": "integer"},
        "max_seats": {"type": "integer"}, "seated": {"type": "integer"},
        "seats_free": {"type": "integer"},
        "phase": {"enum": ["waiting", "blind", "betting", "svara_join", "settled"]},
        "created_by": {"type": "integer"}, "turn_seconds": {"type": "integer"},
        "min_buy_in": {"type": "integer"}, "max_buy_in": {"type": "integer"},
        "status": {"enum": ["live", "waiting", "full", "empty"],
                   "description": "the table's place in the lobby's order: `live` (a hand on, "
                                  "or the next one coming, and a free seat), `waiting` "
                                  "(players waiting for company), `full`, `empty`"}}},
    "Event": {"type": "object", "required": ["version", "type", "at", "data", "hash"],
              "properties": {
        "version": {"type": "integer"}, "type": {"type": "string"}, "at": {"type": "number"},
        "data": _OBJ,
        "hash": {"type": "string", "pattern": "^[0-9a-f]{64}$",
                 "description": "the event's chain hash (docs/CHAIN.md): keep the newest you "
                                "saw and hold any later audit or export to it"}}},
    "AuditResult": {"type": "object", "required": ["check", "ok"], "properties": {
        "check": {"enum": ["chain", "commitment", "seeds", "deck", "cards", "scores", "winner",
                           "chips", "replay"]},
        "ok": {"type": "boolean"}, "version": {"type": "integer"},
        "reason": {"type": "string"}, "chain_version": {"type": "integer"}}},
    "Audit": {"type": "object", "required": ["table_id", "hand", "verified", "checks",
                                             "results", "failures", "deals", "events",
                                             "result"], "properties": {
        "table_id": {"type": "string"}, "hand": {"type": "integer"},
        "verified": {"type": "boolean"},
        "checks": {"type": "object", "description": "the summary (docs/API.md \"The audit "
                   "of a hand\"): chain, deck (commitment, seeds, deck, cards), chips, replay "
                   "(scores, winner, replay)",
                   "additionalProperties": {"type": "boolean"}},
        "results": {"type": "array", "items": {"$ref": "#/components/schemas/AuditResult"},
                    "description": "one per check: ok, or its earliest failure"},
        "failures": {"type": "array", "items": {"$ref": "#/components/schemas/AuditResult"},
                     "description": "every failure, each naming the check, the event version "
                                    "and the reason"},
        "table_chain": _OBJ, "deals": {"type": "array", "items": _OBJ},
        "events": {"type": "array", "items": _OBJ}, "result": _OBJ}},
    "ExportEntry": {"type": "object", "required": ["version", "type", "at", "chain", "hash"],
                    "properties": {
        "version": {"type": "integer"}, "type": {"type": "string"},
        "at": {"type": "string", "description": "the stored time text, as hashed by chain v2"},
        "chain": {"enum": [1, 2]}, "hash": {"type": "string"},
        "raw": {"type": "string", "description": "the stored event bytes (UTF-8 text)"},
        "raw_b64": {"type": "string", "description": "the stored bytes, if not UTF-8"},
        "prev_hash": {"type": "string", "description": "context entries: the hash before"}}},
    "HandExport": {"type": "object", "required": ["format", "format_version", "table_id", "hand",
                                                  "settings", "seats", "prev_hash", "events",
                                                  "context"], "properties": {
        "format": {"const": "svara-hand-export"}, "format_version": {"const": 1},
        "table_id": {"type": "string"}, "hand": {"type": "integer"},
        "exported_at": {"type": "number"}, "settings": _OBJ,
        "seats": {"type": "array", "items": _OBJ},
        "prev_hash": {"type": "string"},
        "events": {"type": "array", "items": {"$ref": "#/components/schemas/ExportEntry"}},
        "context": {"type": "array", "items": {"$ref": "#/components/schemas/ExportEntry"}}}},
}


# -- tournaments (Sit & Go): one block ------------------------------------------------------
def _tournaments() -> tuple[JSON, JSON]:
    """The tournament paths and their schemas (docs/API.md "Tournaments")."""
    from service.api.tournament_routes import CreateTournamentBody

    _, schemas_ = msgspec.json.schema_components(
        [CreateTournamentBody], ref_template="#/components/schemas/{name}")
    tid = {"name": "tournament_id", "in": "path", "required": True,
           "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"}}
    status = {"enum": ["registering", "running", "finished", "cancelled"]}
    ints, maybe = {"type": "array", "items": {"type": "integer"}}, {"type": ["integer", "null"]}
    row: JSON = {"type": "object", "required": ["tournament_id", "name", "status", "seats",
                                          "registered", "buy_in", "table_id"], "properties": {
        "tournament_id": {"type": "string"}, "name": {"type": "string"},
        "status": status,
        "seats": {"type": "integer"}, "registered": {"type": "integer"},
        "buy_in": {"type": "integer"}, "table_id": {"type": ["string", "null"]},
        "fill_by": {"type": "number"}, "prize_table": ints,
        "hands_per_level": maybe, "minutes_per_level": maybe}}
    one = {"type": "object", "required": ["tournament_id", "status", "settings", "players",
                                          "level", "table_id", "version"], "properties": {
        "tournament_id": {"type": "string"}, "status": status,
        "settings": _OBJ, "level": {"type": "integer"},
        "table_id": {"type": ["string", "null"]}, "version": {"type": "integer"},
        "ante": {"type": "integer"}, "created_by": {"type": "integer"},
        "fill_by": {"type": "number"}, "pool": {"type": "integer"}, "prize_table": ints,
        "next_level_at": {"type": ["number", "null"]},
        "players": {"type": "array", "items": {"type": "object", "properties": {
            "user_id": {"type": "integer"}, "name": {"type": "string"},
            "place": {"type": ["integer", "null"]}, "prize": {"type": ["integer", "null"]}}}}}}
    audit = {"type": "object", "required": ["verified", "checks", "standings", "events"],
             "properties": {"verified": {"type": "boolean"}, "checks": _OBJ,
                            "standings": {"type": "array", "items": _OBJ},
                            "events": {"type": "array", "items": _OBJ}}}
    page = {"type": "object", "properties": {
        "tournaments": {"type": "array", "items": _ref("TournamentRow")},
        "next": {"type": ["string", "null"]}}}
    paths: JSON = {
        "/api/tournaments": {
            "get": _op("Sit & Go tournaments, a page at a time (`?limit=1..100&cursor=`)",
                       _json(page)),
            "post": _op("Create a Sit & Go: seats 2-10 (one table; it starts when full), the "
                        "buy-in (play chips into the prize pool), the starting stack "
                        "(tournament chips), the ante by level, its schedule (exactly one "
                        "of hands_per_level 1-10000 or minutes_per_level 1-240), prize "
                        "percents (default 100 under 6 players, 65/35 from 6; must sum to "
                        "100), fill_seconds (not full by then: cancelled and refunded); "
                        "400 invalid_settings", _json({"type": "object", "properties": {
                            "tournament_id": {"type": "string"}}}),
                        body="CreateTournamentBody", status="201")},
        "/api/tournaments/{tournament_id}": {"get": _op(
            "One tournament: status, settings, players with place and prize, level",
            _json(_ref("Tournament")), params=[tid])},
        "/api/tournaments/{tournament_id}/register": {"post": _op(
            "Register, paying the buy-in from the wallet: 422 insufficient_chips, 409 "
            "already_registered / tournament_started / tournament_full / "
            "tournament_cancelled; a refusal changes nothing. The last seat starts it",
            _json(_ref("Tournament")), params=[tid])},
        "/api/tournaments/{tournament_id}/unregister": {"post": _op(
            "Unregister before the start, the buy-in refunded: 409 tournament_started, "
            "not_registered", _json(_ref("Tournament")), params=[tid])},
        "/api/tournaments/{tournament_id}/audit": {"get": _op(
            "The standings verified from the tournament's own events: chain, each "
            "elimination against the table's hand where the stack reached 0, the ante levels "
            "recomputed by the schedule (levels), places, prizes = pool by the prize table",
            _json(audit), params=[tid])},
    }
    return paths, {**schemas_, "TournamentRow": row, "Tournament": one}
# -- end of tournaments ----------------------------------------------------------------------


@cache
def openapi_document() -> JSON:
    _, components = msgspec.json.schema_components(
        [schemas.CreateTableBody, schemas.SeatBody, schemas.ActionBody, schemas.ClientFrame,
         schemas.PreferencesBody, schemas.SeedBody, schemas.ChatBody],
        ref_template="#/components/schemas/{name}",
    )
    after = {"name": "after", "in": "query",
             "schema": {"type": "integer", "minimum": 0, "maximum": 2**53 - 1}}
    limit = {"name": "limit", "in": "query", "description": "tables per page (default 50)",
             "schema": {"type": "integer", "minimum": 1, "maximum": 200}}
    cursor = {"name": "cursor", "in": "query",
              "description": "the `next` of the page before (omit for the first page)",
              "schema": {"type": "string", "pattern": "^([0-9][.])?[A-Za-z0-9_-]{1,64}$"}}
    hand = {"name": "n", "in": "path", "required": True,
            "schema": {"type": "integer", "minimum": 1}}
    paths: JSON = {
        "/api/health": {"get": _op("Liveness and store reachability",
                                   _json({"type": "object"}), auth=False)},
        "/api/openapi.json": {"get": _op("This document", _json(_OBJ), auth=False)},
        "/api/me": {"get": _op("The caller, their wallet balance and their tables, the language "
                               "they see (`language`), their own choices (`settings`) and "
                               "`daily_topup`: `{amount, next_at}`, the chips granted once a "
                               "UTC day to an empty wallet seated nowhere, and the earliest "
                               "time (epoch seconds) the next can come",
                               _json(_OBJ))},
        "/api/me/settings": {"post": _op(
            "Change the caller's preferences: `language` (en, ru, bg, tr, de, ar) and `pings` "
            "(may the bot message them when it is their turn); answers like GET /api/me",
            _json(_OBJ), body="PreferencesBody")},
        "/api/tables": {
            "get": _op("Open tables (every table not closed), a page at a time in the order "
                       "a player would join one: `live` tables first, then `waiting`, `full` "
                       "and `empty` ones (`status`), each by table id. A walk of every page "
                       "lists each table that keeps its status once; one whose status "
                       "changes meanwhile is listed where it stands when each page is read "
                       "(again, if it moved ahead; not, if it moved behind the cursor). Each "
                       "row names its `host` (whom the table is named after, or null) and "
                       "whether `practice` bots sit there",
                       _json(_ref("TablePage")), params=[limit, cursor]),
            "post": _op("Create a table; `name` (1-32 characters, trimmed; control and "
                        "formatting characters are 400 `invalid_name`) and `private` (not "
                        "listed; joined by its link: the answer's `invite`)",
                        _json(_OBJ, "created: {table_id, invite?}"),
                        body="CreateTableBody", status="201"),
        },
        "/api/tables/{id}": {"get": _op("The caller's view of a table", _VIEW,
                                        params=[_TABLE_ID])},
        "/api/tables/{id}/seat": {"post": _op("Sit down with a buy-in", _VIEW,
                                              body="SeatBody", params=[_TABLE_ID])},
        "/api/tables/{id}/leave": {"post": _op("Stand up; chips go back to the wallet", _VIEW,
                                               params=[_TABLE_ID])},
        "/api/tables/{id}/rebuy": {"post": _op(
            "Buy in again at the same seat after losing the stack (below one ante): what is "
            "left goes back to the wallet, the buy-in comes from it. 409 `not_busted` while "
            "the stack still covers an ante, 409 `hand_in_progress` while the caller is still "
            "in the hand, 422 `buy_in_out_of_range` / `insufficient_funds`",
            _VIEW, body="SeatBody", params=[_TABLE_ID])},
        "/api/tables/{id}/hands": {"get": _op(
            "The last settled hands, newest first: `{\"hands\": [{number, settled_at, dealer, "
            "names: {seat: name|null}, winners: [seat], amounts: {seat: chips}, pot, rake, "
            "reason, showdowns: [{deal, hands: {seat: {cards, score}}, capped}], "
            "svaras: [{tied, fee, joined}], timeouts: [{seat, action}]}]}` (public facts "
            "only; each hand's audit is /hands/{n}/audit)",
            _json({"type": "object", "properties": {
                "hands": {"type": "array", "items": _OBJ}}}),
            params=[_TABLE_ID, {"name": "limit", "in": "query",
                                "schema": {"type": "integer", "minimum": 1, "maximum": 50,
                                           "default": 10}}])},
        "/api/tables/{id}/seed": {"post": _op(
            "Set the caller's own seed for the deck (docs/FAIRNESS.md \"Decks\", "
            "hmac-sha256-fy-v2): 1-64 characters of A-Z a-z 0-9 _ - (400 otherwise). It is a "
            "public `client_seed_set` event and counts from the next deal dealt after it; the "
            "server's commitment for that deal was published before (next_commitment). Only a "
            "seated player may set one (403 not_seated). Answers the caller's view, whose "
            "`you.client_seed` shows it", _VIEW, body="SeedBody", params=[_TABLE_ID])},
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
            "Audit of a settled hand, recomputed from the stored events: per check (chain, "
            "commitment, seeds, deck, cards, scores, winner, chips, replay) ok or the failure's "
            "event version and reason; 409 hand_in_progress until it is settled",
            _json(_ref("Audit")), params=[_TABLE_ID, hand])},
        "/api/tables/{id}/hands/{n}/export": {"get": _op(
            "A settled hand as one self-contained file (docs/FAIRNESS.md): the table's "
            "settings and seats, every event from the one that published the hand's first "
            "commitment through its settlement with the stored bytes, time and chain hash, "
            "the hash before the first, and the earlier events it depends on. `svara verify "
            "FILE` checks it with no server; 409 hand_in_progress until it is settled. With "
            "`?download=<token>` (POST .../download) no Authorization header is needed",
            _json(_ref("HandExport")), params=[_TABLE_ID, hand, {
                "name": "download", "in": "query", "schema": {"type": "string"}}])},
        **hand_paths(_TABLE_ID, hand),
        **stats_paths(),
        "/api/tables/{id}/ws": {"get": _op(
            "WebSocket. Client frames: ClientFrame (auth first, then resume/action/ping). "
            "Server frames: ready, event (EventFrame), ack, error, pong. A resume with "
            "`\"views\": true` makes event frames carry `view`, the caller's TableView at "
            "that frame's version, so a client needs no GET per event: every live frame that "
            "is the newest one queued for the socket has it (a frame followed at once by a "
            "newer one, e.g. the first of the events one action appended, may omit it), and "
            "a catch-up's newest frame has it. Close codes: 4401 auth, "
            "4404 unknown table, 4408 too slow (reconnect and resume), 4429 rate limited, "
            "1011 store unreachable." + social.WS_NOTE,
            {"description": "switching protocols"}, params=[_TABLE_ID], status="101")},
        "/dev/init-data": {"get": _op(
            "Dev mode only (no BOT_TOKEN): signed initData for a test user",
            _json(_OBJ), auth=False, params=[
                {"name": "user_id", "in": "query", "required": True,
                 "schema": {"type": "integer", "minimum": 1}},
                {"name": "name", "in": "query", "schema": {"type": "string"}}])},
    }
    # -- sharing and the bot's write access (service/api/openapi_share.py) --
    from service.api import openapi_share

    paths.update(openapi_share.PATHS)
    paths["/api/me"]["get"]["summary"] += openapi_share.ME_CAN_PING
    components = {**components, **openapi_share.SCHEMAS}
    # -- end of sharing --
    tournament_paths, tournament_schemas = _tournaments()
    paths.update(tournament_paths)
    # the social table
    paths.update(social.paths(_op, _json, _ref, _TABLE_ID))
    for view_path in ("/api/tables/{id}", "/api/tables/{id}/events"):
        paths[view_path]["get"]["parameters"].append(
            {"name": "invite", "in": "query", "schema": {"type": "string"},
             "description": "a private table's invite token"})
    gone = _json(_ref("Error"), "table_archived (with `archived_at`): the table closed and "
                 "was archived (`svara archive`); see docs/API.md \"Errors\"")
    for tail in ("", "/seat", "/leave", "/rebuy", "/seed", "/hands", "/events",
                 *(f"/hands/{{n}}/{k}" for k in ("audit", "export", "replay", "transcript"))):
        for op in paths["/api/tables/{id}" + tail].values():
            op["responses"]["410"] = gone
    summary = dict(_COMPONENT_SCHEMAS["TableSummary"])
    summary["properties"] = {**summary["properties"], **social.SUMMARY_PROPERTIES}
    view = _COMPONENT_SCHEMAS["TableView"]
    seats = view["properties"]["seats"]
    seat = {**seats["items"], "properties": {**seats["items"]["properties"],
                                             **social.SEAT_PROPERTIES}}
    view = {**view, "properties": {**view["properties"], "seats": {**seats, "items": seat}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Svara API", "version": "1"},
        "paths": paths,
        "components": {
            "schemas": {**components, **_COMPONENT_SCHEMAS, **social.SCHEMAS, **tournament_schemas,
                        "TableSummary": summary, "TableView": view},
            "securitySchemes": {"tma": {"type": "apiKey", "in": "header",
                                        "name": "Authorization",
                                        "description": "tma <Telegram.WebApp.initData>"}},
        },
        "security": [{"tma": []}],
    }
