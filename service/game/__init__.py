"""The pure Svara domain: cards, scoring, deck, the table decider, legal actions and views; the
wallet and profile deciders are `service.game.wallet` and `service.game.profile`."""

from __future__ import annotations

from service.game.commands import TableCommand
from service.game.decider import decide, evolve, fold, step
from service.game.errors import GameError
from service.game.legal import LegalAction, legal_actions
from service.game.settings import ScoringOptions, TableSettings
from service.game.state import TableState, decode_state, encode_state
from service.game.view import project_event, view

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
