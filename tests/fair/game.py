"""Tables played through the service for the fairness proofs, and both verdicts on a hand:
the server's audit and the offline verifier's, side by side."""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass
from typing import Any

from events.codec import decode_table_event
from events.store.redis_store import RedisEventStore
from events.table import Called, CardsDealt, HandSettled, HandStarted, Looked, ShowdownHappened
from service import verify
from service.game.legal import legal_actions
from service.tables.facade import User
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.service_play import make_users, play_hands, seated_table


@dataclass
class Played:
    service: TableService
    table_id: str
    users: list[User]
    hand: int  # a settled hand, not the last, with a call, a look, a showdown and seeds
    versions: dict[str, int]  # the versions of its events by type (the first of each)

    @property
    def store(self) -> RedisEventStore:
        store = self.service.store
        assert isinstance(store, RedisEventStore)
        return store

    @property
    def stream(self) -> str:
        return self.service.streams.table(self.table_id)


async def played(service: TableService, clock: FakeClock, seed: int = 3) -> Played:
    """A table of three with players' seeds where some hand (not the last) has every kind of
    event the proofs tamper with."""
    users = make_users(3)
    table_id = await seated_table(service, users)
    await service.set_client_seed(users[0], table_id, "alice-seed")
    await service.set_client_seed(users[2], table_id, "7f3a")
    rng = random.Random(seed)
    for hands in range(2, 30):
        await play_hands(service, clock, table_id, users, hands=hands, rng=rng)
        found = await _candidate(service, table_id, hands - 1)
        if found is not None:
            await play_hands(service, clock, table_id, users, hands=hands + 1, rng=rng)
            return Played(service, table_id, users, hands - 1, found)
    raise AssertionError("no hand with a call, a look and a showdown in 30")


async def _candidate(service: TableService, table_id: str, hand: int) -> dict[str, int] | None:
    stored = await service.store.read(service.streams.table(table_id))
    versions: dict[str, int] = {}
    inside = False
    for s in stored:
        e = decode_table_event(s.data)
        if isinstance(e, HandStarted) and e.number == hand:
            inside = True
        if not inside:
            continue
        kind = type(e).__struct_config__.tag
        assert isinstance(kind, str)
        versions.setdefault(kind, s.version)
        if isinstance(e, CardsDealt) and not e.client_seeds:
            return None
        if isinstance(e, HandSettled):
            break
    wanted = {t.__struct_config__.tag for t in (Called, Looked, ShowdownHappened)}
    return versions if wanted <= versions.keys() else None


def first_failures(results: list[dict[str, Any]]) -> dict[str, int]:
    """check -> version of its earliest failure."""
    return {r["check"]: r["version"] for r in results if not r["ok"]}


async def both_verdicts(
    p: Played, hand: int | None = None
) -> tuple[dict[str, int], dict[str, int]]:
    """(the server audit's failing checks, the offline verifier's), each check -> version."""
    hand = p.hand if hand is None else hand
    audit = await p.service.audit(p.table_id, hand)
    exported = await p.service.export(p.table_id, hand)
    report = verify.verify(verify.load(json.dumps(exported)))
    server = first_failures(audit["results"])
    assert audit["verified"] == (not server)
    return server, first_failures(report.results())


async def play_randomly(
    service: TableService, clock: FakeClock, table_id: str, users: list[User], hands: int,
    rng: random.Random,
) -> None:  # fmt: skip
    """Random legal moves (looks, blinds, raises, folds, svara joins), a timeout now and
    then, and players changing their seeds, until hand `hands` is settled."""
    for _ in range(60 * hands + 200):
        state = (await service.repo.load(table_id)).state
        assert state is not None
        if state.hand_number > hands or (state.hand_number == hands and state.phase == "settled"):
            return  # (with no pause between hands, the settling action deals the next)
        seated = [u for u in users if state.seat_of(u.id) is not None]
        if rng.random() < 0.04:
            user = rng.choice(seated)
            seed = rng.choice(["a", "b-2", "C_3", uuid.uuid4().hex])
            await service.set_client_seed(user, table_id, seed)
            continue
        hand = state.hand
        if hand is not None and hand.phase == "svara_join" and rng.random() < 0.3:
            gone = state.seats[rng.choice(hand.tied)]  # a walkover, when one contender is left
            assert gone is not None
            await service.leave(next(u for u in users if u.id == gone.user_id), table_id)
            continue
        away = [u for u in users if u not in seated]
        if away and (hand is None or hand.phase == "settled" or rng.random() < 0.1):
            await service.seat(away[0], table_id, state.settings.buy_in_range[0])
            continue
        moves = [(u, a) for u in users for a in legal_actions(state, u.id)]
        waiting = [m for m in moves if m[1].type != "look"]
        if state.deadline is not None and (not waiting or rng.random() < 0.03):
            clock.now = max(clock.now, state.deadline)
            await service.driver.fire(table_id)
            continue
        if not moves:
            return  # fewer than two players can pay the ante: this table is done
        user, action = rng.choice(moves)
        amount = action.amount
        if action.min is not None and action.max is not None:
            amount = rng.choice([action.min, action.min, rng.randint(action.min, action.max)])
        await service.act(user, table_id, action_id=uuid.uuid4().hex, type=action.type,
                          amount=amount)  # fmt: skip
        clock.advance(rng.choice([0.0, 0.5, 1.25]))
    raise AssertionError(f"hand {hands} did not settle: {state}")
