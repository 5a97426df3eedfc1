"""Random play for the property tests: random table settings and deck plans (Hypothesis
strategies), what `legal_actions` admits (`accepts`), and the choosers a machine plays with:
`Drawer` draws through Hypothesis (so a failure shrinks), `Dice` rolls a seeded RNG."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, TypeVar

from hypothesis import strategies as st

from service.game.betting import cap
from service.game.legal import LegalAction
from service.game.settings import TableSettings
from service.game.state import TableState


@st.composite
def table_settings(draw: st.DrawFn) -> TableSettings:
    ante = draw(st.integers(1, 4))
    return TableSettings(
        ante=ante,
        bet_unit=draw(st.none() | st.integers(1, 6)),
        max_seats=draw(st.integers(2, 10)),
        min_buy_in=ante,  # poor players make the cap matter
        max_buy_in=40 * ante,
        turn_seconds=draw(st.sampled_from([5, 30])),
        svara_join_seconds=draw(st.none() | st.just(10)),
        next_hand_seconds=draw(st.sampled_from([0, 3])),
        blind_raise=draw(st.sampled_from(["double", "at_least_double"])),
        max_raises=draw(st.integers(1, 4)),
        dealer=draw(st.sampled_from(["winner", "rotate"])),
        svara=draw(st.sampled_from(["play", "split", "play"])),  # play: join windows
        svara_join_fee=draw(st.sampled_from(["pot_share", "ante", "ante"])),  # ante: more join
        rake_percent=draw(st.sampled_from([0, 0, 5, 10])),
        joker_pair=draw(st.sampled_from(["sum", "substitute"])),
        natural_777=draw(st.sampled_from([34, 30, 33])),
    )


def deck_plans() -> st.SearchStrategy[list[str]]:
    """The wished deals, in turn: each deal gets the next wish of the plan. Every wish is in
    every plan (an example deals only a few times: each should try them all), a tie twice
    (a svara's join window also needs a third player able to join). A wish constrains one or
    two hands; the others are dealt as they fall."""
    return st.permutations(["tie", "natural 777", "tie", "joker 777", "joker pair"])


def accepts(legal: list[LegalAction], action: str, amount: int | None) -> bool:
    for a in legal:
        if a.type != action:
            continue
        if action == "blind" and a.amount is not None:
            return amount == a.amount
        if action in ("blind", "raise"):
            assert a.min is not None and a.max is not None and amount is not None
            return a.min <= amount <= a.max
        return True
    return False


def legal_types(legal: list[LegalAction]) -> set[str]:
    """The action types among `legal`."""
    return {a.type for a in legal}


def bet_cap(s: TableState) -> int:
    """The most a bet may reach now (no limit outside a betting round)."""
    assert s.hand is not None
    if s.hand.phase not in ("blind", "betting"):
        return 10**9
    return cap(s, s.hand)


T = TypeVar("T")


class Chooser(Protocol):
    def one(self, options: Sequence[T]) -> T: ...

    def integer(self, low: int, high: int) -> int: ...


class Drawer:
    """Choices drawn by Hypothesis (so they shrink). An option is drawn by its index: a
    `sampled_from` strategy's label hashes its elements, and the labels steer Hypothesis's
    mutations, so drawing game objects (legal actions) would make the derandomized run
    depend on how the game core's classes hash (the compiled build's differ)."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def one(self, options: Sequence[T]) -> T:
        return options[self.data.draw(st.integers(0, len(options) - 1))]

    def integer(self, low: int, high: int) -> int:
        return self.data.draw(st.integers(low, high))


class Dice:
    """Choices from a seeded RNG (for the volume test)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def one(self, options: Sequence[T]) -> T:
        return self.rng.choice(options)

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)
