"""The one error the game core raises: a refused command, with a code the API maps to HTTP."""

from __future__ import annotations


class GameError(Exception):
    """A command the rules refuse. Nothing happens; `code` is snake_case and stable.

    The API maps codes to statuses (see `service.api.errors`): `not_seated`, `not_your_turn`
    and `seat_taken`-like codes to 403/409, everything else about the game to 422.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"GameError({self.code!r}, {self.message!r})"


# Codes that mean "this is not yours to do" (HTTP 403); every other GameError is an illegal
# action (HTTP 422) unless listed in CONFLICT_CODES (HTTP 409).
FORBIDDEN_CODES = frozenset({"not_seated", "not_your_turn"})
CONFLICT_CODES = frozenset(
    {
        "table_exists",
        "already_seated",
        "seat_taken",
        "table_full",
        "table_closed",
        "not_busted",
        "hand_in_progress",
    }
)
