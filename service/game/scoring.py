"""Hand scores exactly as the table of docs/RULES.md "Hand score", for every scoring variant.

All C(32,3) = 4960 hands are scored once per variant on first use; afterwards `score` is a
dictionary lookup by bitmask, so the decider and the practice bots never pay for the rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations

from service.game.cards import CANONICAL_DECK, CARD_INDEX, JOKER, RANK_VALUE
from service.game.settings import ScoringOptions

DEFAULT_SCORING = ScoringOptions()


def compute_score(cards: Sequence[str], options: ScoringOptions = DEFAULT_SCORING) -> int:
    """Score a hand from the rules (slow path; `score` looks the answer up)."""
    ranks = [c[0] for c in cards]
    has_joker = JOKER in cards
    candidates: list[int] = []

    if ranks.count("7") == 3:
        # Row 1: three 7s with the joker score 34 under every variant; the variant
        # `natural_777` sets only the value of the natural three (7d 7h 7s).
        candidates.append(34 if has_joker else options.natural_777)
    elif ranks[0] == ranks[1] == ranks[2]:  # row 2: natural three of a kind
        candidates.append(3 * RANK_VALUE[ranks[0]])
    if ranks.count("A") >= 2:  # row 4
        candidates.append(22)
    if ranks.count("7") >= 2:  # row 5
        candidates.append(23)

    if has_joker:
        others = [c for c in cards if c != JOKER]
        r1, s1, r2, s2 = others[0][0], others[0][1], others[1][0], others[1][1]
        v1, v2 = RANK_VALUE[r1], RANK_VALUE[r2]
        if r1 == r2:  # row 3: joker + a pair
            candidates.append(11 + v1 + v2 if options.joker_pair == "sum" else 3 * v1)
        if s1 == s2:  # row 6: joker + two suited cards
            candidates.append(11 + v1 + v2)
        candidates.append(11 + max(v1, v2))  # row 7
    else:  # row 8: the best single suit
        by_suit: dict[str, int] = {}
        for card in cards:
            by_suit[card[1]] = by_suit.get(card[1], 0) + RANK_VALUE[card[0]]
        candidates.append(max(by_suit.values()))
    return max(candidates)


@cache
def score_table(options: ScoringOptions = DEFAULT_SCORING) -> dict[int, int]:
    """Every hand's score for one variant, keyed by the hand's bitmask."""
    table: dict[int, int] = {}
    for hand in combinations(CANONICAL_DECK, 3):
        mask = (1 << CARD_INDEX[hand[0]]) | (1 << CARD_INDEX[hand[1]]) | (1 << CARD_INDEX[hand[2]])
        table[mask] = compute_score(hand, options)
    return table


def score(cards: Sequence[str], options: ScoringOptions = DEFAULT_SCORING) -> int:
    """The score of three distinct cards in notation (`("7c", "Kh", "Kd")` -> 31)."""
    index = CARD_INDEX
    return score_table(options)[
        (1 << index[cards[0]]) | (1 << index[cards[1]]) | (1 << index[cards[2]])
    ]
