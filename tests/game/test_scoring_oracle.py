"""The service's scores against an independent oracle (tests/support/oracle.py, written from
docs/RULES.md "Hand score" alone), for all 4960 hands under every variant combination
(2 joker_pair x 3 natural_777), and the worked examples (docs/RULES.md "Worked examples")
through the oracle itself.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, permutations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.game.cards import CANONICAL_DECK
from service.game.scoring import compute_score, score
from service.game.settings import ScoringOptions, TableSettings
from tests.support.oracle import DECK, VARIANTS, WORKED_EXAMPLES, oracle_score


@pytest.mark.parametrize(("hand", "expected"), WORKED_EXAMPLES)
def test_the_oracle_scores_every_worked_example_of_the_rules(hand: str, expected: int) -> None:
    assert oracle_score(hand.split()) == expected
    assert score(hand.split()) == expected


@pytest.mark.parametrize("natural", [34, 30, 33])
def test_the_oracle_follows_the_variants_as_the_rules_state_them(natural: int) -> None:
    # joker_pair=substitute: the joker becomes the third card (7c Kh Kd = 30).
    assert oracle_score("7c Kh Kd".split(), "substitute", natural) == 30
    assert oracle_score("7c Kh Kd".split(), "sum", natural) == 31
    assert oracle_score("7c Ah Ad".split(), "substitute", natural) == 33
    assert oracle_score("7c 9h 9d".split(), "substitute", natural) == 27
    assert oracle_score("7c 9h 9d".split(), "sum", natural) == 29
    for joker_pair in ("sum", "substitute"):
        # natural_777 is the value of 7d 7h 7s only; three 7s with 7c are 34 under every variant.
        assert oracle_score("7d 7h 7s".split(), joker_pair, natural) == natural
        for sevens in ("7c 7d 7s", "7c 7d 7h", "7c 7h 7s"):
            assert oracle_score(sevens.split(), joker_pair, natural) == 34


def test_the_oracles_table_has_the_facts_the_rules_state() -> None:
    hands = list(combinations(DECK, 3))
    assert len(hands) == 4960
    for joker_pair, natural in VARIANTS:
        values = Counter(oracle_score(h, joker_pair, natural) for h in hands)
        assert min(values) == 8 and max(values) == 34
        assert not set(values) & {12, 13, 14}
        # 34 is the strongest hand: the three 7s with the joker, and 7d 7h 7s at 34.
        assert values[34] == (4 if natural == 34 else 3)


@pytest.mark.parametrize(("joker_pair", "natural"), VARIANTS)
def test_every_hand_scores_as_the_oracle_says_under_every_variant(
    joker_pair: str, natural: int
) -> None:
    """All 4960 hands, by the lookup the decider uses and by the function it is built from,
    and through a table's settings (what the showdown reads)."""
    options = ScoringOptions(joker_pair=joker_pair, natural_777=natural)  # type: ignore[arg-type]
    table = TableSettings(ante=1, joker_pair=joker_pair, natural_777=natural)  # type: ignore[arg-type]
    assert table.scoring == options
    assert set(DECK) == set(CANONICAL_DECK)
    wrong = []
    for hand in combinations(CANONICAL_DECK, 3):
        expected = oracle_score(hand, joker_pair, natural)
        got = (score(hand, options), compute_score(hand, options), score(hand, table.scoring))
        if got != (expected,) * 3:
            wrong.append((hand, expected, got))
    assert not wrong, wrong[:20]


@given(
    hand=st.lists(st.sampled_from(DECK), min_size=3, max_size=3, unique=True),
    variant=st.sampled_from(VARIANTS),
)
def test_a_hand_in_any_order_scores_as_the_oracle_says(
    hand: list[str], variant: tuple[str, int]
) -> None:
    joker_pair, natural = variant
    options = ScoringOptions(joker_pair=joker_pair, natural_777=natural)  # type: ignore[arg-type]
    expected = oracle_score(hand, joker_pair, natural)
    for order in permutations(hand):
        assert score(list(order), options) == expected
