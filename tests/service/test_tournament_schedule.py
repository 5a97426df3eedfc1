"""The ante by minutes through the service on real Redis (the test's clock): the level stays
while hands settle before the boundary, rises with the first hand settled after it, and the
table deals the next hand with the new ante; the audit recomputes the levels and flags one
written that the schedule does not give."""

from __future__ import annotations

from events.codec import decode_table_event
from events.table import AntesPaid
from events.tournament import LevelRaised, TournamentSettings, encode_tournament_event
from service.tables.facade import User
from service.tables.service import TableService
from service.tournament_audit_cli import render
from tests.support.clock import FakeClock
from tests.support.service_play import make_users, play_hands
from tests.support.services import Factory

MINUTES = TournamentSettings(
    seats=3, buy_in=10, stack=5000, antes=(5, 10, 20), minutes_per_level=10, fill_seconds=60
)


async def _started(service: TableService) -> tuple[str, str, float, list[User]]:
    users = make_users(3)
    tid = await service.tournaments.create(users[0], MINUTES)
    for user in users:
        started = await service.tournaments.register(user, tid)
    _, state = await service.tournaments.store.load(tid)
    assert state is not None and state.status == "running"
    return tid, started["table_id"], state.started_at, users


async def test_the_ante_rises_after_the_clock_passes_the_boundary(
    services: Factory, clock: FakeClock
) -> None:
    service = await services()
    tid, table_id, started_at, players = await _started(service)
    manager = service.tournaments.manager

    await play_hands(service, clock, table_id, players, 1, conserve=False)
    await manager.catch_up()
    t = await service.tournaments.get(tid)
    assert clock.now < started_at + 600
    assert (t["level"], t["ante"]) == (1, 5)  # settled before the boundary: no change
    assert t["settings"]["minutes_per_level"] == 10 and t["settings"]["hands_per_level"] == 0
    assert t["next_level_at"] == started_at + 600

    clock.now = started_at + 600  # the boundary: the next hand to settle raises the level
    await play_hands(service, clock, table_id, players, 2, conserve=False)
    await manager.catch_up()
    t = await service.tournaments.get(tid)
    assert (t["level"], t["ante"]) == (2, 10), t
    assert t["next_level_at"] == started_at + 1200
    view = await service.view(players[0], table_id)
    assert view["tournament"] == {"tournament_id": tid, "level": 2, "next_ante": 10}

    await play_hands(service, clock, table_id, players, 3, conserve=False)
    stored = await service.repo.store.read(service.repo.streams.table(table_id))
    antes = [e.ante for e in map(decode_table_event, (s.data for s in stored))
             if isinstance(e, AntesPaid)]
    assert antes == [5, 5, 10]  # from the hand after the one that crossed the boundary
    audit = await service.tournaments.audit(tid)
    assert audit["verified"] and audit["checks"]["levels"]["ok"], audit["checks"]


async def test_the_audit_flags_a_level_the_schedule_does_not_give(
    services: Factory, clock: FakeClock
) -> None:
    service = await services()
    tid, table_id, _, players = await _started(service)
    await play_hands(service, clock, table_id, players, 1, conserve=False)
    await service.tournaments.manager.catch_up()
    assert (await service.tournaments.audit(tid))["checks"]["levels"]["ok"]
    # a writer that raised the level too early: a well-chained event, a wrong fact
    t = service.tournaments.store
    version, state = await t.load(tid)
    assert state is not None and state.level == 1 and state.hands == 1
    forged = LevelRaised(level=2, ante=10, after_hands=1)
    result = await t.store.append(
        t.stream(tid), [encode_tournament_event(forged)], expected_version=version,
        action_id="forged", at=clock.now,
    )
    assert result.status == "appended"
    audit = await service.tournaments.audit(tid)
    assert audit["checks"]["chain"]["ok"]  # the chain holds: only the rule catches it
    levels = audit["checks"]["levels"]
    assert not audit["verified"] and not levels["ok"]
    assert levels["wrong"] == [{"level": 2, "ante": 10, "after_hands": 1}]
    assert "levels        FAILED" in render(tid, audit)
