"""The audit of one settled hand (docs/API.md "The audit of a hand"), from the stored events.

Nothing is taken on trust from a stored "verified" flag. The hand is checked event by event on
the server's own fold of the log (the rules engine's states), and every failure names the
check, the event version and the reason, with the same check names as the offline verifier
(`service/verify.py`, which shares no code with this module; tests hold the two to the same
verdicts):

- `chain`      the hash chain from version 1 through the hand's settlement (docs/CHAIN.md);
               a break later in the table's log is reported apart (`table_chain`);
- `commitment` each revealed seed hashes to the commitment restated at its deal and (v2) to
               the one published before the players' seeds were final;
- `seeds`      (v2) the players' seeds named at a deal are those recorded before it, and `mix`
               is their digest;
- `deck`       every dealt card is where the deck (v1 or v2) puts it;
- `cards`      every card looked at or shown is the one dealt;
- `scores`     shown scores follow from the cards and the table's scoring options;
- `winner`     the svara's tied players and the winners follow from the scores and folds;
- `chips`      antes, bets and fees add up to the pot, payout and rake to the pot, chips are
               conserved at every step and no stack goes below zero;
- `replay`     the log folds to a settled hand, and to the state the live path cached
               (the stored snapshot) where there is one.

The four booleans of docs/API.md "The audit of a hand" summarise them: `chain`; `deck`
(commitment, seeds, deck, cards); `chips`; `replay` (scores, winner, replay).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from events import table as ev
from events.codec import event_type
from events.store.base import ChainBroken, EventStore, StoredEvent
from events.table import TableEvent
from service.game.state import decode_state, encode_state
from service.tables.audit_checks import CHECKS, SUMMARY, check_log
from service.tables.export import build_export, decode_lenient
from service.tables.facade import JSON, ServiceError
from service.tables.repo import fold_onto

__all__ = ["CHECKS", "audit_hand", "export_hand", "load_log"]


def _data(event: TableEvent) -> dict[str, Any]:
    data = msgspec.to_builtins(event, str_keys=True)
    assert isinstance(data, dict)
    data.pop("type", None)
    return data


async def load_log(
    store: EventStore, stream: str, table_id: str
) -> tuple[list[StoredEvent], list[TableEvent | None]]:
    stored = await store.read(stream)
    if not stored:
        raise ServiceError(404, "table_not_found", f"no table {table_id!r}")
    events = decode_lenient(stored)
    if events[0] is None:
        raise ServiceError(422, "unreadable_log", "the table's first event is unreadable")
    return stored, events


async def export_hand(store: EventStore, stream: str, table_id: str, hand: int) -> JSON:
    stored, events = await load_log(store, stream, table_id)
    return build_export(table_id, hand, stored, events)


async def audit_hand(store: EventStore, stream: str, table_id: str, hand: int) -> JSON:
    stored, events = await load_log(store, stream, table_id)
    table_break: tuple[int, str] | None = None
    table_chain: JSON = {"ok": True}
    try:
        await store.verify(stream)
    except ChainBroken as exc:
        table_chain = {"ok": False, "version": exc.version, "reason": exc.reason}
        table_break = exc.version, exc.reason
    checked = check_log(table_id, hand, stored, events, table_break)
    findings, start, end = checked.findings, checked.start, checked.end
    # the settlement's own append ends with the next hand's `seed_drawn`: a snapshot taken
    # there is this hand's too
    upto = end + 1 if end + 1 < len(events) and isinstance(events[end + 1], ev.SeedDrawn) else end
    if not await _snapshot_agrees(store, stream, events, stored[upto].version):
        findings.fail("replay", stored[end].version, "the stored snapshot differs from the fold")

    results = findings.results()
    failed = {r["check"] for r in results if not r["ok"]}
    checks = {name: not failed.intersection(parts) for name, parts in SUMMARY.items()}
    settled = events[end]
    assert isinstance(settled, ev.HandSettled)
    in_hand = list(zip(stored[start : end + 1], events[start : end + 1], strict=True))
    showdowns = [e for e in events[start : end + 1] if isinstance(e, ev.ShowdownHappened)]
    scores = {str(s): h.score for s, h in showdowns[-1].hands.items()} if showdowns else {}
    return {
        "table_id": table_id,
        "hand": hand,
        "verified": not findings.failures,
        "checks": checks,
        "results": results,
        "failures": sorted(findings.failures, key=lambda f: (f["version"], f["check"])),
        "table_chain": table_chain,
        "deals": checked.deals,
        "events": [
            {
                "version": s.version,
                "type": event_type(e) if e is not None else "unreadable",
                "at": s.at,
                "data": _data(e) if e is not None else {},
                "hash": s.hash,
                "chain": s.chain,
            }
            for s, e in in_hand
        ],
        "result": {
            "winner_seats": list(settled.winners),
            "pot": settled.pot,
            "scores": scores,
            "amounts": {str(k): v for k, v in settled.amounts.items()},
            "rake": settled.rake,
            "reason": settled.reason,
        },
    }


async def _snapshot_agrees(
    store: EventStore, stream: str, events: Sequence[TableEvent | None], upto: int
) -> bool:
    """Replay from scratch equals the live path's cached state (the stored snapshot), where
    the snapshot lies at or before this hand's end."""
    snapshot = await store.load_snapshot(stream)
    if snapshot is None or snapshot.version > upto:
        return True
    try:
        cached = decode_state(snapshot.data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return True  # a snapshot is only a cache; an unreadable one is ignored everywhere
    prefix = events[: snapshot.version]
    if any(e is None for e in prefix):
        return False
    try:
        replayed = fold_onto(None, [e for e in prefix if e is not None])
    except (AssertionError, KeyError, IndexError, ValueError, TypeError):
        return False
    return replayed is not None and encode_state(replayed) == encode_state(cached)
