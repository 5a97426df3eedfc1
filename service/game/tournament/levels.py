"""The ante schedule: which levels a settled hand raises the tournament to. One rule for the
decider and the audit, so the audit recomputes exactly what the decider recorded.

By hands: level k+1 from the hand after the (k * hands_per_level)-th hand. By time: level k
lasts `minutes_per_level` minutes from the start; the level rises at the first hand settled
at or after `started_at + k * minutes * 60` (the hand's own settle time, never a wall clock),
taking effect from the next hand, as in poker. A long hand that outlasts several boundaries
raises through each of them at once.
"""

from __future__ import annotations

from events.tournament import TournamentSettings


def levels_due(
    s: TournamentSettings, *, level: int, hands: int, started_at: float, settled_at: float
) -> list[int]:
    """The levels above `level` reached by the hand that brings the count to `hands`,
    settled at `settled_at` (in order; [] when none)."""
    top = len(s.antes)
    reached = level
    if s.minutes_per_level > 0:
        period = s.minutes_per_level * 60
        while reached < top and settled_at >= started_at + reached * period:
            reached += 1
    elif s.hands_per_level > 0 and hands % s.hands_per_level == 0 and reached < top:
        reached += 1
    return list(range(level + 1, reached + 1))


def next_level_at(s: TournamentSettings, *, level: int, started_at: float) -> float | None:
    """When a time schedule's next boundary falls (the first hand settled from then raises
    the ante); None by hands or at the last level."""
    if s.minutes_per_level <= 0 or level >= len(s.antes):
        return None
    return started_at + level * s.minutes_per_level * 60
