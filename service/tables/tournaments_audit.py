"""The audit of a tournament's standings from its own events: the chain of its stream, each
elimination against the table's hand where that stack reached 0, the ante levels recomputed
by the schedule's rule (`levels`) from its own hands and their settle times (each settle time
against the table's `hand_settled`), places 1..N once each, and the prizes against the pool
by the prize table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from events.store.base import ChainBroken
from events.tournament import (
    AnyTournamentEvent,
    HandRecorded,
    LevelRaised,
    PlayerEliminated,
    TournamentFinished,
    TournamentSettings,
    TournamentStarted,
    decode_tournament_event,
)
from service.game.tournament.levels import levels_due
from service.game.tournament.state import fold, prize_amounts, prize_table
from service.tables.facade import JSON, ServiceError
from service.tables.streams import Streams
from service.tables.tournaments import TournamentStore
from service.tables.tournaments_manager import SettledHand, hands_after


async def audit_tournament(t: TournamentStore, streams: Streams, tournament_id: str) -> JSON:
    stored = await t.store.read(t.stream(tournament_id))
    if not stored:
        raise ServiceError(404, "tournament_not_found", f"no tournament {tournament_id!r}")
    events = [decode_tournament_event(e.data) for e in stored]
    state = fold(events)
    assert state is not None
    checks: dict[str, Any] = {}
    try:
        await t.store.verify(t.stream(tournament_id))
        checks["chain"] = {"ok": True}
    except ChainBroken as broken:
        checks["chain"] = {"ok": False, "version": broken.version, "reason": broken.reason}
    settled: dict[int, SettledHand] = {}
    if state.table_id is not None:
        table = await t.store.read(streams.table(state.table_id))
        settled = {h.version: h for h in hands_after(table)}
    hands = {v: h.stacks for v, h in settled.items()}
    wrong = []
    for e in events:
        if isinstance(e, PlayerEliminated):
            after = hands.get(e.table_version, {})
            earlier = [v for v in hands if v < e.table_version]
            before = hands[max(earlier)] if earlier else {e.user_id: state.settings.stack}
            if after.get(e.user_id) != 0 or before.get(e.user_id, 0) == 0:
                wrong.append({"user_id": e.user_id, "table_version": e.table_version})
    checks["eliminations"] = {"ok": not wrong, "wrong": wrong}
    checks["levels"] = levels_check(state.settings, events, settled)
    n = len(state.players)
    places = sorted(state.places.values())
    over = state.status == "finished"
    checks["places"] = {"ok": not over or places == list(range(1, n + 1))}
    if over:
        collected = sum(e.amount for e in state.entries.values())
        expected = prize_amounts(collected, prize_table(state.settings, n), state.places)
        ok = expected == state.prizes and sum(state.prizes.values()) == collected
        checks["prizes"] = {"ok": ok, "pool": collected}
    verified = all(c["ok"] for c in checks.values())
    standings = sorted(
        ({"user_id": u, "name": state.entries[u].name if u in state.entries else str(u),
          "place": p, "prize": state.prizes.get(u, 0)} for u, p in state.places.items()),
        key=lambda r: int(str(r["place"])),
    )
    listed = [{"version": s.version, "type": event_type_of(e), "hash": s.hash}
              for s, e in zip(stored, events, strict=True)]
    return {"verified": verified, "checks": checks, "standings": standings, "events": listed}


def levels_check(
    s: TournamentSettings, events: Sequence[AnyTournamentEvent], settled: dict[int, SettledHand]
) -> dict[str, Any]:
    """Every `level_raised` the rule gives, in order, and no other; by time, each hand's
    settle time must be the one the table's store recorded (else a level could be moved)."""
    finished = {e.table_version for e in events if isinstance(e, TournamentFinished)}
    started_at, level, hands = 0.0, 1, 0
    expected: list[tuple[int, int, int]] = []
    times = []
    for e in events:
        if isinstance(e, TournamentStarted):
            started_at = e.started_at
        elif isinstance(e, HandRecorded):
            hands += 1
            table = settled.get(e.table_version)
            if s.minutes_per_level > 0 and (table is None or table.at != e.settled_at):
                times.append({"table_version": e.table_version, "settled_at": e.settled_at})
            if e.table_version in finished:
                continue  # the last hand: nothing is dealt after it
            for up in levels_due(s, level=level, hands=hands, started_at=started_at,
                                 settled_at=e.settled_at):
                expected.append((up, s.antes[up - 1], hands))
                level = up
    recorded = [(e.level, e.ante, e.after_hands) for e in events if isinstance(e, LevelRaised)]
    wrong = [{"level": r[0], "ante": r[1], "after_hands": r[2]}
             for r in recorded if r not in expected]
    missing = [{"level": x[0], "ante": x[1], "after_hands": x[2]}
               for x in expected if x not in recorded]
    ok = recorded == expected and not times
    return {"ok": ok, "wrong": wrong, "missing": missing, "settle_times": times}


def event_type_of(event: Any) -> str:
    tag = type(event).__struct_config__.tag
    return str(tag)
