"""docs/RULES.md "Hand score" variants at the table: a showdown scores with the table's own
`joker_pair` and `natural_777`, and the winner (or the svara, or the split) follows from them.

Every combination of the two options is played (2 x 3), each with the hands whose score the
options change, against a hand the change makes win, lose or tie. The deals are rigged
(`Table.rig`): 7d 7h 7s against three aces is too rare for a seed search. The expected
outcomes are written from docs/RULES.md ("Scoring variants"), and every shown score is also
checked against the independent oracle (tests/support/oracle.py).
"""

from __future__ import annotations

import pytest

from events import table as ev
from tests.support.oracle import VARIANTS, settings_score
from tests.support.tablekit import Table, table_with

A, B, C = 11, 12, 13


def _heads_up(joker_pair: str, natural: int, b_cards: str, a_cards: str, **more: object) -> Table:
    """A (seat 0) deals, B (seat 1) acts first; B is dealt `b_cards`, A `a_cards`."""
    t = table_with([A, B], joker_pair=joker_pair, natural_777=natural, **more)
    t.rig(b_cards, a_cards)
    return t


def _see(t: Table) -> ev.ShowdownHappened:
    """B opens for 1 chip, A calls: the hand goes to showdown."""
    first = len(t.log)
    t.act(B, "pass")
    t.act(B, "raise", 1)
    t.act(A, "call")
    shown = [e for e in t.log[first:] if isinstance(e, ev.ShowdownHappened)]
    assert len(shown) == 1
    for h in shown[0].hands.values():  # every shown score is the oracle's, under these options
        assert h.score == settings_score(h.cards, t.s.settings)
    return shown[0]


def _outcome(t: Table) -> tuple[str, tuple[int, ...]]:
    """What the newest showdown led to: ("won", winner seats), ("svara", tied), ("split", ...)."""
    last = next(
        e for e in reversed(t.log) if isinstance(e, ev.HandSettled | ev.SvaraStarted)
    )
    if isinstance(last, ev.SvaraStarted):
        return "svara", last.tied
    return ("split" if last.reason == "split" else "won"), last.winners


@pytest.mark.parametrize(("joker_pair", "natural"), VARIANTS)
def test_natural_three_sevens_score_natural_777_against_three_aces(
    joker_pair: str, natural: int
) -> None:
    t = _heads_up(joker_pair, natural, "7d 7h 7s", "As Ah Ad")
    shown = _see(t)
    assert {s: h.score for s, h in shown.hands.items()} == {1: natural, 0: 33}
    expected = {34: ("won", (1,)), 30: ("won", (0,)), 33: ("svara", (1, 0))}[natural]
    assert _outcome(t) == expected


@pytest.mark.parametrize("natural", [30, 33])
def test_natural_777_tie_with_svara_split_splits_the_pot(natural: int) -> None:
    """natural_777=33 ties three aces, split among the tied; 30 loses to them."""
    t = _heads_up("sum", natural, "7d 7h 7s", "As Ah Ad", svara="split")
    _see(t)
    if natural == 33:
        assert _outcome(t) == ("split", (1, 0))
        assert t.last(ev.HandSettled).amounts == {1: 2, 0: 2}
    else:
        assert _outcome(t) == ("won", (0,))


@pytest.mark.parametrize(("joker_pair", "natural"), VARIANTS)
@pytest.mark.parametrize("sevens", ["7c 7d 7s", "7c 7h 7d", "7s 7h 7c"])
def test_three_sevens_with_the_joker_beat_three_aces_under_every_variant(
    joker_pair: str, natural: int, sevens: str
) -> None:
    t = _heads_up(joker_pair, natural, "As Ah Ad", sevens)
    shown = _see(t)
    assert {s: h.score for s, h in shown.hands.items()} == {1: 33, 0: 34}
    assert _outcome(t) == ("won", (0,))


@pytest.mark.parametrize(("joker_pair", "natural"), VARIANTS)
def test_joker_pair_sums_or_substitutes_as_the_table_says(joker_pair: str, natural: int) -> None:
    """7c Kh Kd is 31 (sum) or 30 (substitute): it beats three queens (30) or ties them."""
    t = _heads_up(joker_pair, natural, "7c Kh Kd", "Qs Qh Qd")
    shown = _see(t)
    joker_pair_score = 31 if joker_pair == "sum" else 30
    assert {s: h.score for s, h in shown.hands.items()} == {1: joker_pair_score, 0: 30}
    assert _outcome(t) == (("won", (1,)) if joker_pair == "sum" else ("svara", (1, 0)))


@pytest.mark.parametrize(("joker_pair", "natural"), VARIANTS)
def test_a_svara_deal_scores_with_the_table_options_too(joker_pair: str, natural: int) -> None:
    """Deal 1 ties (two hands of 22); the svara deal gives B 7c 9h 9d: 29 (sum) beats A's
    Jd Qd 8d (28), 27 (substitute) loses to it."""
    t = _heads_up(joker_pair, natural, "As Ad 8c", "Ah Ac 9c")
    _see(t)
    assert _outcome(t) == ("svara", (1, 0))
    assert t.s.hand is not None and t.s.hand.deal == 2 and t.s.phase == "blind"
    t.rig("7c 9h 9d", "Jd Qd 8d")
    shown = _see(t)
    assert shown.deal == 2
    assert shown.hands[1].score == (29 if joker_pair == "sum" else 27)
    assert _outcome(t) == (("won", (1,)) if joker_pair == "sum" else ("won", (0,)))
    assert t.last(ev.HandSettled).pot == 2 + 2 + 2


@pytest.mark.parametrize(("joker_pair", "natural"), VARIANTS)
def test_three_players_the_best_by_the_table_options_wins(joker_pair: str, natural: int) -> None:
    """Three hands the options order differently: 7d 7h 7s, 7c Ks Kc, Jd Qd Kd (30)."""
    t = table_with([A, B, C], joker_pair=joker_pair, natural_777=natural)
    t.rig("7d 7h 7s", "7c Ks Kc", "Jd Qd Kd")  # B (seat 1), C (seat 2), A (seat 0)
    t.act(B, "pass")
    t.act(B, "raise", 1)
    t.act(C, "call")
    t.act(A, "call")
    shown = t.last(ev.ShowdownHappened)
    scores = {s: h.score for s, h in shown.hands.items()}
    assert scores == {1: natural, 2: 31 if joker_pair == "sum" else 30, 0: 30}
    for h in shown.hands.values():
        assert h.score == settings_score(h.cards, t.s.settings)
    best = max(scores.values())
    top = tuple(s for s, v in scores.items() if v == best)
    assert _outcome(t) == (("won", top) if len(top) == 1 else ("svara", top))
    assert _outcome(t) == {
        ("sum", 34): ("won", (1,)),
        ("sum", 30): ("won", (2,)),
        ("sum", 33): ("won", (1,)),
        ("substitute", 34): ("won", (1,)),
        ("substitute", 30): ("svara", (1, 2, 0)),
        ("substitute", 33): ("won", (1,)),
    }[(joker_pair, natural)]
