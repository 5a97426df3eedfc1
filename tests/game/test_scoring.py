"""Scoring: every worked example (docs/RULES.md "Worked examples"), the variants, and the
table's global facts."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.game.cards import CANONICAL_DECK, CardError, parse_card, parse_hand
from service.game.scoring import compute_score, score, score_table
from service.game.settings import ScoringOptions

RULES_EXAMPLES = {
    "7h 9d 9c": 9,
    "Ts Td Tc": 30,
    "8c Kh 9d": 10,
    "Kh 9h Qc": 19,
    "Qc Qh 9d": 10,
    "As Ad Tc": 22,
    "8s Ad 7c": 22,
    "Td 9d Jd": 29,
    "Qc Qh Qd": 30,
    "7c Kh Kd": 31,
    "7c Ah Ad": 33,
    "Qd Kd Ts": 20,
    "Ts 8s Kh": 18,
    "8s 8h 8d": 24,
    "7h 7d 7s": 34,
    "7h 7d Ks": 23,
    "Ts Th Ac": 11,
    "Js Qh Tc": 10,
    "7c 7d Td": 28,
    # The rows of the table, one each, and the lowest hand named in docs/RULES.md "Hand score".
    "7c 9s Js": 30,
    "Qc Qh Qd ": 30,
    "7d 8c 8h": 8,
}


@pytest.mark.parametrize(("hand", "expected"), sorted(RULES_EXAMPLES.items()))
def test_rules_worked_examples(hand: str, expected: int) -> None:
    assert score(hand.split()) == expected


def test_joker_pair_substitute_variant_makes_joker_the_third_card() -> None:
    options = ScoringOptions(joker_pair="substitute")
    assert score("7c Kh Kd".split(), options) == 30
    assert score("7c Ah Ad".split(), options) == 33
    assert score("7c 9h 9d".split(), options) == 27
    # Other rows are unchanged by the option.
    assert score("7c 9s Js".split(), options) == 30


@pytest.mark.parametrize("joker_pair", ["sum", "substitute"])
@pytest.mark.parametrize("value", [34, 30, 33])
def test_natural_777_variant_sets_only_the_natural_three_sevens(
    value: int, joker_pair: str
) -> None:
    options = ScoringOptions(natural_777=value, joker_pair=joker_pair)  # type: ignore[arg-type]
    assert score("7h 7d 7s".split(), options) == value
    # Three 7s with the joker are row 1: 34 under every variant (docs/RULES.md "Hand score").
    for sevens in ("7c 7d 7s", "7c 7d 7h", "7c 7h 7s"):
        assert score(sevens.split(), options) == 34
        assert compute_score(sevens.split(), options) == 34


def test_there_are_4960_hands_and_12_13_14_never_occur() -> None:
    table = score_table()
    assert len(table) == 4960
    values = set(table.values())
    assert min(values) == 8 and max(values) == 34
    assert not values & {12, 13, 14}


def test_three_sevens_is_the_strongest_hand() -> None:
    table = score_table()
    assert max(table.values()) == 34
    assert [m for m, v in table.items() if v == 34] == [
        m
        for m in table
        if bin(m & 0xF).count("1") == 3  # bits 0-3 are the four 7s
    ]


def test_other_pairs_score_nothing_by_themselves() -> None:
    assert score("Qc Qh 9d".split()) == 10
    assert score("8c 8h 9d".split()) == 9


def test_lookup_agrees_with_the_rules_for_every_hand_and_variant() -> None:
    for joker_pair in ("sum", "substitute"):
        for natural in (34, 30, 33):
            options = ScoringOptions(joker_pair=joker_pair, natural_777=natural)
            for hand in combinations(CANONICAL_DECK, 3):
                assert score(hand, options) == compute_score(hand, options)


@given(st.permutations(CANONICAL_DECK))
def test_score_does_not_depend_on_card_order(deck: list[str]) -> None:
    hand = deck[:3]
    assert score(hand) == score(list(reversed(hand))) == score([hand[1], hand[2], hand[0]])


@pytest.mark.parametrize(
    ("text", "card"), [("7c", "7c"), ("10d", "Td"), ("AS", "As"), ("a♠", "As"), (" kH ", "Kh")]
)
def test_parse_card_accepts_common_spellings(text: str, card: str) -> None:
    assert parse_card(text) == card


@pytest.mark.parametrize("text", ["", "7", "6c", "1c", "Tx", "7cc", "Zz"])
def test_parse_card_names_the_bad_input(text: str) -> None:
    with pytest.raises(CardError, match="bad card"):
        parse_card(text)


def test_parse_hand_refuses_duplicates_and_wrong_counts() -> None:
    with pytest.raises(CardError, match="duplicate card 'Kh'"):
        parse_hand(["Kh", "kh", "9d"])
    with pytest.raises(CardError, match="exactly 3 cards, got 2"):
        parse_hand(["Kh", "9d"])
