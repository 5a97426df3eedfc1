"""The fair deck: `hmac-sha256-fy-v1` and `hmac-sha256-fy-v2` (docs/FAIRNESS.md "Decks").

The deck of each deal is a pure function of a secret 32-byte server seed and the deal's
coordinates; v2 adds `mix`, the digest of the players' own seeds, so every player cuts the deck.
The commitment `sha256(seed)` is published before the deal (v2: before the players' seeds for
it are final); the seed is revealed when the hand settles, so anyone can recompute the deck and
check every dealt card.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Mapping, Sequence
from operator import lt, mod
from typing import Protocol

from service.game.cards import CANONICAL_DECK

ALGORITHM = "hmac-sha256-fy-v1"
ALGORITHM_V2 = "hmac-sha256-fy-v2"
ALGORITHMS = (ALGORITHM, ALGORITHM_V2)
SEED_BYTES = 32
_WORD = 2**32
_BLOCK = 64  # SHA-256's block size: HMAC pads its key to it
_IPAD = bytes(x ^ 0x36 for x in range(256))  # bytes.translate tables for the HMAC key pads
_OPAD = bytes(x ^ 0x5C for x in range(256))
_EIGHT_WORDS = struct.Struct(">8I")
_FOUR_BLOCKS = struct.Struct(">32I")
# (i, n = i + 1, rejection limit) for i from 31 down to 1: the shuffle's fixed schedule.
_STEPS = tuple((i, i + 1, _WORD - (_WORD % (i + 1))) for i in range(len(CANONICAL_DECK) - 1, 0, -1))
_POSITIONS = tuple(i for i, _, _ in _STEPS)
_SIZES = tuple(n for _, n, _ in _STEPS)
_LIMITS = tuple(limit for _, _, limit in _STEPS)


def commitment(seed: bytes) -> str:
    """Lowercase hex sha256 of the seed: published before the deal."""
    return hashlib.sha256(seed).hexdigest()


def mix_of(client_seeds: Mapping[int, str]) -> str:
    """v2's `mix`: lowercase hex sha256 of the lines `seat:client_seed` of the players dealt in,
    by seat, joined with newlines (no seeds at all: the sha256 of the empty string)."""
    lines = "\n".join(f"{seat}:{client_seeds[seat]}" for seat in sorted(client_seeds))
    return hashlib.sha256(lines.encode()).hexdigest()


class _Blocks(Protocol):
    def block(self, i: int) -> bytes: ...


class _Stream:
    """HMAC-SHA256(seed, "table:hand:deal:i") blocks (v2: "table:hand:deal:mix:i"), built by
    hand (RFC 2104).

    Why not `hmac.digest`: it re-derives the key pads for every block; hashing them once per
    deal and copying the hash states halves the cost of a deal's four blocks. Same bytes.
    """

    __slots__ = ("_inner", "_outer", "_prefix")

    def __init__(self, seed: bytes, prefix: str) -> None:
        key = seed.ljust(_BLOCK, b"\0")  # seeds are shorter than a block: zero-padded
        self._inner = hashlib.sha256(key.translate(_IPAD))
        self._outer = hashlib.sha256(key.translate(_OPAD))
        self._prefix = prefix

    def block(self, i: int) -> bytes:
        inner = self._inner.copy()
        inner.update(f"{self._prefix}{i}".encode())
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()


def shuffled_deck(seed: bytes, table_id: str, hand: int, deal: int) -> list[str]:
    """The deal's deck under v1: an unbiased Fisher-Yates shuffle of the canonical order."""
    return _shuffled(seed, f"{table_id}:{hand}:{deal}:")


def shuffled_deck_v2(seed: bytes, table_id: str, hand: int, deal: int, mix: str) -> list[str]:
    """The deal's deck under v2: as v1, the HMAC message carrying the players' `mix` too."""
    return _shuffled(seed, f"{table_id}:{hand}:{deal}:{mix}:")


def deck_for(
    algorithm: str, seed: bytes, table_id: str, hand: int, deal: int, mix: str = ""
) -> list[str]:
    """The deck of a deal dealt with `algorithm` (ValueError for one this code does not know)."""
    if algorithm == ALGORITHM:
        return shuffled_deck(seed, table_id, hand, deal)
    if algorithm == ALGORITHM_V2:
        return shuffled_deck_v2(seed, table_id, hand, deal, mix)
    raise ValueError(f"unknown deck algorithm {algorithm!r}")


def _shuffled(seed: bytes, prefix: str) -> list[str]:
    """An unbiased Fisher-Yates shuffle of the canonical order driven by HMAC(seed, prefix+i).

    Rejection sampling (draw again while x >= 2**32 - 2**32 % n) removes modulo bias. The 31
    steps almost always use exactly the first 31 words of the first four HMAC blocks (a
    rejection has probability below 1e-7 per deal): that case runs as C-level map/all over
    precomputed tables; any rejection takes the step-by-step loop, which yields the same deck.
    """
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a seed is {SEED_BYTES} bytes, got {len(seed)}")
    stream = _Stream(seed, prefix)
    words = _FOUR_BLOCKS.unpack(
        b"".join([stream.block(0), stream.block(1), stream.block(2), stream.block(3)])
    )
    deck = list(CANONICAL_DECK)
    if all(map(lt, words, _LIMITS)):  # map stops after the 31 limits
        for i, j in zip(_POSITIONS, map(mod, words, _SIZES), strict=True):
            deck[i], deck[j] = deck[j], deck[i]
        return deck
    return _shuffle_with_rejections(deck, words, stream)


def _shuffle_with_rejections(
    deck: list[str], words: tuple[int, ...], stream: _Blocks
) -> list[str]:
    """The general loop: draws more HMAC blocks whenever rejections use up the words."""
    k = 0
    for i, n, limit in _STEPS:
        while True:
            if k == len(words):
                words += _EIGHT_WORDS.unpack(stream.block(len(words) // 8))
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
