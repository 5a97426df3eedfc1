"""Redis that neither answers nor refuses (packets dropped, `tests/support/proxy.py`'s black
hole) for 5 s, three times over: after each, actions and reads are back within 2 s of Redis,
measured by polling each until it succeeds -- the pollers' own commands were stuck on dead
sockets when Redis came back, and the store must drop those at once, not wait them out."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from events.store.base import StoreUnavailable
from events.store.factory import open_redis_store
from events.store.redis_store import RedisEventStore
from tests.support.proxy import Proxy
from tests.support.redis_servers import RedisServer, free_port

pytestmark = [pytest.mark.redis, pytest.mark.slow]

OUTAGE = 5.0
RECOVERY = 2.0


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[Proxy]:
    server = RedisServer(tmp_path / "redis", free_port()).start()
    front = Proxy(server.port).start()
    yield front
    front.stop()
    server.kill9()


class Poller:
    """Runs `op` again and again; records when it first succeeded after `since` was set."""

    def __init__(self, op: Callable[[], Awaitable[object]]) -> None:
        self.op = op
        self.since: float | None = None
        self.recovered: float | None = None
        self.failures = 0
        self.early = 0  # successes while Redis was silent: none, or the hole leaks
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while True:
            try:
                await self.op()
            except StoreUnavailable:
                self.failures += 1
                await asyncio.sleep(0.01)
                continue
            if self.since is not None:
                self.recovered = time.monotonic() - self.since
                return
            self.early += 1
            await asyncio.sleep(0.01)

    async def outcome(self, within: float) -> float:
        await asyncio.wait_for(self.task, within)
        assert self.recovered is not None
        return self.recovered


async def test_actions_and_reads_are_back_within_2s_after_each_stall(proxy: Proxy) -> None:
    store: RedisEventStore = open_redis_store(proxy.url)
    stream = f"table:stall-{uuid.uuid4().hex[:8]}"
    try:
        version = (await store.append(stream, [b"e0"], expected_version=0)).version
        recoveries: list[tuple[float, float]] = []
        for cycle in range(3):
            proxy.black_hole()
            appended: list[int] = []

            async def act(cycle: int = cycle, head: int = version,
                          appended: list[int] = appended) -> None:
                # One action retried under one action_id until it lands, as a client does.
                result = await store.append(
                    stream, [b"e%d" % (cycle + 1)], expected_version=head,
                    action_id=f"stall-{cycle}",
                )
                assert result.status in ("appended", "duplicate"), result
                appended.append(result.version)

            async def view() -> None:
                await store.read(stream)

            pollers = [Poller(act), Poller(view)]
            await asyncio.sleep(OUTAGE)  # the outage itself: Redis silent for 5 s
            assert [p.early for p in pollers] == [0, 0], "the black hole let commands through"
            back = time.monotonic()
            for p in pollers:
                p.since = back
            proxy.restore()
            action_s, view_s = [await p.outcome(within=15) for p in pollers]
            recoveries.append((action_s, view_s))
            version = appended[0]
            assert version == cycle + 2
        print("recoveries", recoveries)
        assert all(a <= RECOVERY and v <= RECOVERY for a, v in recoveries), recoveries
        assert await store.verify(stream) == 4
        assert [e.data for e in await store.read(stream)] == [b"e0", b"e1", b"e2", b"e3"]
    finally:
        await store.close()
