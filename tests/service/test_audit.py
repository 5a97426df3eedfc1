"""The audit of a hand, snapshots and the live feed, on the real Redis."""

from __future__ import annotations

import asyncio
import hashlib

import msgspec
import pytest

from events.codec import decode_table_event
from events.table import CardsDealt, HandSettled, HandStarted
from service.game.deck import shuffled_deck
from service.game.state import encode_state
from service.tables import audit as audit_module
from service.tables.service import TableService
from tests.service.conftest import Factory, FakeClock
from tests.service.helpers import make_users, play_hands, seated_table

pytestmark = pytest.mark.redis


async def _played(services: Factory, clock: FakeClock, hands: int) -> tuple[TableService, str]:
    service = await services()
    users = make_users(3)
    table_id = await seated_table(service, users)
    await play_hands(service, clock, table_id, users, hands=hands)
    return service, table_id


async def test_audit_of_settled_hands(services: Factory, clock: FakeClock) -> None:
    service, table_id = await _played(services, clock, hands=2)
    for hand in (1, 2):
        report = await service.audit(table_id, hand)
        assert report["verified"] and all(report["checks"].values()), report["checks"]
        assert report["hand"] == hand and report["table_id"] == table_id
        assert report["events"][0]["type"] == "hand_started"
        assert report["events"][-1]["type"] == "hand_settled"
        assert all(len(e["hash"]) == 64 for e in report["events"])
        versions = [e["version"] for e in report["events"]]
        assert versions == list(range(versions[0], versions[-1] + 1))
        for deal in report["deals"]:
            seed = bytes.fromhex(deal["seed"])
            assert hashlib.sha256(seed).hexdigest() == deal["commitment"]
            assert deal["deck"] == shuffled_deck(seed, table_id, hand, deal["deal"])
            assert deal["algorithm"] == "hmac-sha256-fy-v1"
        msgspec.json.encode(report)  # plain JSON all the way down
        assert set(report["result"]) == {"winner_seats", "pot", "scores"}


async def test_audit_detects_a_wrong_card_or_payout(services: Factory, clock: FakeClock) -> None:
    """The checks are computed, not read: altered events fail them."""
    service, table_id = await _played(services, clock, hands=1)
    stored = await service.store.read(service.streams.table(table_id))
    events = [decode_table_event(e.data) for e in stored]
    start = next(i for i, e in enumerate(events) if isinstance(e, HandStarted))
    hand = events[start:]
    _, ok = audit_module._check_decks(table_id, 1, hand)
    assert ok
    swapped = []
    for event in hand:
        if isinstance(event, CardsDealt):
            seats = sorted(event.cards)
            cards = dict(event.cards)
            cards[seats[0]], cards[seats[1]] = cards[seats[1]], cards[seats[0]]
            event = CardsDealt(deal=event.deal, cards=cards)
        swapped.append(event)
    assert not audit_module._check_decks(table_id, 1, swapped)[1]
    before = audit_module.fold_onto(None, events[:start])
    assert before is not None and audit_module._check_chips(before, hand)
    settled = hand[-1]
    assert isinstance(settled, HandSettled)
    richer = msgspec.structs.replace(settled, pot=settled.pot + 1)
    assert not audit_module._check_chips(before, [*hand[:-1], richer])


async def test_audit_refusals(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    for hand, status, code in [(1, 409, "hand_in_progress"), (2, 404, "hand_not_found")]:
        with pytest.raises(Exception) as info:
            await service.audit(table_id, hand)
        assert (info.value.status, info.value.code) == (status, code)  # type: ignore[attr-defined]
    with pytest.raises(Exception) as info:
        await service.audit("0123456789abcdef", 1)
    assert info.value.status == 404  # type: ignore[attr-defined]


async def test_snapshot_at_each_settled_hand_and_a_bad_one_is_ignored(
    services: Factory, clock: FakeClock
) -> None:
    service, table_id = await _played(services, clock, hands=2)
    stream = service.streams.table(table_id)
    stored = await service.store.read(stream)
    settled = [e.version for e in stored if isinstance(decode_table_event(e.data), HandSettled)]
    snapshot = await service.store.load_snapshot(stream)
    assert snapshot is not None and snapshot.version >= settled[-1]
    live = (await service.repo.load(table_id)).state
    await service.store.save_snapshot(stream, snapshot.version, b"not a state")
    fresh = await services()
    assert (await fresh.repo.load(table_id)).state == live
    # a snapshot that decodes but disagrees with the log fails the audit's replay check
    assert live is not None
    wrong = msgspec.structs.replace(live, rake_total=live.rake_total + 1)
    assert snapshot.version == settled[-1]
    await service.store.save_snapshot(stream, snapshot.version, encode_state(wrong))
    report = await fresh.audit(table_id, 2)
    assert report["checks"]["replay"] is False and not report["verified"]


async def test_subscribe_catches_up_then_goes_live(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    version, past = await service.events(users[0], table_id, 0)
    received: list[dict[str, object]] = []

    async def listen() -> None:
        async for event in service.subscribe(users[0], table_id, 2):
            received.append(event)
            if len(received) >= version - 2 + 1:
                return

    task = asyncio.create_task(listen())
    await asyncio.sleep(0.1)
    turn = (await service.view(None, table_id))["hand"]["turn"]
    seats = {u.id: (await service.view(u, table_id))["you"]["seat"] for u in users}
    on_turn = next(u for u in users if seats[u.id] == turn)
    await service.act(on_turn, table_id, action_id="live", type="look")
    await asyncio.wait_for(task, 5)
    assert [e["version"] for e in received] == list(range(3, version + 2))
    assert received[: version - 2] == past[2:]
    # the other player's cards never reach this viewer
    for event in received:
        if event["type"] == "cards_dealt":
            assert all(c is None for c in event["data"]["cards"].values())  # type: ignore[index]
