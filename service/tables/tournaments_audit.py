"""The audit of a tournament's standings from its own events: the chain of its stream, each
elimination against the table's hand where that stack reached 0, places 1..N once each, and
the prizes against the pool by the prize table."""

from __future__ import annotations

from typing import Any

from events.codec import decode_table_event
from events.store.base import ChainBroken
from events.tournament import PlayerEliminated, decode_tournament_event
from service.game.tournament.state import fold, prize_amounts, prize_table
from service.tables.facade import JSON, ServiceError
from service.tables.streams import Streams
from service.tables.tournaments import TournamentStore
from service.tables.tournaments_manager import hands_after


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
    hands: dict[int, dict[int, int]] = {}
    if state.table_id is not None:
        table = await t.store.read(streams.table(state.table_id))
        for version, _, stacks, _ in hands_after([decode_table_event(e.data) for e in table], 1):
            hands[version] = stacks
    wrong = []
    for e in events:
        if isinstance(e, PlayerEliminated):
            after = hands.get(e.table_version, {})
            earlier = [v for v in hands if v < e.table_version]
            before = hands[max(earlier)] if earlier else {e.user_id: state.settings.stack}
            if after.get(e.user_id) != 0 or before.get(e.user_id, 0) == 0:
                wrong.append({"user_id": e.user_id, "table_version": e.table_version})
    checks["eliminations"] = {"ok": not wrong, "wrong": wrong}
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


def event_type_of(event: Any) -> str:
    tag = type(event).__struct_config__.tag
    return str(tag)
