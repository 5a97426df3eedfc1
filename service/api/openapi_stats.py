"""The OpenAPI paths of the player stats and leaderboards (`service.api.stats_routes`).
Merged into `openapi_document`."""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]
_ERROR = {"$ref": "#/components/schemas/Error"}
_INT = {"type": "integer"}

FIGURES: JSON = {
    "type": "object",
    "required": ["hands", "won", "net", "biggest_pot", "svaras", "svaras_won", "best_score"],
    "properties": {
        "hands": {**_INT, "description": "hands dealt in"},
        "won": {"type": "number", "description": "hands won; a pot split k ways counts 1/k"},
        "net": {**_INT, "description": "chips won minus chips put in (cash tables only)"},
        "biggest_pot": {**_INT, "description": "the most chips one settlement paid them"},
        "svaras": {**_INT, "description": "hands in which they played a svara"},
        "svaras_won": {**_INT, "description": "of those, hands they won (or split)"},
        "best_score": {**_INT, "description": "the best score a showdown showed (34 max)"},
        "win_rate": {"type": "number", "description": "won / hands (0 for no hands)"}}}


def _json(schema: JSON) -> JSON:
    return {"description": "OK", "content": {"application/json": {"schema": schema}}}


def _errors(*codes: str) -> JSON:
    return {c: {"description": "see docs/API.md \"Errors\"",
                "content": {"application/json": {"schema": _ERROR}}} for c in codes}


def stats_paths() -> JSON:
    refusals = _errors("400", "401", "429", "503")
    return {
        "/api/players/{user_id}/stats": {"get": {
            "summary": "A player's stats, all time and the last 7 days (the UTC days from "
                       "6 days before today to today): hands at cash and tournament tables, "
                       "never with practice bots. 404 unknown_player for a player with no "
                       "counted hand, 400 for a bad id",
            "parameters": [{"name": "user_id", "in": "path", "required": True,
                            "schema": {"type": "integer"}}],
            "responses": {"200": _json({
                "type": "object",
                "required": ["user_id", "name", "all", "last_7_days", "week"],
                "properties": {
                    "user_id": _INT, "name": {"type": "string"}, "all": FIGURES,
                    "last_7_days": {**FIGURES, "description": "the UTC days from 6 days "
                                    "before today to today; pot and best score the greatest"},
                    "week": {**FIGURES, "deprecated": True, "description": "the same "
                             "figures as last_7_days (its first name; not the ISO week)"}}}),
                **refusals, **_errors("404")}}},
        "/api/leaderboard": {"get": {
            "summary": "The top 50 by net chips at cash tables, this ISO week or all time, "
                       "global or of one Telegram group (tables opened there with /newtable); "
                       "ties go to whoever reached the figure first. `you`: the caller's "
                       "rank (null: not on this board). 400 for a bad period or group",
            "parameters": [
                {"name": "period", "in": "query",
                 "schema": {"enum": ["week", "all"], "default": "week"}},
                {"name": "group", "in": "query", "description": "a group's chat id",
                 "schema": {"type": "integer"}}],
            "responses": {"200": _json({
                "type": "object", "required": ["period", "group", "entries", "you"],
                "properties": {
                    "period": {"enum": ["week", "all"]},
                    "group": {"type": ["integer", "null"]},
                    "entries": {"type": "array", "maxItems": 50, "items": {
                        "type": "object", "required": ["rank", "user_id", "name", "net"],
                        "properties": {"rank": _INT, "user_id": _INT,
                                       "name": {"type": "string"}, "net": _INT}}},
                    "you": {"type": ["object", "null"], "required": ["rank", "net"],
                            "properties": {"rank": _INT, "net": _INT}}}}),
                **refusals}}},
    }
