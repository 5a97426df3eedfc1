"""Which table settings the game accepts (`validated`). The settings type itself is part of
the event schema and lives in `events.settings`; it is re-exported here for the game's modules.
"""

from __future__ import annotations

from events.settings import (
    BlindRaise,
    DealerRule,
    JokerPair,
    Natural777,
    ScoringOptions,
    SvaraJoinFee,
    SvaraRule,
    TableSettings,
)
from service.game.errors import GameError

__all__ = [
    "BlindRaise",
    "DealerRule",
    "JokerPair",
    "Natural777",
    "ScoringOptions",
    "SvaraJoinFee",
    "SvaraRule",
    "TableSettings",
    "validated",
]


def validated(settings: TableSettings) -> TableSettings:
    """`settings`, or raise GameError(`invalid_settings`) naming the first bad field."""
    low, high = settings.buy_in_range
    problems = [
        (settings.ante >= 1, "ante must be at least 1"),
        (settings.unit >= 1, "bet_unit must be at least 1"),
        (2 <= settings.max_seats <= 10, "max_seats must be between 2 and 10"),
        (5 <= settings.turn_seconds <= 600, "turn_seconds must be between 5 and 600"),
        (5 <= settings.join_seconds <= 600, "svara_join_seconds must be between 5 and 600"),
        (0 <= settings.next_hand_seconds <= 60, "next_hand_seconds must be between 0 and 60"),
        (1 <= settings.max_raises <= 20, "max_raises must be between 1 and 20"),
        (0 <= settings.rake_percent <= 10, "rake_percent must be between 0 and 10"),
        (low >= settings.ante, "min_buy_in must cover at least one ante"),
        (high >= low, "max_buy_in must not be below min_buy_in"),
    ]
    for ok, message in problems:
        if not ok:
            raise GameError("invalid_settings", message)
    return settings
