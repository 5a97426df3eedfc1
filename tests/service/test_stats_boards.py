"""The stats counters on real Redis, hand by hand: the boards' ISO week turns at Monday
00:00 UTC (a profile's last 7 days do not; tests/service/test_stats_days.py),
equal nets rank by who reached them first, a hand applies once (and never into a generation
that is no longer the live one), and tournament hands stay off the chip boards."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import redis.asyncio as aioredis

from service.game.stats import WIN_UNIT, HandLine
from service.tables.facade import ServiceError
from service.tables.stats.counters import Counters
from service.tables.stats.reads import StatsReads
from tests.support.clock import FakeClock
from tests.support.stats_lines import Table, line

MONDAY = dt.datetime(2026, 11, 30, tzinfo=dt.UTC).timestamp()  # 00:00 UTC, week 49
A, B = 7001, 7002


async def test_the_week_turns_at_monday_midnight_utc(counters: Counters) -> None:
    table = Table(counters)
    await table.hand_of(MONDAY - 0.001, line(A, 30, won=True, best=34), line(B, -30))
    await table.hand_of(MONDAY, line(A, -10), line(B, 10, won=True))
    clock = FakeClock(MONDAY - 1)
    reads = StatsReads(counters, clock)
    sunday = await reads.player(A)
    assert sunday["last_7_days"]["hands"] == 1 and sunday["last_7_days"]["net"] == 30
    assert (await reads.board("week", None, A))["entries"][0]["user_id"] == A
    clock.now = MONDAY + 1
    monday = await reads.player(A)
    assert monday["all"] == {"hands": 2, "won": 1.0, "net": 20, "biggest_pot": 30, "svaras": 0,
                             "svaras_won": 0, "best_score": 34, "win_rate": 0.5}
    # the profile's last 7 days hold Sunday too; the week's board starts on Monday
    assert monday["last_7_days"] == monday["all"] == monday["week"]
    week = await reads.board("week", None, A)
    assert [(e["user_id"], e["net"]) for e in week["entries"]] == [(B, 10), (A, -10)]
    assert week["you"] == {"rank": 2, "net": -10}
    everything = await reads.board("all", None, B)
    assert [(e["user_id"], e["net"]) for e in everything["entries"]] == [(A, 20), (B, -20)]


async def test_equal_nets_rank_by_who_reached_them_first(counters: Counters) -> None:
    table, other = Table(counters), Table(counters, "t2")
    reads = StatsReads(counters, FakeClock(MONDAY + 3600))
    await table.hand_of(MONDAY + 10, line(A, 100, won=True), line(9, -100))
    await other.hand_of(MONDAY + 20, line(B, 100, won=True), line(8, -100))

    async def order() -> list[int]:
        return [e["user_id"] for e in (await reads.board("all", None, None))["entries"]][:2]

    assert await order() == [A, B]
    await table.hand_of(MONDAY + 30, line(A, 0), line(9, 0))  # the same net: still first
    assert await order() == [A, B]
    await table.hand_of(MONDAY + 40, line(A, -50), line(9, 50, won=True))
    await table.hand_of(MONDAY + 50, line(A, 50, won=True), line(9, -50))
    assert await order() == [B, A]  # A reached 100 again, after B


async def test_a_hand_applies_once_and_never_into_an_old_generation(
    counters: Counters,
) -> None:
    lines = [line(A, 5, won=True), line(B, -5)]
    assert await counters.apply("0", "t", (0, 0), (10, 1), lines, at=MONDAY, group=None,
                                chips=True) == 1
    assert await counters.apply("0", "t", (0, 0), (10, 1), lines, at=MONDAY, group=None,
                                chips=True) == 0  # the checkpoint moved: counted once
    await counters.client.set(counters.keys.gen, "3")
    assert await counters.apply("0", "t", (10, 1), (20, 2), lines, at=MONDAY, group=None,
                                chips=True) == -1
    await counters.client.set(counters.keys.gen, "0")
    stats = await StatsReads(counters, FakeClock(MONDAY)).player(A)
    assert stats["all"]["hands"] == 1 and stats["all"]["net"] == 5


async def test_tournament_hands_count_but_stay_off_the_chip_boards(counters: Counters) -> None:
    table = Table(counters)
    reads = StatsReads(counters, FakeClock(MONDAY))
    await table.hand_of(MONDAY, line(A, 0, won=True), line(B, 0), chips=False)
    assert (await reads.player(A))["all"]["won"] == 1.0
    assert (await reads.board("all", None, A)) == {"period": "all", "group": None,
                                                   "entries": [], "you": None}


async def test_group_boards_hold_only_the_groups_hands(counters: Counters) -> None:
    reads = StatsReads(counters, FakeClock(MONDAY))
    await Table(counters, "g").hand_of(MONDAY, line(A, 40, won=True), line(B, -40), group=-5)
    await Table(counters, "x").hand_of(MONDAY, line(A, -15), line(B, 15, won=True))
    group = await reads.board("week", -5, B)
    assert [(e["user_id"], e["net"]) for e in group["entries"]] == [(A, 40), (B, -40)]
    assert group["group"] == -5 and group["you"] == {"rank": 2, "net": -40}
    top = await reads.board("week", None, B)
    assert [(e["user_id"], e["net"]) for e in top["entries"]] == [(A, 25), (B, -25)]
    assert await reads.board("week", -6, A) == {"period": "week", "group": -6,
                                                "entries": [], "you": None}


@pytest.mark.parametrize("bad", [0, True, 1.5, "7", 2**53])
async def test_bad_ids_and_periods_are_400_and_unknown_players_404(
    counters: Counters, bad: object
) -> None:
    reads = StatsReads(counters, FakeClock(MONDAY))
    for call in (reads.player(bad), reads.board("week", bad, None), reads.board(bad, None, 1)):
        with pytest.raises(ServiceError) as refused:
            await call
        assert refused.value.status == 400
    with pytest.raises(ServiceError) as unknown:
        await reads.player(123456)
    assert (unknown.value.status, unknown.value.code) == (404, "unknown_player")


async def test_the_order_tables_are_applied_in_changes_nothing(
    redis_url: str, unique: str
) -> None:
    """Live, hands are applied as their tables settle them (interleaved); a rebuild applies
    table after table: both must end with the same figures, names and tie-breaks."""
    hands = {  # table -> its hands (at, lines), in its own order
        "x": [(MONDAY + 10, [line(A, 20, won=True), line(B, -20)]),
              (MONDAY + 40, [line(A, 0), line(B, 0)]),
              (MONDAY + 50, [line(A, -20), line(B, 20, won=True)])],
        "y": [(MONDAY + 20, [line(A, 0), line(9, 0)]),
              (MONDAY + 30, [HandLine(user_id=A, name="Renamed", won=WIN_UNIT, net=20, pot=20,
                                      svaras=1, svaras_won=1, best=31), line(9, -20)])],
    }
    interleaved = sorted(((at, t, i) for t, hs in hands.items() for i, (at, _) in enumerate(hs)))
    answers: list[list[Any]] = []
    client = aioredis.Redis.from_url(redis_url)
    try:
        for order in (interleaved, [(0.0, t, i) for t in ("x", "y") for i in range(len(hands[t]))]):
            counters = Counters(client, f"t{unique}{len(answers)}:")
            tables = {t: Table(counters, t) for t in hands}
            for _, t, i in order:
                at, lines = hands[t][i]
                assert await tables[t].hand_of(at, *lines) == 1
            reads = StatsReads(counters, FakeClock(MONDAY + 60))
            answers.append([await reads.player(u) for u in (A, B, 9)]
                           + [await reads.board(p, None, A) for p in ("week", "all")])
    finally:
        await client.aclose()
    assert answers[0] == answers[1]
    assert answers[0][0]["name"] == "P7001"  # the latest hand's (at x, MONDAY + 50)
    assert [e["user_id"] for e in answers[0][3]["entries"]] == [A, B, 9]
