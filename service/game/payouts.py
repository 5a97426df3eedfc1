"""What a settled pot pays, and what joining a svara costs.

See docs/RULES.md "A hand, step by step", steps 8 and 9.

One pure module for the rules engine (`flow.settle`, `flow.start_svara`) and the server's audit
(`service.tables.audit_checks`), so the audit checks a payout against the very arithmetic the
game uses. The offline verifiers (`service/verify.py`, `js/fair.js`) keep independent copies on
purpose; the committed corpus of exports (docs/verifier-corpus) holds all of them to it.
"""

from __future__ import annotations

from collections.abc import Sequence

from events.settings import SvaraJoinFee


def rake_of(pot: int, rake_percent: int) -> int:
    """The house's share of a settled pot: floor(pot * rake% / 100), taken once per hand (a
    svara's pot at its end)."""
    return pot * rake_percent // 100


def payout(pot: int, rake_percent: int, winners: Sequence[int]) -> tuple[int, dict[int, int]]:
    """(rake, seat -> chips won) for `winners` in playing order (clockwise from the dealer's
    left): the pot less the rake shared equally, the chips that do not divide one each to the
    first winners in that order."""
    rake = rake_of(pot, rake_percent)
    share, odd = divmod(pot - rake, max(1, len(winners)))
    return rake, {seat: share + (1 if i < odd else 0) for i, seat in enumerate(winners)}


def svara_fee(rule: SvaraJoinFee, ante: int, pot: int, tied: int) -> int:
    """What a player not tied pays to join a svara: the ante, or (`pot_share`, docs/RULES.md's
    default) floor(pot / k) for k tied players."""
    return ante if rule == "ante" else pot // max(1, tied)
