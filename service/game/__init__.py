"""The pure Svara domain: cards, scoring, deck, the table decider, legal actions and views.

Re-exports are lazy (PEP 562) because `events.table` imports `service.game.settings`: eager
imports here would make `import events.table` circular.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from service.game.commands import TableCommand
    from service.game.decider import decide, evolve, fold, step
    from service.game.errors import GameError
    from service.game.legal import LegalAction, legal_actions
    from service.game.settings import ScoringOptions, TableSettings
    from service.game.state import TableState, decode_state, encode_state
    from service.game.view import project_event, view

_EXPORTS = {
    "TableCommand": "service.game.commands",
    "decide": "service.game.decider",
    "evolve": "service.game.decider",
    "fold": "service.game.decider",
    "step": "service.game.decider",
    "GameError": "service.game.errors",
    "LegalAction": "service.game.legal",
    "legal_actions": "service.game.legal",
    "ScoringOptions": "service.game.settings",
    "TableSettings": "service.game.settings",
    "TableState": "service.game.state",
    "decode_state": "service.game.state",
    "encode_state": "service.game.state",
    "project_event": "service.game.view",
    "view": "service.game.view",
}

__all__ = [
    "GameError",
    "LegalAction",
    "ScoringOptions",
    "TableCommand",
    "TableSettings",
    "TableState",
    "decide",
    "decode_state",
    "encode_state",
    "evolve",
    "fold",
    "legal_actions",
    "project_event",
    "step",
    "view",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'service.game' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
