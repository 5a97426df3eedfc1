"""The hand history (`TableService.hands`) on the real Redis: the last settled hands, newest
first, named and scored exactly as the events say, with nothing a player did not show."""

from __future__ import annotations

import random

import pytest

from events.codec import decode_table_event
from events.table import HandSettled, HandStarted, ShowdownHappened, SvaraStarted, TimedOut
from service.tables import history
from service.tables.facade import ServiceError
from tests.support.clock import FakeClock
from tests.support.http_player import cards_in
from tests.support.service_play import make_users, play_hands, seated_table
from tests.support.services import Factory

pytestmark = pytest.mark.redis



async def test_last_hands_newest_first_as_the_events_say(
    services: Factory, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = await services()
    users = make_users(4)
    table_id = await seated_table(service, users[:3])
    await play_hands(service, clock, table_id, users[:3], hands=3, rng=random.Random(11))
    # a leaver and a newcomer in the same seat: each hand names whoever sat there then
    await service.leave(users[2], table_id)
    await service.seat(users[3], table_id, 200)
    await play_hands(service, clock, table_id, users, hands=6,
                     rng=random.Random(12))

    stored = await service.store.read(service.streams.table(table_id))
    events = [(s, decode_table_event(s.data)) for s in stored]
    settled = {e.number: (s, e) for s, e in events if isinstance(e, HandSettled)}
    started = {e.number: e for _, e in events if isinstance(e, HandStarted)}
    names_now = {u.id: u.name for u in users}

    got = await service.hands(table_id, 4)
    assert [h["number"] for h in got] == sorted(settled, reverse=True)[:4]
    for hand in got:
        item, done = settled[hand["number"]]
        assert hand["settled_at"] == item.at and hand["pot"] == done.pot
        assert hand["winners"] == list(done.winners) and hand["reason"] == done.reason
        assert hand["amounts"] == {str(k): v for k, v in sorted(done.amounts.items())}
        assert set(hand["names"]) >= {str(seat) for seat in started[hand["number"]].participants}
        assert set(hand["names"].values()) <= set(names_now.values())
        in_hand = [e for s, e in events
                   if started_at(events, hand["number"]) <= s.version <= item.version]
        shown = [e for e in in_hand if isinstance(e, ShowdownHappened)]
        assert [d["deal"] for d in hand["showdowns"]] == [e.deal for e in shown]
        for listed, event in zip(hand["showdowns"], shown, strict=True):
            assert listed["hands"] == {str(seat): {"cards": list(h.cards), "score": h.score}
                                       for seat, h in sorted(event.hands.items())}
        # nothing but shown cards: no dealt or looked-at card reaches the history
        assert cards_in(hand) == {c for e in shown for h in e.hands.values() for c in h.cards}
        assert len(hand["svaras"]) == sum(isinstance(e, SvaraStarted) for e in in_hand)
        assert len(hand["timeouts"]) == sum(isinstance(e, TimedOut) for e in in_hand)

    # The newcomer's hands name the newcomer, the earlier ones the leaver, in the same seat.
    seat = 2
    leaver, newcomer = users[2].name, users[3].name
    full = await service.hands(table_id, 6)
    before = {h["names"].get(str(seat)) for h in full if h["number"] <= 3}
    after = {h["names"].get(str(seat)) for h in full if h["number"] >= 5}
    assert leaver in before <= {leaver, None} and newcomer in after <= {newcomer, None}
    assert any(h["showdowns"] for h in full)  # shown hands were checked above

    # A tiny first window (widened until every name is known) gives the same answer.
    monkeypatch.setattr(history, "FIRST_WINDOW", 3)
    assert await service.hands(table_id, 6) == full
    assert await service.hands(table_id, 1) == full[:1]


def started_at(events: list[tuple[object, object]], number: int) -> int:
    for s, e in events:
        if isinstance(e, HandStarted) and e.number == number:
            return int(s.version)  # type: ignore[attr-defined]
    raise AssertionError(f"no hand {number}")


async def test_history_refuses_a_bad_limit_or_table(services: Factory) -> None:
    service = await services()
    users = make_users(2)
    table_id = await seated_table(service, users)
    assert await service.hands(table_id, 10) == []  # hand 1 is still being played
    for limit in (0, 51):
        with pytest.raises(ServiceError) as info:
            await service.hands(table_id, limit)
        assert info.value.status == 400
    with pytest.raises(ServiceError) as info:
        await service.hands("no-such-table", 5)
    assert info.value.status == 404
