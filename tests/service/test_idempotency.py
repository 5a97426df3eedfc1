"""A retried action_id gets its first answer on every path, now that the service no longer looks
it up before deciding: accepted again (the append answers `duplicate`), refused, or stale
`expected_version` (the repo looks it up before answering "nothing appended")."""

from __future__ import annotations

from typing import Any

from service.tables.facade import User
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.service_play import make_users, seated_table
from tests.support.services import Factory


async def _on_turn(
    service: TableService, users: list[User], table_id: str
) -> tuple[User, dict[str, Any]]:
    """Who is on turn, and a legal move that keeps the hand going (type, amount)."""
    for user in users:
        legal = {a["type"]: a for a in (await service.view(user, table_id))["you"]["legal"]}
        for kind in ("call", "blind", "pass"):
            if kind in legal:
                rule = legal[kind]
                return user, {"type": kind, "amount": rule.get("amount", rule.get("min"))}
    raise AssertionError("nobody is on turn")


async def test_retries_get_the_first_answer_on_every_path(
    services: Factory, clock: FakeClock
) -> None:
    service = await services()
    users = make_users(3)
    table_id = await seated_table(service, users)
    clock.advance(1)
    await service.driver.fire(table_id)
    stream = service.streams.table(table_id)
    player, move = await _on_turn(service, users, table_id)
    version = await service.store.version(stream)
    first = await service.act(player, table_id, action_id="p1", expected_version=version, **move)
    # stale expected_version, but the action landed: its first answer, not a 409
    assert await service.act(
        player, table_id, action_id="p1", expected_version=version, **move
    ) == first
    # the next player acts; a retry of p1 is now refused by the rules (not your turn) ...
    other, other_move = await _on_turn(service, users, table_id)
    assert other != player
    moved = await service.act(other, table_id, action_id="o1", **other_move)
    assert await service.act(player, table_id, action_id="p1", **move) == first
    # ... and a retry of o1 from a second process (cold cache, decided afresh) as well
    second = await services()
    assert await second.act(other, table_id, action_id="o1", **other_move) == moved
    assert await service.store.version(stream) == moved
