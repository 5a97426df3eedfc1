"""A player's last 7 days on real Redis, hand by hand: the UTC days from 6 days before today
(the reader's clock) to today, summed with `pot` and `best` as maxima; older hands count
all time only; the day hashes expire by themselves, and no weekly player hash is written."""

from __future__ import annotations

import datetime as dt

from service.tables.stats.counters import DAY_KEPT, Counters
from service.tables.stats.reads import StatsReads
from tests.support.clock import FakeClock
from tests.support.stats_lines import Table, line

DAY = 86400
TODAY = dt.datetime(2026, 12, 2, tzinfo=dt.UTC).timestamp()  # a Wednesday, 00:00 UTC
NOON = TODAY + DAY / 2
A, B = 7101, 7102


async def test_a_hand_8_days_ago_counts_all_time_but_not_in_the_last_7_days(
    counters: Counters,
) -> None:
    table = Table(counters)
    await table.hand_of(NOON - 8 * DAY, line(A, 70, won=True, best=33), line(B, -70))
    await table.hand_of(NOON - 3600, line(A, -5), line(B, 5, won=True, best=21))
    stats = await StatsReads(counters, FakeClock(NOON)).player(A)
    assert stats["all"] == {"hands": 2, "won": 1.0, "net": 65, "biggest_pot": 70, "svaras": 0,
                            "svaras_won": 0, "best_score": 33, "win_rate": 0.5}
    assert stats["last_7_days"] == {"hands": 1, "won": 0.0, "net": -5, "biggest_pot": 0,
                                    "svaras": 0, "svaras_won": 0, "best_score": 0,
                                    "win_rate": 0.0}
    assert stats["week"] == stats["last_7_days"]  # the deprecated alias, the same figures
    other = await StatsReads(counters, FakeClock(NOON)).player(B)
    assert other["last_7_days"]["won"] == 1.0 and other["last_7_days"]["best_score"] == 21


async def test_hands_on_three_days_sum_with_pot_and_best_as_maxima(counters: Counters) -> None:
    table = Table(counters)
    await table.hand_of(TODAY - 6 * DAY - 0.001, line(A, 500, won=True, best=34))  # day -7
    await table.hand_of(TODAY - 6 * DAY, line(A, 120, won=True, best=25))  # day -6, 00:00
    await table.hand_of(TODAY - 3 * DAY + 50, line(A, -30), line(B, 30, won=True))
    await table.hand_of(TODAY - 3 * DAY + 60, line(A, 50, won=True, best=31))
    await table.hand_of(NOON, line(A, 40, won=True, best=30), line(B, -40))
    clock = FakeClock(NOON)
    reads = StatsReads(counters, clock)
    stats = await reads.player(A)
    assert stats["last_7_days"] == {"hands": 4, "won": 3.0, "net": 180, "biggest_pot": 120,
                                    "svaras": 0, "svaras_won": 0, "best_score": 31,
                                    "win_rate": 0.75}
    assert stats["all"]["hands"] == 5 and stats["all"]["best_score"] == 34
    assert stats["week"] == stats["last_7_days"]
    clock.now = TODAY + DAY - 0.001  # the window still ends today...
    assert (await reads.player(A))["last_7_days"]["hands"] == 4
    clock.now = TODAY + DAY  # ...and tomorrow day -6 has left it
    assert (await reads.player(A))["last_7_days"] == {
        "hands": 3, "won": 2.0, "net": 60, "biggest_pot": 50, "svaras": 0, "svaras_won": 0,
        "best_score": 31, "win_rate": 0.6667}


async def test_day_hashes_expire_and_no_weekly_player_hash_is_kept(counters: Counters) -> None:
    table = Table(counters)
    await table.hand_of(NOON - 2 * DAY, line(A, 10, won=True), line(B, -10))
    await table.hand_of(NOON, line(A, 10, won=True), line(B, -10))
    client, keys = counters.client, counters.keys
    for user in (A, B):
        for day in ("2026-11-30", "2026-12-02"):
            ttl = await client.ttl(keys.player("0", user, day))
            assert DAY_KEPT - 60 < ttl <= DAY_KEPT, (user, day, ttl)
        assert await client.ttl(keys.player("0", user)) == -1  # all time: kept
    held = sorted([k.decode()[len(keys.base):] async for k in client.scan_iter(
        match=keys.generation_glob("0"))])
    assert held == ["0:b:2026-W49:g", "0:b:all:g", "0:bm:2026-W49:g", "0:bm:all:g", "0:cp",
                    f"0:d:2026-11-30:p:{A}", f"0:d:2026-11-30:p:{B}",
                    f"0:d:2026-12-02:p:{A}", f"0:d:2026-12-02:p:{B}",
                    f"0:p:{A}", f"0:p:{B}"]
