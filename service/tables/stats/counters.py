"""The stats figures in Redis, and the one script that adds a settled hand to them.

Every key lives under one hash tag, `svara:{#st:<namespace>}:`, so a script may touch them all
(on a Cluster the stats live in one slot: a few keys per player, small beside the streams).
Under a *generation* `G` (the projection's current one is the value of `…:gen`, "0" when
unset; `svara reindex --stats` builds the next one beside it and then switches):

- `G:cp` hash: table id -> `<version>:<hand>`, the last settled hand applied (its
  `hand_settled`'s version): the per-stream checkpoint.
- `G:p:<user>` and `G:d:<UTC day>:p:<user>` hashes (a day as `2026-12-02`): all-time and
  per-day counters (`hands won net pot svaras svaras_won best name`; `pot` and `best` are
  maxima). A profile's "last 7 days" sums the 7 day hashes ending today (`reads`). Each day
  hash expires `DAY_KEPT` seconds after its latest hand (the script's EXPIRE), so old days
  vanish by themselves; the window needs 7, the rest is slack for replicas' clocks. A
  rebuild writes the day hashes of every hand, however old, with that same expiry: days
  outside the window are never read and are gone 9 days after the rebuild (Redis's own clock
  decides, so the rebuild writes the same keys whenever it runs).
- `G:b:<period>:<scope>` sorted sets, `period` `all` or an ISO week (`2026-W49`), `scope`
  `g` (global) or a Telegram group's chat id: the leaderboards, with `G:bm:<period>:<scope>`
  hashes (user -> their member).

A board's score is the player's net chips exactly (integers, exact in a double up to 2^53);
the member is `<10^13 - ms when that net was reached, 13 digits>:<user id>`. ZREVRANGE orders
equal scores by member, descending: the bigger inverted time -- whoever reached the net
first -- ranks higher. "When it was reached" is the settle time of the latest hand that moved
the player's net (with none, of their earliest hand): a latest and an earliest do not depend
on the order hands are applied in, so the live projection (tables interleaved as they
settle) and a rebuild (table after table) end with the same members. The name shown is the
one of the latest hand (`named`), for the same reason.

`APPLY` checks the generation and the table's checkpoint and, in the same atomic step,
advances the checkpoint and adds the hand's lines (the all-time and the day hashes, the
boards): however many replicas race, or a process dies between two hands, each hand is
added once.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from events.store.connection import Health
from service.game.stats import HandLine

TIME_CEILING = 10**13  # ms since the epoch, year 2286
DAY_KEPT = 9 * 86400  # seconds a day hash lives after its latest hand
ANY_GENERATION = "*"  # what the rebuild passes: it writes a generation not yet current

APPLY = """
if ARGV[1] ~= '*' then
  local g = redis.call('GET', KEYS[1]) or '0'
  if g ~= ARGV[1] then return -1 end
end
local cp = redis.call('HGET', KEYS[2], ARGV[2]) or ''
if cp ~= ARGV[3] then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[4])
local inv = ARGV[5]
local n = tonumber(ARGV[6])
local nb = tonumber(ARGV[7])
local kept = ARGV[8]
local a = 9
for i = 0, n - 1 do
  local user, name = ARGV[a], ARGV[a + 1]
  local net = tonumber(ARGV[a + 3])
  for _, key in ipairs({KEYS[3 + 2 * i], KEYS[4 + 2 * i]}) do
    local named = redis.call('HGET', key, 'named')
    if not named or inv <= named then
      redis.call('HSET', key, 'name', name, 'named', inv)
    end
    redis.call('HINCRBY', key, 'hands', 1)
    redis.call('HINCRBY', key, 'won', ARGV[a + 2])
    redis.call('HINCRBY', key, 'net', ARGV[a + 3])
    redis.call('HINCRBY', key, 'svaras', ARGV[a + 5])
    redis.call('HINCRBY', key, 'svaras_won', ARGV[a + 6])
    for _, f in ipairs({{'pot', a + 4}, {'best', a + 7}}) do
      local was = tonumber(redis.call('HGET', key, f[1]) or '0')
      if tonumber(ARGV[f[2]]) > was then redis.call('HSET', key, f[1], ARGV[f[2]]) end
    end
  end
  redis.call('EXPIRE', KEYS[4 + 2 * i], kept)  -- the day's: after the writes that create it
  if ARGV[a + 8] == '1' then
    for b = 0, nb - 1 do
      local z, m = KEYS[3 + 2 * n + 2 * b], KEYS[4 + 2 * n + 2 * b]
      local old = redis.call('HGET', m, user)
      local moved = redis.call('HEXISTS', m, user .. ':moved') == 1
      local at = inv
      if old then
        local was = string.sub(old, 1, 13)
        -- the latest hand that moved the net; with none, the earliest hand
        if net ~= 0 and moved and was < inv then at = was end
        if net == 0 and (moved or was > inv) then at = was end
      end
      local score = 0
      if old then
        score = tonumber(redis.call('ZSCORE', z, old) or '0')
        redis.call('ZREM', z, old)
      end
      local member = at .. ':' .. user
      redis.call('ZADD', z, score + net, member)
      redis.call('HSET', m, user, member)
      if net ~= 0 then redis.call('HSET', m, user .. ':moved', '1') end
    end
  end
  a = a + 9
end
return 1
"""


def iso_week(at: float) -> str:
    """The ISO week (Monday 00:00 UTC to the next) of the time `at`, as `2026-W49`."""
    year, week, _ = dt.datetime.fromtimestamp(at, dt.UTC).isocalendar()
    return f"{year}-W{week:02d}"


def utc_day(at: float) -> str:
    """The UTC day of the time `at`, as `2026-12-02`."""
    return dt.datetime.fromtimestamp(at, dt.UTC).date().isoformat()


def last_days(at: float, count: int = 7) -> list[str]:
    """The `count` UTC days ending with the one of `at`, newest first."""
    today = dt.datetime.fromtimestamp(at, dt.UTC).date()
    return [(today - dt.timedelta(days=k)).isoformat() for k in range(count)]


def time_member(at: float, user_id: int) -> str:
    return f"{max(0, TIME_CEILING - int(at * 1000)):013d}:{user_id}"


def scope_of(group: int | None) -> str:
    return "g" if group is None else str(group)


class Keys:
    def __init__(self, namespace: str) -> None:
        self.namespace = namespace
        self.base = "svara:{#st:" + namespace + "}:"

    @property
    def gen(self) -> str:
        return self.base + "gen"

    @property
    def next_gen(self) -> str:
        return self.base + "next-gen"

    def cp(self, gen: str) -> str:
        return f"{self.base}{gen}:cp"

    def player(self, gen: str, user_id: int, day: str | None = None) -> str:
        """A player's all-time hash, or with `day` (`utc_day`) that day's."""
        period = "" if day is None else f"d:{day}:"
        return f"{self.base}{gen}:{period}p:{user_id}"

    def board(self, gen: str, period: str, group: int | None) -> tuple[str, str]:
        """(the sorted set, its user -> member hash) of a board; `period` "all" or a week."""
        tail = f"{period}:{scope_of(group)}"
        return f"{self.base}{gen}:b:{tail}", f"{self.base}{gen}:bm:{tail}"

    def generation_glob(self, gen: str) -> str:
        """A SCAN pattern for every key of generation `gen` (glob characters escaped)."""
        return re.sub(r"([*?\[\]\\])", r"\\\1", self.base + gen + ":") + "*"


class Counters:
    """The stats keys on the event store's own Redis client."""

    def __init__(self, client: Redis | RedisCluster, namespace: str,
                 health: Health | None = None) -> None:  # fmt: skip
        self.client: Any = client
        self.keys = Keys(namespace)
        self.health = health if health is not None else Health()
        self._apply = client.register_script(APPLY)

    async def generation(self) -> str:
        with self.health.errors():
            value = await self.client.get(self.keys.gen)
        return "0" if value is None else value.decode()

    async def checkpoint(self, gen: str, table_id: str) -> tuple[int, int]:
        """(version, hand) of the table's last applied hand; (0, 0) for none."""
        with self.health.errors():
            value = await self.client.hget(self.keys.cp(gen), table_id)
        if value is None:
            return 0, 0
        version, _, hand = value.decode().partition(":")
        return int(version), int(hand)

    async def apply(
        self, gen: str, table_id: str, expected: tuple[int, int], new: tuple[int, int],
        lines: Sequence[HandLine], *, at: float, group: int | None, chips: bool,
        current: bool = True,
    ) -> int:
        """Add one hand's lines iff the table's checkpoint is `expected` (then it becomes
        `new`): 1 applied, 0 the checkpoint moved (another replica applied it), -1 `gen` is
        no longer the current generation (`current` False: write it anyway)."""
        week, day = iso_week(at), utc_day(at)
        keys = [self.keys.gen, self.keys.cp(gen)]
        for line in lines:
            keys += [self.keys.player(gen, line.user_id), self.keys.player(gen, line.user_id, day)]
        scopes = [None] if group is None else [None, group]
        boards = [(p, g) for p in ("all", week) for g in scopes] if chips else []
        for period, scope in boards:
            keys += self.keys.board(gen, period, scope)
        args: list[str | int] = [
            gen if current else ANY_GENERATION, table_id, _cp(expected), _cp(new),
            time_member(at, 0)[:13], len(lines), len(boards), DAY_KEPT,
        ]
        for line in lines:
            args += [line.user_id, line.name, line.won, line.net, line.pot, line.svaras,
                     line.svaras_won, line.best, 1 if chips else 0]  # fmt: skip
        with self.health.errors():
            return int(await self._apply(keys=keys, args=args))


def _cp(checkpoint: tuple[int, int]) -> str:
    return "" if checkpoint == (0, 0) else f"{checkpoint[0]}:{checkpoint[1]}"
