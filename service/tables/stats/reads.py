"""Reading the stats: a player's figures and a leaderboard page, as the API answers them
(docs/API.md, "Player stats and leaderboards"). Writes are `counters.Counters.apply`'s."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.game.stats import WIN_UNIT
from service.tables.facade import JSON, ServiceError
from service.tables.stats.counters import Counters, iso_week, last_days

TOP = 50
PERIODS = ("week", "all")
# JavaScript's safe integers: a Telegram id (user or chat) always fits.
_MAX_ID = 2**53 - 1
FIELDS = ("hands", "won", "net", "biggest_pot", "svaras", "svaras_won", "best_score")
WINDOW_DAYS = 7  # the profile's "last 7 days": today (UTC) and the 6 days before
_MAXIMA = (b"pot", b"best")
_SUMS = (b"hands", b"won", b"net", b"svaras", b"svaras_won")


def checked_id(value: object, what: str) -> int:
    """A user or chat id from a client: a nonzero integer within JavaScript's safe range."""
    if isinstance(value, bool) or not isinstance(value, int) or value == 0 or abs(value) > _MAX_ID:
        raise ServiceError(400, "invalid_parameter", f"{what} must be a nonzero integer id")
    return value


def checked_period(period: object) -> str:
    if period not in PERIODS:
        raise ServiceError(400, "invalid_parameter", "period must be 'week' or 'all'")
    assert isinstance(period, str)
    return period


def _summed(days: list[dict[bytes, bytes]]) -> dict[bytes, bytes]:
    """Day hashes added up as one: counts summed, `pot` and `best` the greatest."""
    total: dict[bytes, int] = {}
    for day in days:
        for field in _SUMS:
            total[field] = total.get(field, 0) + int(day.get(field, b"0"))
        for field in _MAXIMA:
            total[field] = max(total.get(field, 0), int(day.get(field, b"0")))
    return {field: str(value).encode() for field, value in total.items()}


def _figures(raw: dict[bytes, bytes]) -> JSON:
    def num(field: str) -> int:
        return int(raw.get(field.encode(), b"0"))

    hands, won = num("hands"), num("won")
    return {
        "hands": hands,
        "won": round(won / WIN_UNIT, 3),
        "net": num("net"),
        "biggest_pot": num("pot"),
        "svaras": num("svaras"),
        "svaras_won": num("svaras_won"),
        "best_score": num("best"),
        "win_rate": round(won / WIN_UNIT / hands, 4) if hands else 0.0,
    }


class StatsReads:
    def __init__(self, counters: Counters, clock: Callable[[], float]) -> None:
        self.counters = counters
        self.clock = clock

    async def player(self, user_id: object) -> JSON:
        """A player's figures, all time and the last 7 days: the UTC days from 6 days before
        today (at `clock`) to today (404 `unknown_player`: no counted hand yet; 400 for an id
        that is not one). `week` is the same figures as `last_7_days`, under the name the API
        first had for them."""
        user = checked_id(user_id, "user_id")
        gen = await self.counters.generation()
        keys, client = self.counters.keys, self.counters.client
        with self.counters.health.errors():
            pipe = client.pipeline(transaction=False)
            pipe.hgetall(keys.player(gen, user))
            for day in last_days(self.clock(), WINDOW_DAYS):
                pipe.hgetall(keys.player(gen, user, day))
            total, *days = await pipe.execute()
        if not total:
            raise ServiceError(404, "unknown_player", f"no stats for player {user}")
        name = total.get(b"name", b"").decode()
        recent = _figures(_summed(days))
        return {"user_id": user, "name": name, "all": _figures(total),
                "last_7_days": recent, "week": dict(recent)}

    async def board(self, period: object, group: object, you: int | None) -> JSON:
        """The top `TOP` of a board by net chips, and `you`'s own rank on it (None: not on
        it, or no caller)."""
        period = checked_period(period)
        chat = None if group is None else checked_id(group, "group")
        gen = await self.counters.generation()
        zset, members = self.counters.keys.board(
            gen, "all" if period == "all" else iso_week(self.clock()), chat
        )
        client: Any = self.counters.client
        with self.counters.health.errors():
            top = await client.zrevrange(zset, 0, TOP - 1, withscores=True)
            users = [int(m.decode().rpartition(":")[2]) for m, _ in top]
            pipe = client.pipeline(transaction=False)
            for user in users:
                pipe.hget(self.counters.keys.player(gen, user), "name")
            names = await pipe.execute() if users else []
            mine = await client.hget(members, str(you)) if you is not None else None
            rank = await client.zrevrank(zset, mine) if mine is not None else None
            score = await client.zscore(zset, mine) if rank is not None else None
        entries = [
            {"rank": i + 1, "user_id": user, "name": (name or b"").decode(), "net": int(net)}
            for i, ((_, net), user, name) in enumerate(zip(top, users, names, strict=True))
        ]
        return {
            "period": period,
            "group": chat,
            "entries": entries,
            "you": None if rank is None else {"rank": int(rank) + 1, "net": int(score or 0)},
        }
