"""Buying in again after losing the stack (`TableService.rebuy`) on the real Redis: the same
seat, chips from the wallet, every chip accounted for; refused while there is no reason."""

from __future__ import annotations

import uuid

import pytest

from service.game.settings import TableSettings
from service.tables.facade import ServiceError
from tests.service.conftest import Factory, FakeClock
from tests.service.helpers import assert_conserved, make_users

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
