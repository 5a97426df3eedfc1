"""Practice bots: server-side players with a simple strategy from hand scores.

A bot is an ordinary user with a negative id (so it can never collide with a Telegram user),
funded through its own wallet like everyone, acting through the same command path. Its choice
is a pure function of the caller's view (docs/API.md "The caller's view") and a deterministic
random stream seeded by the table version, so several processes driving one bot pick the
same action. Which seats of a table are bots, and which of them are broke, is read from the
table's state here too (the driver asks before it gives a bot its turn).
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from service.game.settings import TableSettings
from service.game.state import TableState

NAMES = (
    "Ana", "Boris", "Vera", "Georgi", "Dimo", "Elena", "Ivan", "Maria", "Petar", "Raya",
)  # fmt: skip

# The actions that mean "the table waits for this bot" (a bare `look` never does).
WAITING = frozenset(
    {"blind", "pass", "call", "raise", "fold", "join_svara", "skip_svara", "sit_in"}
)


def is_bot(user_id: int) -> bool:
    return user_id < 0


def bot_user_id(table_id: str, index: int) -> int:
    """A stable negative id per (table, bot): 48 bits of sha256, never 0."""
    digest = hashlib.sha256(f"practice-bot:{table_id}:{index}".encode()).digest()
    return -(int.from_bytes(digest[:6], "big") | 1)


def bot_client_seed(user_id: int) -> str:
    """A practice bot's fixed client seed (docs/FAIRNESS.md "Decks")."""
    return f"practice-bot{user_id}"


def bot_name(index: int) -> str:
    return f"Bot {NAMES[index % len(NAMES)]}"


def bot_buy_in(settings: TableSettings) -> int:
    low, high = settings.buy_in_range
    return min(high, max(low, 20 * settings.ante))


def bot_seats(state: TableState) -> list[tuple[int, str]]:
    return [(s.user_id, s.name) for s in state.seats if s is not None and is_bot(s.user_id)]


def humans_playing(state: TableState) -> bool:
    return any(s is not None and not is_bot(s.user_id) and not s.sat_out for s in state.seats)


def broke_bots(state: TableState) -> list[tuple[int, str]]:
    """Bots that cannot pay the ante, between hands (they buy in again to keep playing)."""
    if state.hand is not None and state.hand.phase != "settled":
        return []
    ante = state.settings.ante
    return [
        (s.user_id, s.name)
        for s in state.seats
        if s is not None and is_bot(s.user_id) and s.stack < ante
    ]


def rng_for(table_id: str, version: int, user_id: int) -> random.Random:
    digest = hashlib.sha256(f"{table_id}:{version}:{user_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def waiting_on(view: dict[str, Any]) -> bool:
    """True when the table is waiting for the viewer (a bot) to act."""
    return any(a["type"] in WAITING for a in view["you"]["legal"])


def _amount(option: dict[str, Any]) -> int | None:
    value = option.get("amount", option.get("min"))
    return int(value) if value is not None else None


def choose(view: dict[str, Any], rng: random.Random) -> tuple[str, int | None] | None:
    """The bot's next action `(type, amount)` from its own view, or None if none is due.

    Look before betting (sometimes go blind first), raise with strong scores, call with
    decent ones, fold the rest; join a svara about half the time.
    """
    you = view["you"]
    legal = {a["type"]: a for a in you["legal"]}
    if not legal.keys() & WAITING:
        return None
    if "sit_in" in legal:
        return "sit_in", None
    if "join_svara" in legal or "skip_svara" in legal:
        join = "join_svara" in legal and rng.random() < 0.5
        return ("join_svara", None) if join else ("skip_svara", None)
    if you.get("cards") is None:
        if "blind" in legal and rng.random() < 0.15:
            return "blind", _amount(legal["blind"])
        if "look" in legal:
            return "look", None
    if "pass" in legal:
        return "pass", None
    score = you.get("score") or 0
    bluff = rng.random() < 0.08
    if "raise" in legal and (score >= 26 or bluff) and rng.random() < 0.7:
        return "raise", _amount(legal["raise"])
    if "call" in legal and score >= 17:
        return "call", None
    if "raise" in legal and "call" not in legal and score >= 19:
        return "raise", _amount(legal["raise"])  # an opening bet, or the forced double
    if "fold" in legal:
        return "fold", None
    first = next(iter(legal.values()))
    return first["type"], _amount(first)
