"""What the table machine reached: counts of phases, actions and outcomes, by name.

The property tests are only as good as the states they visit. `Coverage.observe` counts, for
each accepted command, the rules it exercised (a svara join window, a split with odd chips,
three 7s at showdown under each `natural_777` ...); `TARGETS` names the ones the Hypothesis
table machine must reach in every run, so a change of strategies that stops reaching one fails
the test instead of silently testing less.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from events import table as ev
from service.game.state import TableState
from tests.support.oracle import is_joker_777, is_joker_pair, is_natural_777

TARGETS = (
    "phase blind",
    "phase betting",
    "phase svara_join",
    "phase settled",
    "blind",
    "raise",
    "call",
    "look",
    "join_svara",
    "skip_svara",
    "svara timeout",
    "svara deal",
    "split",
    "split with odd chips",
    "showdown",
    "capped showdown",
    "natural 777 shown, natural_777=34",
    "natural 777 shown, natural_777=30",
    "natural 777 shown, natural_777=33",
    "joker 777 shown, natural_777=34",
    "joker 777 shown, natural_777=30",
    "joker 777 shown, natural_777=33",
    "joker pair shown, joker_pair=sum",
    "joker pair shown, joker_pair=substitute",
    "turn timeout",
    "sat_out",
    "sit_in",
    "left mid-hand",
    "rake",
    "won by folds",
)

# Counted and reported, but rare enough that a run may miss them (scenario tests cover them).
REPORTED = ("svara deal tied again", "svara walkover")


class Coverage:
    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def observe(
        self, before: TableState | None, events: Sequence[ev.TableEvent], after: TableState
    ) -> None:
        """Count what one accepted command did: `before` and `after` are the states around it."""
        c = self.counts
        settings = after.settings
        hand_before = before.hand if before is not None else None
        deals = 0
        for e in events:
            if isinstance(e, ev.CardsDealt):
                deals += 1
                if deals > 1:
                    c["svara deal tied again"] += 1  # one command dealt again after a tie
            elif isinstance(e, ev.BlindPlaced):
                c["blind"] += 1
            elif isinstance(e, ev.Raised):
                c["raise"] += 1
            elif isinstance(e, ev.Called):
                c["call"] += 1
            elif isinstance(e, ev.Looked):
                c["look"] += 1
            elif isinstance(e, ev.SvaraJoined):
                c["join_svara"] += 1
            elif isinstance(e, ev.SvaraSkipped):
                c["skip_svara"] += 1
            elif isinstance(e, ev.TimedOut):
                c["svara timeout" if e.action == "skip_svara" else "turn timeout"] += 1
            elif isinstance(e, ev.SvaraDealStarted):
                c["svara deal"] += 1
            elif isinstance(e, ev.PlayerSatOut):
                c["sat_out"] += 1
            elif isinstance(e, ev.PlayerReturned):
                c["sit_in"] += 1
            elif isinstance(e, ev.PlayerLeft):
                if (
                    hand_before is not None
                    and hand_before.phase != "settled"
                    and any(p.user_id == e.user_id for p in hand_before.players)
                ):
                    c["left mid-hand"] += 1
            elif isinstance(e, ev.ShowdownHappened):
                c["showdown"] += 1
                if e.capped:
                    c["capped showdown"] += 1
                for h in e.hands.values():
                    if is_natural_777(h.cards):
                        c[f"natural 777 shown, natural_777={settings.natural_777}"] += 1
                    if is_joker_777(h.cards):
                        c[f"joker 777 shown, natural_777={settings.natural_777}"] += 1
                    if is_joker_pair(h.cards):
                        c[f"joker pair shown, joker_pair={settings.joker_pair}"] += 1
            elif isinstance(e, ev.HandSettled):
                if e.rake > 0:
                    c["rake"] += 1
                if e.reason == "split":
                    c["split"] += 1
                    if (e.pot - e.rake) % len(e.winners):
                        c["split with odd chips"] += 1
                elif e.reason == "svara_walkover":
                    c["svara walkover"] += 1
                elif e.reason == "last_player":
                    c["won by folds"] += 1
        phase_before = before.phase if before is not None else None
        if after.phase != phase_before:
            c[f"phase {after.phase}"] += 1

    def missing(self) -> list[str]:
        return [t for t in TARGETS if not self.counts[t]]

    def report(self) -> str:
        names = [*TARGETS, *sorted({*self.counts, *REPORTED} - set(TARGETS))]
        width = max(map(len, names))
        return "\n".join(f"  {name:<{width}}  {self.counts[name]}" for name in names)
