"""Stacked decks through the seed: a command that deals gets a seed whose deal has a wanted
property (a tie at the top, three 7s, the joker with a pair).

Random deals almost never give three 7s (4 hands in 4960) and rarely a tie, so random play
would seldom test the rules that depend on them. The search runs the decider itself with
candidate seeds and reads the deal it makes, so it knows nothing of how a deck is derived.
Candidates depend only on the deal's coordinates, so one search serves every example that
reaches the same deal; a cached seed is checked again before use. Candidates are screened
with `tablekit.deal_for` (twice as fast as deciding); if its deal ever differs from the
decider's, the screen is dropped and the search decides every candidate.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from itertools import chain

from msgspec.structs import replace

from events import table as ev
from events.settings import TableSettings
from service.game import commands as cmd
from service.game.decider import decide
from service.game.state import TableState
from tests.game.oracle import is_joker_777, is_joker_pair, is_natural_777, settings_score
from tests.game.tablekit import deal_for

Hands = Sequence[tuple[str, str, str]]


def _top_tied(hands: Hands, settings: TableSettings) -> bool:
    """The best score is shared, and (with three or more players) someone is below it, who
    may join the svara."""
    scores = [settings_score(h, settings) for h in hands]
    top = scores.count(max(scores))
    return top >= 2 and (len(scores) == 2 or top < len(scores))


WISHES: dict[str, Callable[[Hands, TableSettings], bool]] = {
    "any": lambda hands, settings: True,
    "tie": _top_tied,
    "natural 777": lambda hands, settings: any(map(is_natural_777, hands)),
    "joker 777": lambda hands, settings: any(map(is_joker_777, hands)),
    "joker pair": lambda hands, settings: any(map(is_joker_pair, hands)),
}
MAX_TRIES = 12_000


def first_deal(events: Sequence[ev.TableEvent]) -> ev.CardsDealt | None:
    return next((e for e in events if isinstance(e, ev.CardsDealt)), None)


class Stacker:
    """The seed search, with what it found so far (module-level in the property tests: the
    same deal recurs across examples)."""

    def __init__(self) -> None:
        self.found: dict[tuple[object, ...], bytes | None] = {}
        self.tries = 0
        self.screen = True

    def stack(
        self, state: TableState | None, command: cmd.TableCommand, wish: str
    ) -> tuple[cmd.TableCommand, list[ev.TableEvent]]:
        """`command` with a seed whose first deal satisfies `wish`, and its events (the
        command as it was if it deals nothing, or no seed is found)."""
        events = decide(state, command)
        dealt = first_deal(events)
        if dealt is None or wish == "any" or state is None:
            return command, events
        want = WISHES[wish]
        settings = state.settings
        if want(list(dealt.cards.values()), settings):
            return command, events
        number = state.hand_number  # the deal's hand: this one, or one started before it
        for e in events[: events.index(dealt)]:
            if isinstance(e, ev.HandStarted):
                number = e.number
        options = settings.scoring if wish == "tie" else None  # the others name cards only
        key = (wish, options, number, dealt.deal, len(dealt.cards))
        if key in self.found:
            cached = self.found[key]
            if cached is None:  # searched before, in vain
                return command, events
            candidates = chain([cached], self._candidates(number, dealt.deal))
        else:
            candidates = self._candidates(number, dealt.deal)
        n = len(dealt.cards)
        for seed in candidates:
            self.tries += 1
            screened = None
            if self.screen:
                screened = deal_for(seed, state.table_id, number, dealt.deal, n)
                if not want(screened, settings):
                    continue
            stacked = replace(command, seed=seed)
            new = decide(state, stacked)  # the same command: accepted with any seed
            deal = first_deal(new)
            assert deal is not None and deal.deal == dealt.deal
            hands = list(deal.cards.values())
            if screened is not None and screened != hands:
                self.screen = False  # the deck is no longer derived as tablekit thinks
            if want(hands, settings):
                self.found[key] = seed
                return stacked, new
        self.found[key] = None
        return command, events

    @staticmethod
    def _candidates(number: int, deal: int) -> Iterator[bytes]:
        """Seeds differ by the deal's hand and deal numbers, so one table never reuses one."""
        for i in range(MAX_TRIES):
            yield hashlib.sha256(f"stacked:{number}:{deal}:{i}".encode()).digest()
