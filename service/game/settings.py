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
    "LIMITS",
    "MAX_ANTE",
    "MAX_CHIPS",
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


# Every number a creator chooses has an upper bound, so no sum of chips at a table (10 seats
# at the largest buy-in: 10**13) comes near what the event and snapshot encodings hold (64
# bits): a table that accepted 2**64 settled its first hand into an OverflowError.
MAX_ANTE = 10**9  # also the largest bet unit
MAX_CHIPS = 10**12  # the largest buy-in (and any amount a player names)

# field -> (least, most) accepted; None fields take their defaults (see TableSettings).
LIMITS: dict[str, tuple[int, int]] = {
    "ante": (1, MAX_ANTE),
    "bet_unit": (1, MAX_ANTE),
    "max_seats": (2, 10),
    "min_buy_in": (1, MAX_CHIPS),
    "max_buy_in": (1, MAX_CHIPS),
    "turn_seconds": (5, 600),
    "svara_join_seconds": (5, 600),
    "next_hand_seconds": (0, 60),
    "max_raises": (1, 20),
    "rake_percent": (0, 10),
}


def validated(settings: TableSettings) -> TableSettings:
    """`settings`, or raise GameError(`invalid_settings`) naming the first bad field."""
    for name, (least, most) in LIMITS.items():
        value = getattr(settings, name)
        if value is None:
            continue
        if type(value) is not int:  # bool is an int subclass, and no number
            raise GameError("invalid_settings", f"{name} must be a whole number")
        if not least <= value <= most:
            raise GameError("invalid_settings", f"{name} must be between {least} and {most}")
    low, high = settings.buy_in_range
    problems = [
        (low >= settings.ante, "min_buy_in must cover at least one ante"),
        (high >= low, "max_buy_in must not be below min_buy_in"),
        (high <= MAX_CHIPS, f"max_buy_in (100 antes unless set) must be at most {MAX_CHIPS}"),
    ]
    for ok, message in problems:
        if not ok:
            raise GameError("invalid_settings", message)
    return settings
