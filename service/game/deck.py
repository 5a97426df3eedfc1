"""The fair deck, algorithm `hmac-sha256-fy-v1` (DESIGN.md, "Fairness").

The deck of each deal is a pure function of a secret 32-byte seed and the deal's coordinates.
The hand's first event carries `commitment(seed)`; its last reveals the seed, so anyone can
recompute the deck and check every dealt card.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Sequence

from service.game.cards import CANONICAL_DECK

ALGORITHM = "hmac-sha256-fy-v1"
SEED_BYTES = 32
_WORD = 2**32
_EIGHT_WORDS = struct.Struct(">8I")
# (i, n = i + 1, rejection limit) for i from 31 down to 1: the shuffle's fixed schedule.
_STEPS = tuple((i, i + 1, _WORD - (_WORD % (i + 1))) for i in range(len(CANONICAL_DECK) - 1, 0, -1))


def commitment(seed: bytes) -> str:
    """Lowercase hex sha256 of the seed: published before the deal."""
    return hashlib.sha256(seed).hexdigest()


def _words(seed: bytes, table_id: str, hand: int, deal: int, blocks: range) -> tuple[int, ...]:
    """Big-endian u32s of HMAC-SHA256(seed, "table:hand:deal:i") for i in `blocks`."""
    prefix = f"{table_id}:{hand}:{deal}:"
    words: tuple[int, ...] = ()
    for block in blocks:
        words += _EIGHT_WORDS.unpack(hmac.digest(seed, f"{prefix}{block}".encode(), "sha256"))
    return words


def shuffled_deck(seed: bytes, table_id: str, hand: int, deal: int) -> list[str]:
    """The deal's deck: an unbiased Fisher-Yates shuffle of the canonical order.

    Rejection sampling (draw again while x >= 2**32 - 2**32 % n) removes modulo bias. The 31
    steps almost always fit in the first four HMAC blocks; more are made only when needed.
    """
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a seed is {SEED_BYTES} bytes, got {len(seed)}")
    deck = list(CANONICAL_DECK)
    words = _words(seed, table_id, hand, deal, range(4))
    k = 0
    for i, n, limit in _STEPS:
        while True:
            if k == len(words):
                blocks = len(words) // 8
                words += _words(seed, table_id, hand, deal, range(blocks, blocks + 1))
            x = words[k]
            k += 1
            if x < limit:
                break
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deal_hands(deck: Sequence[str], players: int) -> list[tuple[str, str, str]]:
    """Three cards each, one at a time: entry i is the i-th player clockwise from the dealer's
    left, who receives deck[i], deck[players + i] and deck[2 * players + i]."""
    if not 2 <= players <= 10:
        raise ValueError(f"2 to 10 players are dealt, not {players}")
    return [(deck[i], deck[players + i], deck[2 * players + i]) for i in range(players)]
