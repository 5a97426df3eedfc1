"""Sit & Go tournaments through the service on real Redis: registration and its refusals,
a 4-player tournament played to the end (eliminations, ante levels, prizes to the wallets,
chips conserved after every step, every hand and the standings audited), unregistering and
the fill timeout refunding every buy-in."""

from __future__ import annotations

import json
import random
import uuid
from typing import Any

import pytest

from events.tournament import TournamentSettings
from service import verify
from service.tables import bots
from service.tables.facade import ServiceError, User
from service.tables.service import TableService
from tests.support import fair_node as node
from tests.support.clock import FakeClock
from tests.support.service_play import assert_conserved, make_users
from tests.support.services import Factory

SETTINGS = TournamentSettings(
    seats=4, buy_in=100, stack=30, antes=(5, 10, 15), hands_per_level=2, fill_seconds=60
)


async def _play(service: TableService, clock: FakeClock, tid: str, users: list[User]) -> None:
    """Players act with the practice-bot strategy (or go all in); when nobody may act the
    clock jumps to the deadline. The manager advances after every step; conservation is
    checked after every step."""
    rng = random.Random(3)
    manager = service.tournaments.manager
    for _ in range(3000):
        await manager.catch_up()
        t = await service.tournaments.get(tid)
        await assert_conserved(service, users, [], [tid])
        if t["status"] == "finished":
            _, state = await service.tournaments.store.load(tid)
            assert state is not None
            if state.paid:
                return
            continue
        table_id = t["table_id"]
        assert table_id is not None
        for user in users:
            view = await service.view(user, table_id)
            choice = bots.choose(view, rng)
            if choice is not None:
                await service.act(
                    user, table_id, action_id=uuid.uuid4().hex, type=choice[0], amount=choice[1]
                )
                break
        else:
            loaded = await service.repo.load(table_id)
            assert loaded.state is not None
            deadline = loaded.state.deadline
            assert deadline is not None, "stuck: nobody may act and no deadline"
            clock.now = max(clock.now, deadline)
            await service.driver.fire(table_id)
    raise AssertionError("the tournament did not finish")


async def _one_tournament(
    service: TableService, clock: FakeClock
) -> tuple[list[User], str, dict[str, Any], str, int]:
    """Four of five users play a Sit & Go to its end, every step checked; (users, the
    tournament's id, the finished tournament, its table, how many hands it took)."""
    users = make_users(5)
    tid = await service.tournaments.create(users[0], SETTINGS)
    for user in users[:3]:
        await service.tournaments.register(user, tid)
    with pytest.raises(ServiceError) as twice:
        await service.tournaments.register(users[0], tid)
    assert (twice.value.status, twice.value.code) == (409, "already_registered")
    await assert_conserved(service, users, [], [tid])
    started = await service.tournaments.register(users[3], tid)  # the last seat starts it
    assert started["status"] == "running" and started["table_id"]
    with pytest.raises(ServiceError) as late:
        await service.tournaments.register(users[4], tid)
    assert (late.value.status, late.value.code) == (409, "tournament_started")
    with pytest.raises(ServiceError) as leave:
        await service.tournaments.unregister(users[0], tid)
    assert (leave.value.status, leave.value.code) == (409, "tournament_started")
    _, wallet4 = await service.bank.load(users[4].id)
    assert wallet4.balance == wallet4.granted and not wallet4.reserved  # untouched

    await _play(service, clock, tid, users)

    done = await service.tournaments.get(tid)
    places = sorted(p["place"] for p in done["players"])
    assert places == [1, 2, 3, 4]
    winner = next(p for p in done["players"] if p["place"] == 1)
    assert winner["prize"] == 400  # under 6 players: 100% of 4 x 100
    for user in users[:4]:
        _, w = await service.bank.load(user.id)
        expected = 1000 - 100 + (400 if user.id == winner["user_id"] else 0)
        assert w.balance == expected and not w.tables, (user.id, w)
    audit = await service.tournaments.audit(tid)
    assert audit["verified"], audit["checks"]
    assert [s["place"] for s in audit["standings"]] == [1, 2, 3, 4]
    table_id = done["table_id"]
    loaded = await service.repo.load(table_id)
    assert loaded.state is not None
    return users, tid, done, table_id, loaded.state.hand_number


async def test_four_players_play_to_the_end(services: Factory, clock: FakeClock) -> None:
    service = await services()
    # The deals are random: now and then a tournament ends before a hand is dealt at a risen
    # ante (two all-ins in the first hands), which the rest of this test reads; such a one
    # is played again.
    for _ in range(8):
        users, tid, done, table_id, hands = await _one_tournament(service, clock)
        exports = [await service.export(table_id, n) for n in range(1, hands + 1)]
        if {d["settings"]["ante"] for d in exports} != {SETTINGS.antes[0]}:
            break
    else:
        raise AssertionError("eight tournaments in a row ended before the ante rose")
    winner = next(p for p in done["players"] if p["place"] == 1)
    loaded = await service.repo.load(table_id)
    assert loaded.state is not None and loaded.state.hand_number >= 3
    assert done["level"] > 1  # the ante rose on the way
    for number in range(1, loaded.state.hand_number + 1):
        hand_audit = await service.audit(table_id, number)
        assert hand_audit["verified"], (number, hand_audit)
        # the offline verifier reads the same hand from its export, ante levels included,
        # and tells the same story as the server's transcript
        doc = exports[number - 1]
        exported = verify.load(json.dumps(doc))
        report = verify.verify(exported)
        assert report.ok, (number, verify.render(exported, report))
        english = await service.transcript(None, table_id, number, "en")
        assert english == verify.transcript(exported), number
    assert {d["settings"]["ante"] for d in exports} != {SETTINGS.antes[0]}  # a level rose
    verdicts = node.run(
        "const out = []; for (const doc of arg) out.push((await fair.verifyExport(doc)).ok);"
        " return out;",
        exports,
    )
    assert verdicts == [True] * len(exports), verdicts  # and so does the browser's
    # a busted player cannot buy back in, and the refusal moves no chip
    loser = next(u for u in users[:4] if u.id != winner["user_id"])
    with pytest.raises(ServiceError) as rebuy:
        await service.rebuy(loser, table_id, 30)
    assert rebuy.value.code == "tournament_table", rebuy.value
    _, w = await service.bank.load(loser.id)
    assert w.balance == 900 and not w.reserved
    # the manager running again changes nothing: every step is keyed
    version = done["version"]
    await service.tournaments.manager.catch_up()
    assert (await service.tournaments.get(tid))["version"] == version
    await assert_conserved(service, users, [], [tid])


async def test_refusals_change_nothing(services: Factory) -> None:
    service = await services(starting_grant=50)
    users = make_users(2)
    tid = await service.tournaments.create(users[0], SETTINGS)
    before = await service.tournaments.get(tid)
    with pytest.raises(ServiceError) as poor:
        await service.tournaments.register(users[0], tid)
    assert (poor.value.status, poor.value.code) == (422, "insufficient_chips")
    _, w = await service.bank.load(users[0].id)
    assert w.balance == 50 and not w.reserved
    assert await service.tournaments.get(tid) == before
    with pytest.raises(ServiceError) as bad:
        await service.tournaments.create(users[0], TournamentSettings(
            seats=3, buy_in=10, stack=30, antes=(5,), hands_per_level=1, prizes=(60, 30)
        ))
    assert (bad.value.status, bad.value.code) == (400, "invalid_settings")
    with pytest.raises(ServiceError) as missing:
        await service.tournaments.register(users[0], "nope")
    assert missing.value.status == 404


async def test_unregister_and_fill_timeout_refund(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(3)
    tid = await service.tournaments.create(users[0], SETTINGS)
    for user in users:
        await service.tournaments.register(user, tid)
    await service.tournaments.unregister(users[0], tid)
    _, w0 = await service.bank.load(users[0].id)
    assert w0.balance == 1000 and not w0.tables
    with pytest.raises(ServiceError) as again:
        await service.tournaments.unregister(users[0], tid)
    assert (again.value.status, again.value.code) == (409, "not_registered")
    await assert_conserved(service, users, [], [tid])
    await service.tournaments.manager.catch_up()  # not due yet: nothing happens
    assert (await service.tournaments.get(tid))["status"] == "registering"
    clock.advance(61)
    await service.tournaments.manager.catch_up()
    assert (await service.tournaments.get(tid))["status"] == "cancelled"
    for user in users:
        _, w = await service.bank.load(user.id)
        assert w.balance == 1000 and not w.tables and not w.reserved
    await assert_conserved(service, users, [], [tid])
    listed = await service.tournaments.list()
    assert any(t["tournament_id"] == tid and t["status"] == "cancelled"
               for t in listed["tournaments"])


async def test_reconciler_completes_a_registration_whose_completion_was_lost(
    services: Factory, clock: FakeClock
) -> None:
    """A crash between the tournament's `player_registered` and the wallet's completion:
    the reconciler completes the buy-in (the chips are in the pool), never releases it."""
    from service.game.tournament import decider as td
    from service.tables.tournaments import wallet_table

    service = await services()
    user = make_users(1)[0]
    tid = await service.tournaments.create(user, SETTINGS)
    await service.bank.open(user.id)
    transfer_id = await service.transfers.reserve(user, wallet_table(tid), SETTINGS.buy_in)
    await service.tournaments.store.execute(
        tid,
        lambda: td.Register(user_id=user.id, name="p", transfer_id=transfer_id,
                            amount=SETTINGS.buy_in, now=clock.now),
        action_id=f"register:{transfer_id}",
    )
    clock.advance(3600)  # long past the reservation's expiry and grace
    await service.reconcile()
    _, w = await service.bank.load(user.id)
    assert not w.reserved and w.balance == 1000 - SETTINGS.buy_in
    assert w.tables == [wallet_table(tid)]
    await assert_conserved(service, [user], [], [tid])


async def test_a_started_tournament_table_is_not_in_the_lobby_and_its_view_says_so(
    services: Factory, clock: FakeClock
) -> None:
    service = await services()
    users = make_users(4)
    tid = await service.tournaments.create(users[0], SETTINGS)
    waiting = await service.tournaments.get(tid)
    assert waiting["fill_by"] == clock.now + SETTINGS.fill_seconds
    assert waiting["prize_table"] == [100] and waiting["ante"] == 5 and waiting["pool"] == 0
    for user in users:
        started = await service.tournaments.register(user, tid)
    table_id = started["table_id"]
    assert started["pool"] == 400 and started["settings"]["turn_seconds"] == 15
    listed = await service.list_tables(limit=100)
    assert table_id not in [t["table_id"] for t in listed["tables"]]
    view = await service.view(users[0], table_id)
    assert view["tournament"] == {"tournament_id": tid, "level": 1, "next_ante": None}
    row = next(r for r in (await service.tournaments.list())["tournaments"]
               if r["tournament_id"] == tid)
    assert row["prize_table"] == [100] and row["fill_by"] == waiting["fill_by"]


@pytest.mark.parametrize(("seats", "paid"), [(5, [505]), (6, [394, 212])])
async def test_the_default_prize_table_pays_the_pool_to_the_chip(
    services: Factory, clock: FakeClock, seats: int, paid: list[int]
) -> None:
    """The default table (docs/API.md): 100% to the winner under 6 players, 65/35 from 6,
    each place's share floored and the odd chips to the winner. Buy-ins of 101: a pool of
    505, or 606 = 393.9 + 212.1, so 394 and 212. Every wallet ends with exactly that;
    chips are conserved after every step (`_play`)."""
    service = await services()
    users = make_users(seats)
    settings = TournamentSettings(seats=seats, buy_in=101, stack=20, antes=(5, 10, 20),
                                  hands_per_level=1)
    tid = await service.tournaments.create(users[0], settings)
    for user in users[:3]:
        await service.tournaments.register(user, tid)
    table = [100] if seats < 6 else [65, 35]
    # what it will pay is known before it fills: it starts only with every seat taken
    assert (await service.tournaments.get(tid))["prize_table"] == table
    row = next(r for r in (await service.tournaments.list())["tournaments"]
               if r["tournament_id"] == tid)
    assert row["prize_table"] == table
    for user in users[3:]:
        started = await service.tournaments.register(user, tid)
    assert started["status"] == "running" and started["pool"] == 101 * seats
    await _play(service, clock, tid, users)
    done = await service.tournaments.get(tid)
    assert done["prize_table"] == table
    by_place = {p["place"]: p for p in done["players"]}
    assert sorted(by_place) == list(range(1, seats + 1))
    assert [by_place[p]["prize"] for p in range(1, len(paid) + 1)] == paid
    assert [by_place[p]["prize"] for p in range(len(paid) + 1, seats + 1)] == [0] * (
        seats - len(paid))
    for place, player in by_place.items():
        _, w = await service.bank.load(player["user_id"])
        prize = paid[place - 1] if place <= len(paid) else 0
        assert (w.balance, w.tables, w.reserved) == (1000 - 101 + prize, [], {}), place
    audit = await service.tournaments.audit(tid)
    assert audit["verified"], audit["checks"]
    assert {s["place"]: s["prize"] for s in audit["standings"]} == {
        place: p["prize"] for place, p in by_place.items()}
    totals = await assert_conserved(service, users, [], [tid])
    assert totals["pools"] == 0 and totals["wallets"] == totals["granted"]
