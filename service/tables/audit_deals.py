"""The audit's checks of each deal once its hand is settled: every revealed seed against its
commitments (`commitment`), the deck it makes against the cards dealt (`deck`). Part of the
checks of `service.tables.audit_checks`, which finds the deals' events while it folds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from events import table as ev
from events.store.base import StoredEvent
from events.table import TableEvent
from service.game.deck import ALGORITHM, ALGORITHM_V2, commitment, deal_hands, deck_for
from service.tables.facade import JSON

Fail = Callable[[str, int, str], None]


class Deal:
    """Where one deal's events lie in the log (indexes)."""

    __slots__ = ("deal", "dealt", "drawn", "published", "start")

    def __init__(self, deal: int, start: int, published: int | None, drawn: int | None) -> None:
        self.deal = deal
        self.start = start  # index of hand_started / svara_deal_started
        self.published = published  # index of the event publishing its commitment (v2)
        self.drawn = drawn  # index of the seed_drawn after it
        self.dealt: int | None = None  # index of cards_dealt


class DealChecks:
    def __init__(
        self,
        table_id: str,
        hand: int,
        stored: Sequence[StoredEvent],
        events: Sequence[TableEvent | None],
        end: int,
        fail: Fail,
    ) -> None:
        self.table_id = table_id
        self.hand = hand
        self.stored = stored
        self.events = events
        self.end = end  # index of the hand's hand_settled
        self.fail = fail
        self.reports: list[JSON] = []

    def version(self, i: int) -> int:
        return self.stored[i].version

    def run(self, deals: dict[int, Deal]) -> list[JSON]:
        """Each deal's report (its deck and cards as rebuilt), failing what does not hold."""
        settled = self.events[self.end]
        assert isinstance(settled, ev.HandSettled)
        revealed = {s.deal: s for s in settled.seeds}
        for number, deal in sorted(deals.items()):
            self._check_deal(deal, revealed.get(number))
        return self.reports

    def _check_deal(self, deal: Deal, revealed: ev.DealSeed | None) -> None:
        x = self.version(self.end)
        start = self.events[deal.start]
        assert isinstance(start, ev.HandStarted | ev.SvaraDealStarted)
        dealt = self.events[deal.dealt] if deal.dealt is not None else None
        assert dealt is None or isinstance(dealt, ev.CardsDealt)
        algorithm = dealt.algorithm if dealt is not None else ALGORITHM
        report: JSON = {
            "deal": deal.deal,
            "algorithm": algorithm,
            "commitment": start.commitment,
            "seed": revealed.seed if revealed is not None else "",
            "deck": [],
            "cards": {},
        }
        self.reports.append(report)
        if algorithm == ALGORITHM_V2:
            source = self.events[deal.published] if deal.published is not None else None
            published = (
                source.next_commitment
                if isinstance(source, ev.TableCreated | ev.HandSettled | ev.SvaraStarted)
                else None
            )
            if published is None:
                self.fail("commitment", self.version(deal.start), f"deal {deal.deal} is v2 but"
                            " no commitment was published before it")  # fmt: skip
            elif published != start.commitment:
                assert deal.published is not None
                self.fail("commitment", self.version(deal.start), f"deal {deal.deal}'s "
                            f"commitment is not the one published at version "
                            f"{self.version(deal.published)}")  # fmt: skip
            else:
                report["published_at"] = self.version(deal.published)  # type: ignore[arg-type]
        seed: bytes | None = None
        if revealed is None:
            self.fail("commitment", x, f"no seed revealed for deal {deal.deal}")
        else:
            try:
                seed = bytes.fromhex(revealed.seed)
            except ValueError:
                seed = None
            drawn = self.events[deal.drawn] if deal.drawn is not None else None
            if seed is None or commitment(seed) != start.commitment:
                self.fail("commitment", x, f"the seed revealed for deal {deal.deal} does not "
                            "match its commitment")  # fmt: skip
            elif revealed.commitment != start.commitment:
                self.fail("commitment", x, f"deal {deal.deal}'s revealed commitment differs "
                            "from the one at the deal")  # fmt: skip
            elif start.seed != revealed.seed:
                self.fail("commitment", self.version(deal.start), f"the seed recorded at deal"
                            f" {deal.deal} is not the one revealed")  # fmt: skip
            elif isinstance(drawn, ev.SeedDrawn) and drawn.seed != revealed.seed:
                assert deal.drawn is not None
                self.fail("commitment", self.version(deal.drawn), "the seed drawn in advance "
                            "is not the one revealed")  # fmt: skip
        if dealt is None or deal.dealt is None:
            self.fail("deck", self.version(deal.start), f"deal {deal.deal} has no cards_dealt")
            return
        v = self.version(deal.dealt)
        report["cards"] = {str(s): list(c) for s, c in sorted(dealt.cards.items())}
        if algorithm == ALGORITHM_V2:
            report.update(client_seeds={str(k): s for k, s in (dealt.client_seeds or {}).items()},
                          mix=dealt.mix)  # fmt: skip
        if seed is None or len(seed) != 32:
            self.fail("deck", v, "no valid seed to rebuild the deck from")
            return
        try:
            deck = deck_for(algorithm, seed, self.table_id, self.hand, deal.deal, dealt.mix)
        except ValueError:
            self.fail("deck", v, f"unknown deck algorithm {algorithm!r}")
            return
        report["deck"] = deck
        participants = start.participants
        if set(dealt.cards) != set(participants) or not 2 <= len(participants) <= 10:
            self.fail("deck", v, f"cards dealt to seats {sorted(dealt.cards)}; the deal's "
                        f"players are {list(participants)}")  # fmt: skip
            return
        for seat, right in zip(participants, deal_hands(deck, len(participants)), strict=True):
            if tuple(dealt.cards[seat]) != right:
                self.fail("deck", v, f"seat {seat} got {' '.join(dealt.cards[seat])}; the "
                            f"{algorithm} deck puts {' '.join(right)} there")  # fmt: skip
