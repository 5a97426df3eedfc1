"""The fair deck: the test vectors (docs/FAIRNESS.md "Decks"), determinism, dealing order,
and uniformity."""

from __future__ import annotations

import hashlib
import math

import pytest

from service.game.cards import CANONICAL_DECK
from service.game.deck import (
    commitment,
    deal_hands,
    deck_for,
    mix_of,
    shuffled_deck,
    shuffled_deck_v2,
)


def test_design_md_test_vector() -> None:
    seed = bytes(32)
    assert commitment(seed) == "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    assert shuffled_deck(seed, "t1", 1, 1)[:8] == "8h 7s Qh Js Ks Ad Qs Th".split()


def test_design_md_test_vector_v2_players_seeds() -> None:
    seeds = {0: "alice-seed", 2: "b0b", 5: "7f3a"}
    mix = mix_of(seeds)
    assert mix == "9603fecc74ddc9ae651d6cf7dae0749b2dbc23d0cee87b0a1f5b25cf65c75b23"
    assert shuffled_deck_v2(bytes(32), "t1", 1, 1, mix)[:8] == "Tc Jh Qs 7c Kh Ts Jc Jd".split()
    assert deck_for("hmac-sha256-fy-v2", bytes(32), "t1", 1, 1, mix)[:2] == ["Tc", "Jh"]


def test_v2_mix_orders_lines_by_seat_and_no_seeds_is_the_empty_digest() -> None:
    assert mix_of({}) == hashlib.sha256(b"").hexdigest()
    assert mix_of({10: "a", 2: "b"}) == hashlib.sha256(b"2:b\n10:a").hexdigest()
    # any one seed changes the deck
    base = shuffled_deck_v2(bytes(32), "t1", 1, 1, mix_of({0: "x"}))
    assert shuffled_deck_v2(bytes(32), "t1", 1, 1, mix_of({0: "y"})) != base
    with pytest.raises(ValueError, match="unknown deck algorithm"):
        deck_for("hmac-md5", bytes(32), "t1", 1, 1)


def test_deck_is_a_permutation_and_deterministic() -> None:
    seed = hashlib.sha256(b"fixed").digest()
    deck = shuffled_deck(seed, "table-9", 4, 2)
    assert sorted(deck) == sorted(CANONICAL_DECK)
    assert deck == shuffled_deck(seed, "table-9", 4, 2)


@pytest.mark.parametrize(("table", "hand", "deal"), [("t2", 1, 1), ("t1", 2, 1), ("t1", 1, 2)])
def test_every_coordinate_changes_the_deck(table: str, hand: int, deal: int) -> None:
    seed = bytes(32)
    assert shuffled_deck(seed, table, hand, deal) != shuffled_deck(seed, "t1", 1, 1)


def test_seed_must_be_32_bytes() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        shuffled_deck(b"short", "t1", 1, 1)


def test_cards_are_dealt_one_at_a_time_clockwise_in_three_rounds() -> None:
    deck = list(CANONICAL_DECK)
    hands = deal_hands(deck, 3)
    assert hands == [
        (deck[0], deck[3], deck[6]),
        (deck[1], deck[4], deck[7]),
        (deck[2], deck[5], deck[8]),
    ]
    assert len(deal_hands(deck, 10)) == 10
    with pytest.raises(ValueError):
        deal_hands(deck, 11)


def _chi_square_of_positions(decks: list[list[str]]) -> float:
    """Pearson's chi-square of the 32x32 (card, position) table against uniform."""
    counts = {card: [0] * 32 for card in CANONICAL_DECK}
    for deck in decks:
        for position, card in enumerate(deck):
            counts[card][position] += 1
    expected = len(decks) / 32
    return sum((n - expected) ** 2 / expected for row in counts.values() for n in row)


def _critical_value(df: int, z: float) -> float:
    """Wilson-Hilferty approximation of the chi-square quantile at standard-normal z."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


SHUFFLES = 16_000
DF = 31 * 31  # rows and columns each sum to fixed totals
CRITICAL = _critical_value(DF, 4.75)  # a one-in-a-million false alarm


def test_each_card_position_is_uniform_over_many_seeds() -> None:
    decks = [
        shuffled_deck(hashlib.sha256(i.to_bytes(4, "big")).digest(), "uniform", 1, 1)
        for i in range(SHUFFLES)
    ]
    assert _chi_square_of_positions(decks) < CRITICAL


def test_the_uniformity_check_catches_a_biased_shuffle() -> None:
    """Control: the classic 'swap with any position' bug must fail the same check."""

    def naive(seed: bytes) -> list[str]:
        deck = list(CANONICAL_DECK)
        stream = hashlib.shake_256(seed).digest(4 * 32)
        for i in range(32):
            j = int.from_bytes(stream[4 * i : 4 * i + 4], "big") % 32
            deck[i], deck[j] = deck[j], deck[i]
        return deck

    decks = [naive(hashlib.sha256(i.to_bytes(4, "big")).digest()) for i in range(SHUFFLES)]
    assert _chi_square_of_positions(decks) > CRITICAL
