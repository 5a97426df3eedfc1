"""A second hand scorer, written from `docs/RULES.md` ("Hand score") alone.

It shares nothing with `service.game.scoring` (no lookup table, no bitmasks, no helpers): it
reads the eight rows of the rule table one by one, as they are written, collects the value of
every row the hand contains, and takes the largest. It is slow and plain on purpose: the tests
compare the service's scores with it, so a bug would have to be made twice, in two different
shapes, to pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from events import table as ev
from service.game.state import TableState

# docs/RULES.md "Cards": 7, 8, 9 are worth their number; T, J, Q, K are worth 10; A is worth 11.
CARD_VALUE = {"7": 7, "8": 8, "9": 9, "T": 10, "J": 10, "Q": 10, "K": 10, "A": 11}
JOKER = "7c"  # worth 11
JOKER_VALUE = 11
RANKS = "789TJQKA"
SUITS = "cdhs"
DECK = tuple(rank + suit for rank in RANKS for suit in SUITS)

JOKER_PAIR_VARIANTS = ("sum", "substitute")
NATURAL_777_VARIANTS = (34, 30, 33)
VARIANTS = tuple((j, n) for j in JOKER_PAIR_VARIANTS for n in NATURAL_777_VARIANTS)


def oracle_score(cards: Iterable[str], joker_pair: str = "sum", natural_777: int = 34) -> int:
    """The hand's score: the largest value among the rule table's rows that the hand contains."""
    hand = list(cards)
    assert len(hand) == 3 and len(set(hand)) == 3 and all(c in DECK for c in hand), hand
    assert joker_pair in JOKER_PAIR_VARIANTS and natural_777 in NATURAL_777_VARIANTS
    ranks = [c[0] for c in hand]
    has_joker = JOKER in hand
    others = [c for c in hand if c != JOKER]  # the cards that are not the joker
    candidates: list[int] = []

    # Row 1: three 7s, 7c counting as a 7: 34. The variant sets the value of the three 7s
    # *without* the joker (7d 7h 7s, row 2's three 7s); with 7c they are row 1 under every one.
    if ranks.count("7") == 3:
        candidates.append(34 if has_joker else natural_777)

    # Row 2: three of a kind, natural: 3 x card value (the three 7s: natural_777, above).
    if not has_joker and ranks[0] == ranks[1] == ranks[2] and ranks[0] != "7":
        candidates.append(3 * CARD_VALUE[ranks[0]])

    # Row 3: joker + a pair of equal rank. `sum`: 11 + both pair cards; `substitute`: the joker
    # becomes the third card of the pair's rank (three of a kind of that rank).
    if has_joker and others[0][0] == others[1][0]:
        pair_value = CARD_VALUE[others[0][0]]
        if joker_pair == "sum":
            candidates.append(JOKER_VALUE + 2 * pair_value)
        else:
            candidates.append(3 * pair_value)

    # Row 4: two or three aces, any suits: 22.
    if ranks.count("A") >= 2:
        candidates.append(22)

    # Row 5: two 7s, any suits, 7c included: 23.
    if ranks.count("7") >= 2:
        candidates.append(23)

    # Row 6: joker + two cards of one suit: 11 + both cards.
    if has_joker and others[0][1] == others[1][1]:
        candidates.append(JOKER_VALUE + CARD_VALUE[others[0][0]] + CARD_VALUE[others[1][0]])

    # Row 7: joker + any other card: 11 + the higher of the two others.
    if has_joker:
        candidates.append(JOKER_VALUE + max(CARD_VALUE[c[0]] for c in others))

    # Row 8: no joker: the cards of one suit, summed; a single card counts.
    if not has_joker:
        for suit in SUITS:
            same_suit = [c for c in hand if c[1] == suit]
            if same_suit:
                candidates.append(sum(CARD_VALUE[c[0]] for c in same_suit))

    return max(candidates)


def options_of(settings: Any) -> tuple[str, int]:
    """(joker_pair, natural_777) of a table's settings: a TableSettings or its JSON dict."""
    if isinstance(settings, Mapping):
        return str(settings["joker_pair"]), int(settings["natural_777"])
    return str(settings.joker_pair), int(settings.natural_777)


def settings_score(cards: Iterable[str], settings: Any) -> int:
    """The score of `cards` at a table with `settings` (TableSettings or its JSON)."""
    joker_pair, natural_777 = options_of(settings)
    return _remembered(tuple(cards), joker_pair, natural_777)


@cache
def _remembered(cards: tuple[str, ...], joker_pair: str, natural_777: int) -> int:
    """The property tests score the same hands many times: each is worked out once."""
    return oracle_score(cards, joker_pair, natural_777)


def is_natural_777(cards: Iterable[str]) -> bool:
    return sorted(cards) == ["7d", "7h", "7s"]


def is_joker_777(cards: Iterable[str]) -> bool:
    hand = list(cards)
    return JOKER in hand and all(c[0] == "7" for c in hand)


def is_joker_pair(cards: Iterable[str]) -> bool:
    """The joker and a pair of another rank (row 3's hands the joker_pair variant changes)."""
    hand = list(cards)
    others = [c for c in hand if c != JOKER]
    return JOKER in hand and others[0][0] == others[1][0] != "7"


# --- a deal's end, judged by the oracle's scores -----------------------------------------


def check_showdown(state: TableState, shown: ev.ShowdownHappened, after: ev.TableEvent) -> None:
    """docs/RULES.md steps 7 and 8, with scores from the oracle under the table's options:
    every player still in shows the cards they were dealt; one best score takes the pot;
    a shared best score is a svara among exactly those players, or a split."""
    hand = state.hand
    settings_ = state.settings
    assert hand is not None and shown.deal == hand.deal
    still_in = [p for p in hand.players if not p.folded]
    assert set(shown.hands) == {p.seat for p in still_in}
    for p in still_in:
        assert p.cards is not None
        assert shown.hands[p.seat].cards == p.cards
        assert shown.hands[p.seat].score == settings_score(p.cards, settings_), (
            p.cards,
            settings_.scoring,
        )
    best = max(settings_score(p.cards, settings_) for p in still_in if p.cards)
    tied = {p.seat for p in still_in if p.cards and settings_score(p.cards, settings_) == best}
    if len(tied) == 1:
        assert isinstance(after, ev.HandSettled), after
        assert after.reason == "showdown" and set(after.winners) == tied
    elif settings_.svara == "split":
        assert isinstance(after, ev.HandSettled), after
        assert after.reason == "split" and set(after.winners) == tied
    else:
        assert isinstance(after, ev.SvaraStarted), after
        assert set(after.tied) == tied


def check_settlement(state: TableState, settled: ev.HandSettled) -> None:
    """docs/RULES.md step 9 and `split`: the whole pot less the rake goes to the winners, in
    equal shares; the chips that do not divide go one each to the first winners clockwise
    from the dealer's left."""
    hand = state.hand
    settings_ = state.settings
    assert hand is not None and settled.pot == hand.pot
    assert settled.rake == settled.pot * settings_.rake_percent // 100
    clockwise = sorted(
        settled.winners, key=lambda seat: (seat - hand.dealer - 1) % settings_.max_seats
    )
    assert list(settled.winners) == clockwise
    assert sorted(settled.amounts) == sorted(settled.winners)
    paid = [settled.amounts[seat] for seat in clockwise]
    assert sum(paid) == settled.pot - settled.rake, (paid, settled)
    assert paid == sorted(paid, reverse=True) and paid[0] - paid[-1] <= 1, paid


# docs/RULES.md "Worked examples" (default variants), in the order written.
WORKED_EXAMPLES = [
    ("7h 9d 9c", 9),
    ("Ts Td Tc", 30),
    ("8c Kh 9d", 10),
    ("Kh 9h Qc", 19),
    ("Qc Qh 9d", 10),
    ("As Ad Tc", 22),
    ("8s Ad 7c", 22),
    ("Td 9d Jd", 29),
    ("Qc Qh Qd", 30),
    ("7c Kh Kd", 31),
    ("7c Ah Ad", 33),
    ("Qd Kd Ts", 20),
    ("Ts 8s Kh", 18),
    ("8s 8h 8d", 24),
    ("7h 7d 7s", 34),
    ("7h 7d Ks", 23),
    ("Ts Th Ac", 11),
    ("Js Qh Tc", 10),
    ("7c 7d Td", 28),  # row 6 beats row 5
    # examples in the rule table itself
    ("As Ah Ad", 33),
    ("Qs Qh Qd", 30),
    ("7c 9s Js", 30),
    ("7d 8c 8h", 8),  # "the lowest hands"
]
