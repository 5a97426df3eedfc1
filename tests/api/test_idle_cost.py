"""Yesterday's finished tables cost nothing today (the active-table index): a real `svara serve`
with 10 running tables, then with 1,000 finished ones added (500 closed, 500 empty and waiting
out their idle day), spends no more CPU over 20 idle seconds than before, and `GET
/api/tables` answers in under 50 ms.

The finished tables are made cheaply, in this process, through a `TableService` on the same
namespace (the server learns of them only through Redis, like a second replica's tables)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from events.store import open_store
from service.game.settings import TableSettings
from service.game.state import IDLE_CLOSE_SECONDS
from service.tables.facade import User
from service.tables.service import TableService
from tests.support.e2e_game import TOKEN, server_env, user_ids
from tests.support.http_player import HttpPlayer
from tests.support.serve import Server

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.serial]  # it measures CPU at rest

WINDOW = 20.0  # seconds of idle CPU measured
RUNNING = 10
FINISHED = 1000
SETTINGS = TableSettings(ante=10, max_seats=4, turn_seconds=600)  # no turn ends in the test
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


async def idle_cpu(pid: int) -> float:
    before = cpu_seconds(pid)
    await asyncio.sleep(WINDOW)  # the measurement itself: the server is left alone
    return cpu_seconds(pid) - before


def a_day_later() -> float:
    """The clock of the process that closes the idle tables: a day ahead (the server's own
    worker never finds them due: a table is closed once, by whichever process gets there)."""
    return time.time() + IDLE_CLOSE_SECONDS + 60


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


async def finished_tables(redis_url: str, namespace: str, users: list[User]) -> list[str]:
    """FINISHED tables a player sat at and left; the first half then closed (by a process a
    day ahead), the second half left empty (open until tomorrow)."""
    now = TableService(open_store(redis_url), namespace=namespace)
    later = TableService(open_store(redis_url), namespace=namespace, clock=a_day_later)
    limit = asyncio.Semaphore(32)

    async def one(user: User) -> str:
        async with limit:
            table_id = await now.create_table(user, SETTINGS)
            await now.seat(user, table_id, 100)
            await now.leave(user, table_id)
            return table_id

    try:
        tables = await asyncio.gather(*(one(users[i % len(users)]) for i in range(FINISHED)))
        closed = tables[: FINISHED // 2]
        await asyncio.gather(*(later.driver.fire(t) for t in closed))
        for table_id in closed:
            assert (await now.view(None, table_id))["phase"] == "closed"
        return tables
    finally:
        for service in (now, later):
            await service.store.close()


async def test_finished_tables_cost_no_idle_cpu_and_the_lobby_stays_fast(
    redis_url: str, session: aiohttp.ClientSession, unique: str
) -> None:
    namespace = f"idle-{unique}"
    server = Server(server_env(redis_url, namespace=namespace)).start()
    assert server.proc is not None
    try:
        players = [HttpPlayer(session, server.url, u, TOKEN) for u in user_ids(2 * RUNNING)]
        running = []
        for i in range(RUNNING):
            owner, other = players[2 * i], players[2 * i + 1]
            status, body = await owner.call("POST", "/api/tables", {
                "ante": 10, "max_seats": 4, "turn_seconds": 600})
            assert status == 201, body
            for p in (owner, other):
                await p.ok("POST", f"/api/tables/{body['table_id']}/seat", {"buy_in": 100})
            running.append(body["table_id"])
        await asyncio.sleep(1.0)  # let the start-up work (indexing, first passes) finish
        alone = await idle_cpu(server.proc.pid)

        users = [User(id=u, name="gone") for u in user_ids(100)]
        finished = await finished_tables(redis_url, f"{namespace}:", users)
        assert len(finished) == FINISHED
        await asyncio.sleep(1.0)
        with_finished = await idle_cpu(server.proc.pid)

        latencies = []
        for _ in range(20):
            started = time.perf_counter()
            status, page = await players[0].call("GET", "/api/tables")
            latencies.append(time.perf_counter() - started)
            assert status == 200
        assert len(page["tables"]) == 50 and page["next"] is not None
        listed: set[str] = set()
        cursor = ""
        while True:
            page = await players[0].ok("GET", f"/api/tables?limit=200{cursor}")
            listed |= {t["table_id"] for t in page["tables"]}
            if page["next"] is None:
                break
            cursor = f"&cursor={page['next']}"
        half = FINISHED // 2
        assert listed == {*running, *finished[half:]}  # the closed half is gone
        latencies.sort()
        print(f"idle CPU over {WINDOW:.0f} s: {alone:.2f} s with {RUNNING} running tables, "
              f"{with_finished:.2f} s with {FINISHED} finished ones too; GET /api/tables "
              f"p50 {1000 * latencies[10]:.1f} ms, p90 {1000 * latencies[18]:.1f} ms, "
              f"max {1000 * latencies[-1]:.1f} ms (load average {os.getloadavg()[0]:.1f})")
        # noise: a few clock ticks, or a fifth of the baseline
        assert with_finished <= alone + max(0.1, 0.2 * alone), (alone, with_finished)
        # The median of 20: on this shared 2-core machine a single request can wait for a
        # core far longer than the server takes to answer (p90 and max are printed above).
        assert latencies[10] < 0.050, latencies
    finally:
        assert server.stop() == 0, server.output()[-3000:]
