"""Stacked decks through the seed: a command gets a seed whose deal has a wanted property (a
tie at the top, three 7s, the joker with a pair).

Random deals almost never give three 7s (4 hands in 4960) and rarely a tie, so random play
would seldom test the rules that depend on them. Which deal a command's seed decides is found
by asking the decider (the same command with another seed), so the search follows the game:
- a deal in the command's own events that changes with its seed (a v1 deal, dealt with the
  dealing command's seed; or a svara declared and dealt at once): candidates are decided and
  the deal read from their events (screened first with `tablekit.deal_for`, twice as fast,
  until its deal once differs from the decider's);
- a seed drawn ahead (v2, `seed_drawn`: by the settlement for the next hand, by the
  declaration for the svara's deal, by the table's creation for hand 1): the deal comes later,
  so it is predicted with `tablekit.deal_for` for the players who would be dealt in now (the
  next hand's eligible, the svara's tied, two for a new table) and their client seeds. Someone
  sitting down or changing their seed before the deal spoils the wish; that is rare.
Candidates depend only on the deal's coordinates, so one search serves every example that
reaches the same deal.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence

from msgspec.structs import replace

from events import table as ev
from events.settings import TableSettings
from service.game import commands as cmd
from service.game.decider import decide, evolve, fold
from service.game.state import TableState
from tests.support.oracle import is_joker_777, is_joker_pair, is_natural_777, settings_score
from tests.support.tablekit import deal_for

Hands = Sequence[tuple[str, ...]]
SEED_DRAWN: type | None = getattr(ev, "SeedDrawn", None)  # v2's seed drawn ahead of its deal


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
_PROBE = hashlib.sha256(b"stacking probe").digest()


def first_deal(events: Sequence[ev.TableEvent]) -> ev.CardsDealt | None:
    return next((e for e in events if isinstance(e, ev.CardsDealt)), None)


def _drawn(events: Sequence[ev.TableEvent]) -> str | None:
    """The seed (hex) drawn ahead by these events, if any."""
    if SEED_DRAWN is None:
        return None
    found = [e for e in events if isinstance(e, SEED_DRAWN)]
    return str(found[-1].seed) if found else None


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
        """`command` with a seed whose deal satisfies `wish`, and its events (the command as
        it was if its seed decides no deal, or no seed is found)."""
        events = decide(state, command)
        if wish == "any" or len(command.seed) != 32:
            return command, events
        dealt = first_deal(events)
        drawn = _drawn(events)
        if dealt is None and drawn is None:
            return command, events
        probe = decide(state, replace(command, seed=_PROBE))
        probed = first_deal(probe)
        if dealt is not None and probed is not None and probed.cards != dealt.cards:
            return self._stack_dealt(state, command, events, dealt, wish)
        if drawn is not None and _drawn(probe) != drawn:
            return self._stack_drawn(state, command, events, wish)
        return command, events

    def _stack_dealt(
        self,
        state: TableState | None,
        command: cmd.TableCommand,
        events: list[ev.TableEvent],
        dealt: ev.CardsDealt,
        wish: str,
    ) -> tuple[cmd.TableCommand, list[ev.TableEvent]]:
        """The command deals with its own seed: decide candidates, read their deal."""
        assert state is not None
        settings = state.settings
        want = WISHES[wish]
        if want(list(dealt.cards.values()), settings):
            return command, events
        number = state.hand_number  # the deal's hand: this one, or one started before it
        for e in events[: events.index(dealt)]:
            if isinstance(e, ev.HandStarted):
                number = e.number
        n = len(dealt.cards)
        key = ("dealt", wish, _options(wish, settings), number, dealt.deal, n)
        for seed in self._candidates(key, number, dealt.deal):
            screened = None
            if self.screen:  # half the cost of deciding, while it agrees with the decider
                screened = deal_for(seed, state.table_id, number, dealt.deal, n)
                if not want(screened, settings):
                    continue
            stacked = replace(command, seed=seed)
            new = decide(state, stacked)  # the same command: accepted with any seed
            deal = first_deal(new)
            assert deal is not None and deal.deal == dealt.deal
            hands = list(deal.cards.values())
            if screened is not None and screened != hands:
                self.screen = False  # this deal is not the plain deck of the command's seed
            if want(hands, settings):
                self.found[key] = seed
                return stacked, new
        self.found[key] = None
        return command, events

    def _stack_drawn(
        self,
        state: TableState | None,
        command: cmd.TableCommand,
        events: list[ev.TableEvent],
        wish: str,
    ) -> tuple[cmd.TableCommand, list[ev.TableEvent]]:
        """The command draws the seed of a deal to come: predict that deal for candidates."""
        after = fold(events) if state is None else _folded(state, events)
        settings = after.settings
        want = WISHES[wish]
        number, deal, seats = _next_deal(after)
        client_seeds = {
            seat: s.client_seed
            for seat in sorted(seats)
            if (s := after.seats[seat]) is not None and getattr(s, "client_seed", "")
        }
        n = max(2, len(seats))
        mix = tuple(client_seeds.items())
        key = ("drawn", wish, _options(wish, settings), number, deal, n, mix)
        for seed in self._candidates(key, number, deal):
            if not want(deal_for(seed, after.table_id, number, deal, n, client_seeds), settings):
                continue
            stacked = replace(command, seed=seed)
            new = decide(state, stacked)
            if _drawn(new) == seed.hex():  # drawn as the command's first seed: as predicted
                self.found[key] = seed
                return stacked, new
            break  # the command drew after dealing (a derived seed): not predictable here
        self.found.setdefault(key, None)
        return command, events

    def _candidates(self, key: tuple[object, ...], number: int, deal: int) -> Iterator[bytes]:
        """A seed found before for this key first (None: searched in vain), then the search.
        Seeds differ by the deal's hand and deal numbers, so one table never reuses one."""
        if key in self.found:
            cached = self.found[key]
            if cached is None:
                return
            self.tries += 1
            yield cached
        for i in range(MAX_TRIES):
            self.tries += 1
            yield hashlib.sha256(f"stacked:{number}:{deal}:{i}".encode()).digest()


def _options(wish: str, settings: TableSettings) -> object:
    return settings.scoring if wish == "tie" else None  # the others name cards only


def _folded(state: TableState, events: list[ev.TableEvent]) -> TableState:
    for e in events:
        state = evolve(state, e)
    return state


def _next_deal(state: TableState) -> tuple[int, int, list[int]]:
    """(hand number, deal number, seats) of the deal a seed drawn now would make, as things
    stand: a declared svara's deal for the tied, else the next hand for the eligible."""
    hand = state.hand
    if hand is not None and hand.phase == "svara_join":
        return hand.number, hand.deal + 1, list(hand.tied)
    return state.hand_number + 1, 1, [s.seat for s in state.eligible_seats()]
