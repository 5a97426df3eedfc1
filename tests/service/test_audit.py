"""The audit of a hand, snapshots and the live feed, on the real Redis."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import Sequence
from typing import Any

import msgspec
import pytest

from events.codec import decode_table_event
from events.store.redis_store import RedisEventStore
from events.table import CardsDealt, HandSettled
from service.game.deck import mix_of, shuffled_deck_v2
from service.game.state import encode_state
from service.tables import audit as audit_module
from service.tables.facade import FeedItem
from service.tables.service import TableService
from tests.support.clock import FakeClock
from tests.support.service_play import make_users, play_hands, seated_table
from tests.support.services import Factory
from tests.support.tamper import edit, tamper

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
            assert deal["algorithm"] == "hmac-sha256-fy-v2"
            assert deal["mix"] == mix_of({int(k): v for k, v in deal["client_seeds"].items()})
            assert deal["deck"] == shuffled_deck_v2(
                seed, table_id, hand, deal["deal"], deal["mix"]
            )
            # committed before the deal: a hand's first deal before the hand started, a svara
            # deal when the svara was declared (inside the hand, before its deal started)
            if deal["deal"] == 1:
                assert deal["published_at"] < report["events"][0]["version"]
            else:
                started = next(
                    e["version"] for e in report["events"]
                    if e["type"] == "svara_deal_started" and e["data"]["deal"] == deal["deal"]
                )
                assert deal["published_at"] < started
        msgspec.json.encode(report)  # plain JSON all the way down
        assert {"winner_seats", "pot", "scores"} <= set(report["result"])
        assert [r["check"] for r in report["results"]] == list(audit_module.CHECKS)
        assert all(r["ok"] for r in report["results"]) and report["failures"] == []


async def test_audit_detects_a_wrong_card_or_payout(services: Factory, clock: FakeClock) -> None:
    """The checks are computed, not read: altered events fail them, each naming its version
    (every kind of edit: tests/fair/test_tampering.py)."""
    service, table_id = await _played(services, clock, hands=2)
    store = service.store
    assert isinstance(store, RedisEventStore)
    stream = service.streams.table(table_id)
    stored = await store.read(stream)
    events = [decode_table_event(e.data) for e in stored]
    dealt = next(s.version for s, e in zip(stored, events, strict=True)
                 if isinstance(e, CardsDealt))  # fmt: skip
    settled = next(s.version for s, e in zip(stored, events, strict=True)
                   if isinstance(e, HandSettled))  # fmt: skip

    def swap_cards(d: dict[str, Any]) -> None:
        seats = sorted(d["cards"])
        d["cards"][seats[0]], d["cards"][seats[1]] = d["cards"][seats[1]], d["cards"][seats[0]]

    def richer(d: dict[str, Any]) -> None:
        d["pot"] += 1

    await tamper(store, stream, edit(dealt, swap_cards, rehash=True))
    await tamper(store, stream, edit(settled, richer, rehash=True))
    report = await service.audit(table_id, 1)
    assert not report["verified"] and report["checks"]["chain"]
    failed = {r["check"]: r["version"] for r in report["results"] if not r["ok"]}
    assert failed["deck"] == dealt and failed["chips"] == settled
    assert report["checks"]["deck"] is False and report["checks"]["chips"] is False


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
    assert snapshot.version == settled[-1] + 1  # the settlement and the next seed_drawn
    await service.store.save_snapshot(stream, snapshot.version, encode_state(wrong))
    report = await fresh.audit(table_id, 2)
    assert report["checks"]["replay"] is False and not report["verified"]


class _Received:
    """A feed sink that keeps each event as its viewer gets it."""

    def __init__(self, viewer: int) -> None:
        self.viewer = viewer
        self.events: list[dict[str, Any]] = []
        self.arrived = asyncio.Event()

    def deliver(self, items: Sequence[FeedItem]) -> None:
        self.events += [msgspec.json.decode(i.event_json(self.viewer)) for i in items]
        self.arrived.set()

    async def drained(self) -> None:
        await asyncio.sleep(0)

    async def until(self, count: int) -> None:
        async with asyncio.timeout(5):
            while len(self.events) < count:
                self.arrived.clear()
                await self.arrived.wait()


async def test_watch_catches_up_then_goes_live(services: Factory, clock: FakeClock) -> None:
    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    version, past = await service.events(users[0], table_id, 0)
    received = _Received(users[0].id)
    task = asyncio.create_task(service.watch(users[0], table_id, 2, received))
    try:
        await received.until(version - 2)  # the catch-up
        turn = (await service.view(None, table_id))["hand"]["turn"]
        seats = {u.id: (await service.view(u, table_id))["you"]["seat"] for u in users}
        on_turn = next(u for u in users if seats[u.id] == turn)
        await service.act(on_turn, table_id, action_id="live", type="look")
        await received.until(version - 2 + 1)  # and the live event
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert [e["version"] for e in received.events] == list(range(3, version + 2))
    assert received.events[: version - 2] == past[2:]
    # the other player's cards never reach this viewer
    for event in received.events:
        if event["type"] == "cards_dealt":
            assert all(c is None for c in event["data"]["cards"].values())


async def _showdown_hand(services: Factory) -> tuple[TableService, str]:
    """Two players see each other in hand 1 (the cheapest way: pass, the minimum raise,
    call; a tie plays its svara the same way) until it is settled by a showdown."""
    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    for _ in range(100):
        view = await service.view(users[0], table_id)
        if view["hand"]["phase"] == "settled":
            return service, table_id
        for user in users:
            legal = {a["type"]: a for a in (await service.view(user, table_id))["you"]["legal"]}
            kind = next((k for k in ("call", "pass", "raise") if k in legal), None)
            if kind is not None:
                amount = legal[kind].get("min") if kind == "raise" else None
                await service.act(
                    user, table_id, action_id=uuid.uuid4().hex, type=kind, amount=amount
                )
                break
    raise AssertionError("hand 1 was not settled in 100 steps")


async def _versions(service: TableService, table_id: str) -> dict[str, int]:
    """The version of the first event of each type in the table's log."""
    store = service.store
    assert isinstance(store, RedisEventStore)
    out: dict[str, int] = {}
    for stored in await store.read(service.streams.table(table_id)):
        out.setdefault(type(decode_table_event(stored.data)).__struct_config__.tag, stored.version)  # type: ignore[arg-type]
    return out


async def _failed(service: TableService, table_id: str) -> dict[str, int]:
    report = await service.audit(table_id, 1)
    assert not report["verified"]
    return {r["check"]: r["version"] for r in report["results"] if not r["ok"]}


async def test_audit_fails_scores_at_the_showdown_that_shows_a_wrong_score(
    services: Factory,
) -> None:
    """A shown score one more than its cards give (the chain rehashed over the edit): the
    `scores` check fails at that showdown; the cards, deck, chips and winner still agree
    (the winner follows from the cards, not from the score the event claims)."""
    service, table_id = await _showdown_hand(services)
    assert (await service.audit(table_id, 1))["verified"]
    showdown = (await _versions(service, table_id))["showdown"]

    def higher(d: dict[str, Any]) -> None:
        seat = sorted(d["hands"])[0]
        d["hands"][seat]["score"] += 1

    store = service.store
    assert isinstance(store, RedisEventStore)
    await tamper(store, service.streams.table(table_id), edit(showdown, higher, rehash=True))
    failed = await _failed(service, table_id)
    assert failed.get("scores") == showdown, failed
    assert not {"chain", "commitment", "seeds", "deck", "cards", "winner", "chips"} & set(failed)
    checks = (await service.audit(table_id, 1))["checks"]
    assert checks == {"chain": True, "deck": True, "chips": True, "replay": False}, checks


async def test_audit_fails_winner_at_a_settlement_paying_the_wrong_player(
    services: Factory,
) -> None:
    """The pot paid, whole, to the player the showdown made the loser (the chain rehashed):
    the chips still add up, and the `winner` check fails at the settlement."""
    service, table_id = await _showdown_hand(services)
    versions = await _versions(service, table_id)
    settled = versions["hand_settled"]

    def other_winner(d: dict[str, Any]) -> None:
        assert d["reason"] == "showdown" and len(d["winners"]) == 1, d
        winner = d["winners"][0]
        loser = 1 - winner
        d["winners"] = [loser]
        d["amounts"] = {str(loser): d["amounts"][str(winner)]}

    store = service.store
    assert isinstance(store, RedisEventStore)
    await tamper(store, service.streams.table(table_id), edit(settled, other_winner, rehash=True))
    failed = await _failed(service, table_id)
    assert failed.get("winner") == settled, failed
    assert "chips" not in failed and "scores" not in failed, failed
    assert (await service.audit(table_id, 1))["checks"]["replay"] is False
