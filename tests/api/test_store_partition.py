"""A slow, then partitioned, then healed Redis under a real `svara serve` (REDIS_URL pointing
at `tests/support/proxy.py`, Redis with AOF on), while players and extra clients hammer it:

- slow (200 ms added to every round trip): answers slow down but stay right, the WebSockets
  stay open and follow, and what the process holds (requests in a handler, asyncio tasks) stays
  bounded by the load, not by the time Redis takes;
- black-holed for 5 s (packets dropped, not refused): every request ends within
  `STORE_DEADLINE` with a 503 `store_unavailable`, never a pile-up; an action retried under one
  action_id through the outage and after it is applied exactly once; turn deadlines that pass
  during the outage fire once each, after their deadline, never early;
- healed: back within 2 s, every table's chain intact, every socket's feed complete.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from events.codec import decode_table_event, event_type
from events.store.factory import open_redis_store
from events.table import TimedOut, TurnDeadlineSet, TurnHandover
from service.api.errors import REQUEST_DEADLINE
from tests.support.e2e_game import TOKEN, new_table, server_env, user_ids
from tests.support.http_player import Feed, HttpPlayer, check_feed
from tests.support.proxy import Proxy
from tests.support.redis_servers import RedisServer, free_port
from tests.support.serve import Server

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.serial]  # bounds under load

LATENCY = 0.1  # each way: 200 ms added to every answer
OUTAGE = 5.0
RECOVERY = 2.0
# What the service promises a waiting request (deploy/README.md "A slow or partitioned
# Redis"): an answer within REQUEST_DEADLINE, a 503 if Redis does not answer.
STORE_DEADLINE = REQUEST_DEADLINE
WORKERS = 24  # concurrent hammering clients


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path / "redis", free_port(), "--appendonly", "yes",
                         "--appendfsync", "everysec")
    yield server.start()
    server.kill9()


@pytest.fixture
def proxy(redis_server: RedisServer) -> Iterator[Proxy]:
    front = Proxy(redis_server.port).start()
    yield front
    front.stop()


@dataclass
class Hammer:
    """`WORKERS` clients reading (views, the lobby, wallets) as fast as they are answered;
    each answer's status, code and time is kept with the phase it started in."""

    session: aiohttp.ClientSession  # its own, closed by `stop` (a kept-alive connection
    clients: list[HttpPlayer]          # costs the server a task until it is closed)
    table: str
    phase: str = "slow"
    answers: list[tuple[str, int, str, float]] = field(default_factory=list)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def start(self) -> None:
        paths = (f"/api/tables/{self.table}", "/api/tables", "/api/me")
        for i in range(WORKERS):
            client = self.clients[i % len(self.clients)]
            self.tasks.append(asyncio.create_task(self._run(client, paths[i % len(paths)])))

    async def _run(self, client: HttpPlayer, path: str) -> None:
        while True:
            phase, started = self.phase, time.monotonic()
            status, body = await client.call("GET", path)
            code = body.get("error", {}).get("code", "") if isinstance(body, dict) else ""
            self.answers.append((phase, status, code, time.monotonic() - started))
            await asyncio.sleep(0.05)  # a client's pace (and under the rate limit)

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.session.close()

    def of(self, phase: str) -> list[tuple[str, int, str, float]]:
        return [a for a in self.answers if a[0] == phase]


@dataclass
class Gauges:
    """/metrics sampled every 0.2 s (it needs no Redis): the largest value of each gauge seen
    in each phase."""

    session: aiohttp.ClientSession
    url: str
    phase: str = "idle"
    peaks: dict[tuple[str, str], float] = field(default_factory=dict)
    task: asyncio.Task[None] | None = None

    NAMES = ("svara_http_requests_in_flight", "svara_asyncio_tasks")

    async def sample(self) -> dict[str, float]:
        async with self.session.get(f"{self.url}/metrics") as resp:
            text = await resp.text()
        found = {}
        for name in self.NAMES:
            match = re.search(rf"^{name} (\S+)$", text, re.MULTILINE)
            assert match, name
            found[name] = float(match.group(1))
        return found

    def start(self) -> None:
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while True:
            for name, value in (await self.sample()).items():
                key = (self.phase, name)
                self.peaks[key] = max(self.peaks.get(key, 0.0), value)
            await asyncio.sleep(0.2)

    async def stop(self) -> None:
        assert self.task is not None
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)

    def peak(self, phase: str, name: str) -> float:
        return self.peaks[(phase, name)]


async def mover_of(players: list[HttpPlayer], table: str) -> tuple[HttpPlayer, dict[str, Any]]:
    """The player whose turn it is (waiting out the pause between hands)."""
    async with asyncio.timeout(15):
        while True:
            views = [await p.view(table) for p in players]
            for p, v in zip(players, views, strict=True):
                hand = v["hand"]
                if hand and hand["phase"] in ("blind", "betting") and \
                        v["you"]["seat"] == hand["turn"]:
                    return p, v
            await asyncio.sleep(0.1)


def a_move(view: dict[str, Any]) -> tuple[str, int | None]:
    move = next(a for a in view["you"]["legal"] if a["type"] in ("call", "pass", "blind"))
    return move["type"], move.get("amount", move.get("min"))


def check_timeouts(events: list[Any]) -> int:
    """Every `timed_out` came after the turn deadline it answers (by the appender's clock, the
    time the store recorded), and no deadline was answered twice. Returns how many fired."""
    deadline: float | None = None
    answered: set[float] = set()
    fired = 0
    for stored in events:
        event = decode_table_event(stored.data)
        if isinstance(event, TimedOut):
            assert deadline is not None, stored
            assert stored.at >= deadline, (stored.version, stored.at, deadline)
            assert deadline not in answered, ("a deadline fired twice", stored.version)
            answered.add(deadline)
            fired += 1
        if isinstance(event, TurnDeadlineSet | TurnHandover) and event.deadline is not None:
            deadline = event.deadline
        elif event_type(event) == "hand_settled":
            deadline = None
    return fired


async def test_slow_then_black_holed_redis(
    proxy: Proxy, redis_server: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    namespace = f"partition-{free_port()}-{time.time_ns() % 10**9}"
    server = Server(server_env(proxy.url, namespace=namespace)).start()
    direct = open_redis_store(redis_server.url)  # the test's own view of Redis, no proxy
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
            ids = user_ids(6)
            players = [HttpPlayer(session, server.url, u, TOKEN) for u in ids[:2]]
            crowding = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30))
            crowd = [HttpPlayer(crowding, server.url, u, TOKEN) for u in ids[2:]]
            table = await new_table(players[0], players, turn_seconds=600)
            stream = f"{namespace}:table:{table}"
            feeds: list[Feed] = [await p.listen(table) for p in players]
            gauges = Gauges(session, server.url)
            idle = await gauges.sample()
            gauges.start()
            hammer = Hammer(crowding, crowd, table)

            # -- slow: 200 ms per round trip ------------------------------------------------
            proxy.latency = LATENCY
            gauges.phase = "slow"
            hammer.start()
            slow_actions: list[float] = []
            for n in range(4):
                mover, seen = await mover_of(players, table)
                started = time.monotonic()
                status, body = await mover.act(table, *a_move(seen), action_id=f"slow-{n}")
                slow_actions.append(time.monotonic() - started)
                assert status == 200, body
                assert (await mover.view(table))["version"] == body["version"]
            head = await direct.version(stream)
            await asyncio.gather(*(f.wait_for(head) for f in feeds))
            slow = hammer.of("slow")
            assert slow and all(s == 200 for _, s, _, _ in slow), slow[:5]

            # -- black hole: 5 s of silence ---------------------------------------------------
            # A table whose first turn deadline (5 s, the shortest) passes inside the outage.
            timed = await new_table(players[0], players, turn_seconds=5)
            timed_stream = f"{namespace}:table:{timed}"
            mover, seen = await mover_of(players, table)
            move = a_move(seen)
            before = await direct.version(stream)
            proxy.black_hole()
            gauges.phase = hammer.phase = "hole"
            retried: list[tuple[int, Any]] = []

            async def retry_through() -> None:
                # The client's retry loop: the same action_id until it is answered, then
                # once more, as a client that missed the answer would.
                while True:
                    status, body = await mover.act(table, *move, action_id="through")
                    retried.append((status, body))
                    if status == 200:
                        break
                    assert status == 503 and body["error"]["code"] == "store_unavailable", body
                    await asyncio.sleep(0.1)
                retried.append(await mover.act(table, *move, action_id="through"))

            retrying = asyncio.create_task(retry_through())
            await asyncio.sleep(OUTAGE)
            assert not retrying.done(), retried
            proxy.latency = 0.0
            proxy.restore()
            gauges.phase = hammer.phase = "back"
            back = time.monotonic()
            await asyncio.wait_for(retrying, 20)
            action_back = time.monotonic() - back

            async def timed_out_once() -> None:
                while True:  # polled: the timer fires in the server process
                    events = await direct.read(timed_stream)
                    if any(isinstance(decode_table_event(e.data), TimedOut) for e in events):
                        return
                    await asyncio.sleep(0.05)

            await asyncio.wait_for(timed_out_once(), 10)
            timer_back = time.monotonic() - back
            head = await direct.version(stream)
            await asyncio.gather(*(f.wait_for(head) for f in feeds))
            await hammer.stop()
            await gauges.stop()
            # Once the crowd has gone, so are the tasks it cost (one per kept-alive
            # connection, one per request in a handler) and its requests in flight (the
            # last answers may still be on their way when the tasks are down).
            async with asyncio.timeout(5):
                while True:
                    after = await gauges.sample()
                    if (after["svara_asyncio_tasks"] <= idle["svara_asyncio_tasks"] + 10
                            and after["svara_http_requests_in_flight"] == 0):
                        break
                    await asyncio.sleep(0.1)

            # -- what happened -----------------------------------------------------------------
            hole = hammer.of("hole")
            refused = [a for a in hole if a[1] != 200]
            longest = max(a[3] for a in hole)
            with capsys.disabled():
                print(
                    f"\nslow: actions {[round(s, 3) for s in slow_actions]} s; "
                    f"hole: {len(hole)} answers, {len(refused)} refused, longest {longest:.2f} s;"
                    f" back: action {action_back:.2f} s, timer {timer_back:.2f} s; gauges idle "
                    f"{idle}, peaks {gauges.peaks}, after {after}"
                )
            # Slow but right: an action costs at least the added round trip.
            assert min(slow_actions) >= 2 * LATENCY, slow_actions
            # Bounded waits: every request answered, a 503 store_unavailable at worst, in time.
            assert all(s in (200, 503) for _, s, _, _ in hole), hole
            assert all(c == "store_unavailable" for _, s, c, _ in refused), refused
            assert longest <= STORE_DEADLINE + 1.0, sorted(a[3] for a in hole)[-5:]
            # No pile-up: what the process holds follows the clients, not the outage.
            for phase in ("slow", "hole", "back"):
                assert gauges.peak(phase, "svara_http_requests_in_flight") <= WORKERS + 4
                # (up to 4 tasks per waiting request: the handler, its store call and the
                # pool's waits; a pile-up would grow with the outage's length, not stay under)
                assert gauges.peak(phase, "svara_asyncio_tasks") <= \
                    idle["svara_asyncio_tasks"] + 4 * WORKERS + 20, gauges.peaks
            assert after["svara_http_requests_in_flight"] == 0, after
            # Back within 2 s: the retried action and the timer that was due.
            assert action_back <= RECOVERY, action_back
            assert timer_back <= RECOVERY, timer_back
            # Exactly once: the retried action wrote one batch; the retry after it was
            # answered the same version.
            assert retried[-1][0] == 200 and retried[-1][1] == retried[-2][1], retried[-2:]
            scoped = f"{mover.user_id}:through"
            events = await direct.read(stream)
            batches = [e.version for e in events if e.action_id == scoped]
            assert batches and batches[0] == before + 1, batches
            assert batches == list(range(batches[0], batches[0] + len(batches))), batches
            assert len({e.action_id for e in events if e.action_id}) == \
                len([1 for i, e in enumerate(events) if e.action_id and (
                    i == 0 or events[i - 1].action_id != e.action_id)]), "an action twice"
            # Timers: each deadline once, never early (the appender's clock is the store's).
            timed_events = await direct.read(timed_stream)
            assert check_timeouts(timed_events) >= 1
            # Nothing lost or broken: the chains verify, the feeds hold every event in order,
            # and the sockets never closed.
            assert await direct.verify(stream) == len(events)
            assert await direct.verify(timed_stream) == len(timed_events)
            for feed in feeds:
                check_feed(feed.events)
                assert [e["hash"] for e in feed.events] == [e.hash for e in events]
                assert not feed.ws.closed, feed.ws.close_code
            for feed in feeds:
                await feed.close()
    finally:
        await direct.close()
        assert server.stop() == 0, server.output()[-3000:]


async def test_waiting_requests_end_at_the_deadline_even_queued_for_a_connection(
    proxy: Proxy, capsys: pytest.CaptureFixture[str]
) -> None:
    """With a small pool (`?max_connections=2`, an operator's setting) a silent Redis makes
    requests queue for a connection (up to the pool's wait) and then wait out the command's
    timeout on it: without a deadline on the whole request that is longer than
    `STORE_DEADLINE`. Every request must still be answered, 503 `store_unavailable`, in time."""
    namespace = f"deadline-{free_port()}-{time.time_ns() % 10**9}"
    server = Server(server_env(f"{proxy.url}?max_connections=2", namespace=namespace)).start()
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
            players = [HttpPlayer(session, server.url, u, TOKEN) for u in user_ids(4)]
            table = await new_table(players[0], players[:2], turn_seconds=600)
            proxy.black_hole()

            async def timed(player: HttpPlayer, path: str) -> tuple[int, str, float]:
                started = time.monotonic()
                status, body = await player.call("GET", path)
                code = body.get("error", {}).get("code", "") if isinstance(body, dict) else ""
                return status, code, time.monotonic() - started

            paths = ("/api/me", "/api/tables", f"/api/tables/{table}/hands")
            answers = await asyncio.gather(*(
                timed(players[i % 4], paths[i % 3]) for i in range(WORKERS)))
            with capsys.disabled():
                print(f"\nqueued behind 2 connections: longest "
                      f"{max(a[2] for a in answers):.2f} s of {len(answers)}")
            late = [a for a in answers if a[2] > STORE_DEADLINE + 1.0]  # a loaded machine
            assert not late, late
            assert all((s, c) == (503, "store_unavailable") for s, c, _ in answers), answers
            proxy.restore()
    finally:
        assert server.stop() == 0, server.output()[-3000:]
