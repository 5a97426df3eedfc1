"""The fair deck, algorithm `hmac-sha256-fy-v1` (DESIGN.md, "Fairness").

The deck of each deal is a pure function of a secret 32-byte seed and the deal's coordinates.
The hand's first event carries `commitment(seed)`; its last reveals the seed, so anyone can
recompute the deck and check every dealt card.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence

from service.game.cards import CANONICAL_DECK

ALGORITHM = "hmac-sha256-fy-v1"
SEED_BYTES = 32
_WORD = 2**32


def commitment(seed: bytes) -> str:
    """Lowercase hex sha256 of the seed: published before the deal."""
    return hashlib.sha256(seed).hexdigest()


def _words(seed: bytes, table_id: str, hand: int, deal: int) -> Iterator[int]:
    """Big-endian u32s of HMAC-SHA256(seed, "table:hand:deal:i") for i = 0, 1, 2 ..."""
    block = 0
    while True:
        message = f"{table_id}:{hand}:{deal}:{block}".encode()
        digest = hmac.new(seed, message, hashlib.sha256).digest()
        for offset in range(0, 32, 4):
            yield int.from_bytes(digest[offset : offset + 4], "big")
        block += 1


def shuffled_deck(seed: bytes, table_id: str, hand: int, deal: int) -> list[str]:
    """The deal's deck: an unbiased Fisher-Yates shuffle of the canonical order.

    Rejection sampling (draw again while x >= 2**32 - 2**32 % n) removes modulo bias.
    """
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a seed is {SEED_BYTES} bytes, got {len(seed)}")
    deck = list(CANONICAL_DECK)
    words = _words(seed, table_id, hand, deal)
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        limit = _WORD - (_WORD % n)
        x = next(words)
        while x >= limit:
            x = next(words)
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deal_hands(deck: Sequence[str], players: int) -> list[tuple[str, str, str]]:
    """Three cards each, one at a time: entry i is the i-th player clockwise from the dealer's
    left, who receives deck[i], deck[players + i] and deck[2 * players + i]."""
    if not 2 <= players <= 10:
        raise ValueError(f"2 to 10 players are dealt, not {players}")
    return [(deck[i], deck[players + i], deck[2 * players + i]) for i in range(players)]
