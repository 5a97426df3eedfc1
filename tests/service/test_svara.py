"""A svara through the service: a tie at showdown opens the join window, the timer closes it,
the svara is dealt from a new committed deck, and the audit verifies every deal."""

from __future__ import annotations

import uuid

import pytest

from events.store import open_store
from service.game.deck import deal_hands, mix_of, shuffled_deck_v2
from service.game.scoring import score
from service.game.settings import TableSettings
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.service_play import assert_conserved, make_users, play_hands

pytestmark = pytest.mark.redis


def tying_seed(table_id: str, hand: int) -> bytes:
    """A seed whose first deal (v2, no players' seeds) gives the first two players dealt
    (left of the dealer) the same score."""
    for i in range(100_000):
        seed = i.to_bytes(32, "big")
        deck = shuffled_deck_v2(seed, table_id, hand, 1, mix_of({}))
        first, second, _ = (score(h) for h in deal_hands(deck, 3))
        if first == second:
            return seed
    raise AssertionError("no tying seed found")


async def test_svara_join_window_times_out_and_the_svara_is_dealt(
    redis_url: str, unique: str, clock: FakeClock
) -> None:
    chosen = [bytes(32)]
    service = TableService(
        open_store(redis_url),
        clock=clock,
        namespace=f"t{unique}:",
        seeds=lambda n: chosen[0],
    )
    try:
        users = make_users(3)
        settings = TableSettings(ante=10, max_seats=3, turn_seconds=30, svara_join_seconds=20)
        table_id = await service.create_table(users[0], settings)
        by_seat = {}
        for seat, user in enumerate(users[:2]):  # two players: hand 1 starts at once
            await service.seat(user, table_id, 300)
            by_seat[seat] = user

        async def act(seat: int, kind: str, amount: int | None = None) -> None:
            user = by_seat[seat]
            await service.act(user, table_id, action_id=uuid.uuid4().hex, type=kind, amount=amount)

        state = (await service.repo.load(table_id)).state
        assert state is not None and state.hand is not None and state.hand.turn is not None
        await act(state.hand.turn, "pass")  # the blind round ends; the same player opens...
        state = (await service.repo.load(table_id)).state
        assert state is not None and state.hand is not None and state.hand.turn is not None
        chosen[0] = tying_seed(table_id, 2)  # drawn for hand 2 by the command settling hand 1
        await act(state.hand.turn, "fold")  # ...or folds: hand 1 is over
        await service.seat(users[2], table_id, 300)  # seat 2, during the pause
        by_seat[2] = users[2]
        state = (await service.repo.load(table_id)).state
        assert state is not None and state.phase == "settled" and state.next_dealer is not None
        dealer = state.next_dealer
        first, second = (dealer + 1) % 3, (dealer + 2) % 3
        assert state.next_hand_at is not None
        clock.now = state.next_hand_at
        await service.driver.fire(table_id)  # hand 2 is dealt from the tying seed
        state = (await service.repo.load(table_id)).state
        assert state is not None and state.hand is not None and state.hand.number == 2
        assert [p.seat for p in state.hand.players] == [first, second, dealer]

        await act(first, "pass")  # the blind round ends
        view = await service.view(by_seat[first], table_id)
        opening = next(a for a in view["you"]["legal"] if a["type"] == "raise")
        await act(first, "raise", opening["min"])
        await act(second, "call")
        await act(dealer, "fold")
        state = (await service.repo.load(table_id)).state
        assert state is not None and state.hand is not None
        assert state.phase == "svara_join", state.phase
        assert state.hand.eligible == (dealer,)
        clock.now = state.deadline  # nobody answers: the timer closes the window
        await service.driver.fire(table_id)
        state = (await service.repo.load(table_id)).state
        assert state is not None and state.hand is not None
        assert state.hand.deal == 2 and state.phase in ("blind", "betting")
        await play_hands(service, clock, table_id, users, hands=2)
        report = await service.audit(table_id, 2)
        assert report["verified"], report["checks"]
        assert len(report["deals"]) >= 2
        await assert_conserved(service, users, [table_id])
    finally:
        await service.store.close()
