"""The replay of one hand of a big table reads that hand only: counted on a private
redis-server (INFO commandstats: XRANGE calls; and the entries the store hands back), so no
other test's traffic is in the figures."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from events.store import open_store
from service.tables.facade import User
from service.tables.service import TableService
from tests.support import ports
from tests.support.random_play import write_big_table as build

PORTS = range(7700, 7750)


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[str]:
    port = ports.free_port(PORTS)
    proc = subprocess.Popen(
        [shutil.which("redis-server") or "redis-server", "--port", str(port), "--save", "",
         "--appendonly", "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    client = redis.Redis(port=port)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)
    yield f"redis://127.0.0.1:{port}/0"
    proc.terminate()
    proc.wait(10)


def stats(url: str) -> dict[str, int]:
    info: Any = redis.Redis.from_url(url).info("commandstats")
    return {k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in info.items()}


async def test_the_replay_of_one_hand_reads_only_that_hand(private_redis: str) -> None:
    namespace, table_id = "big:", "bigtable"
    hands = await build(private_redis, namespace, table_id, 20_000)
    assert hands > 1000
    store = open_store(private_redis)
    service = TableService(store, namespace=namespace)
    entries = 0
    read = store.read

    async def counting(stream: str, after: int = 0, limit: int | None = None) -> Any:
        nonlocal entries
        got = await read(stream, after, limit)
        entries += len(got)
        return got

    store.read = counting  # type: ignore[method-assign]
    try:
        user = User(id=101, name="P101")
        before = stats(private_redis)
        replay = await service.replay(user, table_id, hands // 2)
        after = stats(private_redis)
        steps = len(replay["steps"])
        assert 5 <= steps <= 60
        assert after.get("xrange", 0) - before.get("xrange", 0) == 1
        assert entries == steps  # the hand's own events, nothing else
        # the table's whole log is never scanned: no XREVRANGE, XLEN or SCAN either
        for command in ("xrevrange", "xlen", "scan", "xread"):
            assert after.get(command, 0) == before.get(command, 0), command
        # a transcript, too
        entries = 0
        text = await service.transcript(user, table_id, hands // 3, "en")
        assert text.startswith("Svara hand history") and entries < 60
        # the control: without the index (a hand from before it) the same answer costs the
        # whole log -- what the count above would have seen without the index
        keys = redis.Redis.from_url(private_redis).keys("svara:{#ix}:ix:big:hands:*")
        assert keys
        redis.Redis.from_url(private_redis).delete(*keys)
        entries = 0
        assert await service.replay(user, table_id, hands // 2) == replay
        assert entries >= 20_000
    finally:
        await service.stop()
        await store.close()
