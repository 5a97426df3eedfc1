"""Buying in again after losing the stack (`TableService.rebuy`) on the real Redis: the same
seat, chips from the wallet, every chip accounted for; refused while there is no reason."""

from __future__ import annotations

import uuid

import pytest

from service.game.settings import TableSettings
from service.tables.facade import ServiceError
from tests.support.clock import FakeClock
from tests.support.service_play import assert_conserved, make_users
from tests.support.services import Factory

pytestmark = pytest.mark.redis


async def refused(call: object, status: int, code: str) -> None:
    with pytest.raises(ServiceError) as info:
        await call  # type: ignore[misc]
    assert (info.value.status, info.value.code) == (status, code), info.value.message


async def test_a_busted_player_buys_in_again_at_the_same_seat(
    services: Factory, clock: FakeClock
) -> None:
    service = await services()
    users = make_users(3)
    settings = TableSettings(ante=10, min_buy_in=10, max_buy_in=1000, max_seats=3)
    table_id = await service.create_table(users[0], settings)
    # Both all in with the ante: the betting ends at once, one of them takes the 20.
    await service.seat(users[0], table_id, 10)
    view = await service.seat(users[1], table_id, 10)
    assert view["hand"]["phase"] == "settled"
    stacks = {s["user_id"]: s for s in view["seats"]}
    loser = next(u for u in users[:2] if stacks[u.id]["stack"] == 0)
    winner = next(u for u in users[:2] if u is not loser)
    seat = stacks[loser.id]["seat"]

    await refused(service.rebuy(winner, table_id, 100), 409, "not_busted")
    await refused(service.rebuy(users[2], table_id, 100), 403, "not_seated")
    await refused(service.rebuy(loser, table_id, 5), 422, "buy_in_out_of_range")
    await refused(service.rebuy(loser, table_id, 1000), 422, "insufficient_funds")  # 990 left
    await refused(service.rebuy(loser, table_id, 0), 400, "bad_request")
    assert (await service.me(loser))["balance"] == 990  # the refusals changed nothing

    view = await service.rebuy(loser, table_id, 300)
    assert view["you"]["seat"] == seat
    me = next(s for s in view["seats"] if s["user_id"] == loser.id)
    assert me["stack"] == 300 and not me["sat_out"]
    assert (await service.me(loser))["balance"] == 690
    clock.advance(settings.next_hand_seconds)  # after the pause, both can pay the ante
    await service.driver.fire(table_id)
    view = await service.view(loser, table_id)
    me = next(s for s in view["seats"] if s["user_id"] == loser.id)
    assert view["hand"]["number"] == 2 and me["in_hand"] and me["stack"] == 300 - 10
    await assert_conserved(service, users, [table_id])


async def test_no_rebuy_while_still_in_the_hand(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(2)
    table_id = await service.create_table(users[0], TableSettings(ante=10))
    await service.seat(users[0], table_id, 100)
    view = await service.seat(users[1], table_id, 100)
    by_seat = {s["seat"]: u for s in view["seats"] for u in users if u.id == s["user_id"]}

    async def act(kind: str, amount: int | None = None) -> dict[str, object]:
        v = await service.view(users[0], table_id)
        player = by_seat[v["hand"]["turn"]]
        await service.act(player, table_id, action_id=uuid.uuid4().hex, type=kind, amount=amount)
        return {"player": player}

    await act("pass")  # the blind round ends; the same player opens with everything
    opener = (await act("raise", 90))["player"]
    assert (await service.view(opener, table_id))["you"]["seat"] is not None
    await refused(service.rebuy(opener, table_id, 100), 409, "hand_in_progress")
    await assert_conserved(service, users, [table_id])


async def test_a_refused_rebuy_above_the_maximum_keeps_the_seat_and_the_wallet(
    services: Factory,
) -> None:
    """A buy-in the wallet covers but the table's maximum does not: refused with nothing
    changed anywhere, whichever layer refuses it (the service asks the rules first; the
    stand-up asks them again, so no refusal can come after the player stood up)."""
    service = await services()
    users = make_users(2)
    settings = TableSettings(ante=10, min_buy_in=10, max_buy_in=500, max_seats=3)
    table_id = await service.create_table(users[0], settings)
    await service.seat(users[0], table_id, 10)
    view = await service.seat(users[1], table_id, 10)
    loser = next(u for u in users if next(
        s for s in view["seats"] if s["user_id"] == u.id)["stack"] == 0)
    before = await service.view(loser, table_id)
    version = await service.version(table_id)
    assert (await service.me(loser))["balance"] == 990  # covers 600

    await refused(service.rebuy(loser, table_id, 600), 422, "buy_in_out_of_range")
    assert await service.version(table_id) == version  # not a single table event
    assert await service.view(loser, table_id) == before  # same seat, same stack
    me = await service.me(loser)
    assert me["balance"] == 990 and me["tables"] == [table_id]
    await assert_conserved(service, users, [table_id])

    view = await service.rebuy(loser, table_id, 500)  # the maximum itself is fine
    assert view["you"]["seat"] == before["you"]["seat"]
    assert (await service.me(loser))["balance"] == 490
    await assert_conserved(service, users, [table_id])


async def test_the_chips_left_at_the_table_count_towards_a_rebuy(services: Factory) -> None:
    """Busted with 5 chips (below the ante of 10) and 985 in the wallet: a rebuy of 990 needs
    both, so those 5 come back to the wallet before the new buy-in leaves it."""
    service = await services()
    users = make_users(2)
    table_id = await service.create_table(
        users[0], TableSettings(ante=10, min_buy_in=10, max_buy_in=1000)
    )
    await service.seat(users[0], table_id, 15)
    view = await service.seat(users[1], table_id, 15)
    by_seat = {s["seat"]: u for s in view["seats"] for u in users if u.id == s["user_id"]}
    opener = by_seat[view["hand"]["turn"]]
    await service.act(opener, table_id, action_id=uuid.uuid4().hex, type="pass")
    await service.act(opener, table_id, action_id=uuid.uuid4().hex, type="fold")
    view = await service.view(opener, table_id)
    seat = view["you"]["seat"]
    assert next(s for s in view["seats"] if s["user_id"] == opener.id)["stack"] == 5
    assert (await service.me(opener))["balance"] == 985

    await refused(service.rebuy(opener, table_id, 991), 422, "insufficient_funds")
    view = await service.rebuy(opener, table_id, 990)
    assert view["you"]["seat"] == seat
    assert next(s for s in view["seats"] if s["user_id"] == opener.id)["stack"] == 990
    assert (await service.me(opener))["balance"] == 0
    await assert_conserved(service, users, [table_id])
