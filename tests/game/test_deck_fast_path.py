"""The deck's fast path (hand-built HMAC, C-level shuffle) against the algorithm of
docs/FAIRNESS.md "Decks" written out plainly with the stdlib `hmac`, including the rejection
branch it rarely takes."""

from __future__ import annotations

import hmac
import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from service.game import deck as deck_module
from service.game.cards import CANONICAL_DECK
from service.game.deck import shuffled_deck


def _reference(seed: bytes, table_id: str, hand: int, deal: int) -> list[str]:
    """docs/FAIRNESS.md "Decks", step by step."""
    deck = list(CANONICAL_DECK)
    words: list[int] = []
    block = 0
    for i in range(31, 0, -1):
        while True:
            if not words:
                msg = f"{table_id}:{hand}:{deal}:{block}".encode()
                words = list(struct.unpack(">8I", hmac.digest(seed, msg, "sha256")))
                block += 1
            x = words.pop(0)
            if x < 2**32 - (2**32 % (i + 1)):
                break
        j = x % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@settings(max_examples=300, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    table_id=st.text(min_size=1, max_size=40),
    hand=st.integers(min_value=1, max_value=10**6),
    deal=st.integers(min_value=1, max_value=50),
)
def test_fast_deck_equals_the_reference(seed: bytes, table_id: str, hand: int, deal: int) -> None:
    assert shuffled_deck(seed, table_id, hand, deal) == _reference(seed, table_id, hand, deal)


class _FakeStream:
    """Blocks whose first words are rejected, to drive the general loop."""

    def __init__(self, words: list[int]) -> None:
        self.words = words

    def block(self, i: int) -> bytes:
        return struct.pack(">8I", *self.words[8 * i : 8 * i + 8])


def _reference_on_words(words: list[int]) -> list[str]:
    deck = list(CANONICAL_DECK)
    k = 0
    for i in range(31, 0, -1):
        while words[k] >= 2**32 - (2**32 % (i + 1)):
            k += 1
        j = words[k] % (i + 1)
        k += 1
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@given(
    st.lists(st.integers(min_value=0, max_value=2**32 - 1), min_size=96, max_size=96),
    st.sets(st.integers(min_value=0, max_value=60), max_size=30),
)
def test_rejections_draw_more_blocks_like_the_reference(words: list[int], bad: set[int]) -> None:
    # 2**32 - 1 is rejected unless n is a power of two; the reference agrees either way.
    words = [2**32 - 1 if k in bad else w % 2**31 for k, w in enumerate(words)]
    stream = _FakeStream(words)
    first = tuple(words[:32])
    got = deck_module._shuffle_with_rejections(list(CANONICAL_DECK), first, stream)
    assert got == _reference_on_words(words)
