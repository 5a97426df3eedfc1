"""A table's settings: fixed at creation and recorded in its first event (`table_created`).

They are part of the event schema, so their type lives here beside the events; what makes a
set of settings acceptable is a game rule (`service.game.settings.validated`). Every option of
docs/RULES.md ("Table options") is a field, so variants are data, not subclasses.
"""

from __future__ import annotations

from typing import Literal

import msgspec

BlindRaise = Literal["double", "at_least_double"]
DealerRule = Literal["winner", "rotate"]
SvaraRule = Literal["play", "split"]
SvaraJoinFee = Literal["pot_share", "ante"]
JokerPair = Literal["sum", "substitute"]
Natural777 = Literal[34, 30, 33]


class ScoringOptions(msgspec.Struct, frozen=True, kw_only=True):
    """The two scoring variants of docs/RULES.md ("Hand score")."""

    joker_pair: JokerPair = "sum"
    natural_777: Natural777 = 34


class TableSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Everything a table creator may choose. Defaults: docs/RULES.md "Table options"."""

    ante: int
    bet_unit: int | None = None  # None: equal to the ante
    max_seats: int = 6
    min_buy_in: int | None = None  # None: 10 antes
    max_buy_in: int | None = None  # None: 100 antes
    turn_seconds: int = 30
    svara_join_seconds: int | None = None  # None: same as turn_seconds
    next_hand_seconds: int = 3  # pause after a settled hand, so people see the result
    blind_raise: BlindRaise = "double"
    max_raises: int = 3
    dealer: DealerRule = "winner"
    svara: SvaraRule = "play"
    svara_join_fee: SvaraJoinFee = "pot_share"  # pot_share: floor(pot / k), docs/RULES.md step 8
    rake_percent: int = 0
    joker_pair: JokerPair = "sum"
    natural_777: Natural777 = 34

    @property
    def unit(self) -> int:
        return self.bet_unit if self.bet_unit is not None else self.ante

    @property
    def buy_in_range(self) -> tuple[int, int]:
        low = self.min_buy_in if self.min_buy_in is not None else 10 * self.ante
        high = self.max_buy_in if self.max_buy_in is not None else 100 * self.ante
        return low, high

    @property
    def join_seconds(self) -> int:
        return self.svara_join_seconds if self.svara_join_seconds is not None else self.turn_seconds

    @property
    def scoring(self) -> ScoringOptions:
        return ScoringOptions(joker_pair=self.joker_pair, natural_777=self.natural_777)
