"""The whole service on Redis Cluster: two `svara serve` processes on a local
3-primary cluster with a replica each play hands at eight tables whose streams spread over the
primaries; mid-play one primary is failed over to its replica (`CLUSTER FAILOVER`, as an operator
does for maintenance); then one server is killed (kill -9) mid-hand and started again. Afterwards
every hand audits, every socket holds every event once and every chip is accounted for.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import aiohttp
import pytest
from redis.crc import key_slot

from tests.support.e2e_game import (
    TOKEN,
    chips_on_table,
    hands_done,
    new_table,
    server_env,
    step,
    user_ids,
)
from tests.support.http_player import HttpPlayer, check_feed
from tests.support.redis_servers import (
    RedisServer,
    cli,
    fail_over,
    replica_of,
    slot_owners,
    start_cluster,
)
from tests.support.serve import Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]
GRANT = 1000
BUY_IN = 300
TABLES = 8
JSON = dict[str, Any]


class PatientPlayer(HttpPlayer):
    """Answers 503 as a client should: the same request again shortly (an action keeps its
    action_id, so a retry can never act twice). The store rides out a failover itself; a
    rare 503 can still reach a client while the cluster settles, and is counted."""

    retried = 0

    async def call(self, method: str, path: str, body: Any = None,
                   raw: bytes | None = None) -> tuple[int, Any]:
        for _ in range(3):
            status, data = await super().call(method, path, body, raw)
            if status != 503:
                break
            PatientPlayer.retried += 1
            await asyncio.sleep(0.2)
        return status, data


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[RedisServer]]:
    nodes = start_cluster(tmp_path_factory.mktemp("cluster-e2e"), masters=3, replicas=1)
    yield nodes
    for node in nodes:
        node.kill9()


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


async def play_on(players: list[HttpPlayer], table: str, seed: int,
                  done: Callable[[JSON], bool]) -> None:
    rng = random.Random(seed)
    total = len(players) * BUY_IN
    async with asyncio.timeout(180):
        while not done(await step(players, table, rng, total)):
            pass


async def test_two_servers_on_a_cluster_with_a_failover(
    cluster: list[RedisServer], session: aiohttp.ClientSession
) -> None:
    namespace = f"cluster-{uuid.uuid4().hex[:8]}"
    url = f"redis+cluster://127.0.0.1:{cluster[0].port}"
    servers = [Server(server_env(url, namespace=namespace)).start(60.0) for _ in range(2)]
    try:
        # Each table: three players, two on one server and one on the other.
        seats: list[list[HttpPlayer]] = []
        tables: list[str] = []
        for n in range(TABLES):
            ids = user_ids(3)
            players: list[HttpPlayer] = [PatientPlayer(session, servers[(n + i) % 2].url, u, TOKEN)
                       for i, u in enumerate(ids)]
            tables.append(await new_table(players[0], players, buy_in=BUY_IN, turn_seconds=60,
                                          next_hand_seconds=0))
            seats.append(players)
        owners = slot_owners(cluster)
        slots = {key_slot(f"svara:{{{namespace}:table:{t}}}:events".encode()) for t in tables}
        homes = {owners[s] for s in slots}
        assert len(homes) >= 2, "the tables' streams should lie on several primaries"
        victim = owners[key_slot(f"svara:{{{namespace}:table:{tables[0]}}}:events".encode())]

        feeds = [await p.listen(t) for t, ps in zip(tables, seats, strict=True) for p in ps]
        await asyncio.gather(*(play_on(ps, t, i, lambda v: hands_done(v) >= 1)
                               for i, (t, ps) in enumerate(zip(tables, seats, strict=True))))

        # Table 0's primary hands over to its replica while every table plays on: each table
        # plays two more hands after the failover has completed.
        failed_over = asyncio.Event()
        at_failover: dict[str, int] = {}

        def two_more(table: str) -> Callable[[JSON], bool]:
            def done(view: JSON) -> bool:
                if not failed_over.is_set():
                    return False
                return hands_done(view) >= at_failover.setdefault(table, hands_done(view)) + 2
            return done

        playing = [asyncio.create_task(play_on(ps, t, 10 + i, two_more(t)))
                   for i, (t, ps) in enumerate(zip(tables, seats, strict=True))]
        first = seats[0][0].feed
        assert first is not None
        await first.wait_until(
            lambda e: e["type"] == "hand_started" and e["data"].get("number") == 3, within=60)
        version_at_failover = first.version
        await asyncio.to_thread(fail_over, cluster, replica_of(cluster, victim))
        failed_over.set()
        await asyncio.gather(*playing)
        assert first.version > version_at_failover  # table 0 went on after its primary changed
        assert PatientPlayer.retried <= 5, PatientPlayer.retried

        # Then the second server is killed (kill -9) mid-hand and started again on its port:
        # its players' sockets resume from the last event they saw, and every table plays one
        # more hand through both servers.
        away = [(table, p) for table, ps in zip(tables, seats, strict=True) for p in ps
                if p.base == servers[1].url]
        seen = {id(p): list(p.feed.events) for _, p in away if p.feed is not None}
        servers[1].kill()
        for _, p in away:
            assert p.feed is not None
            await p.feed.close()
        servers[1].start(60.0)
        for table, p in away:
            feeds.append(await p.listen(table, after=seen[id(p)][-1]["version"]))

        def one_more(hands: int) -> Callable[[JSON], bool]:
            return lambda view: hands_done(view) > hands

        await asyncio.gather(*[
            play_on(ps, table, 30 + i, one_more(hands_done(await ps[0].view(table))))
            for i, (table, ps) in enumerate(zip(tables, seats, strict=True))])

        for t, ps in zip(tables, seats, strict=True):
            view = await ps[0].view(t)
            assert chips_on_table(view) == 3 * BUY_IN
            for hand in range(1, hands_done(view) + 1):
                audit = await ps[0].ok("GET", f"/api/tables/{t}/hands/{hand}/audit")
                assert audit["verified"] and all(audit["checks"].values()), (t, hand, audit)
            version = view["version"]
            for p in ps:
                assert p.feed is not None
                await p.feed.wait_for(version, within=15)  # the sockets followed the failover
                check_feed(seen.get(id(p), []) + p.feed.events)  # nothing lost or repeated
        for f in feeds:
            await f.close()
        for t, ps in zip(tables, seats, strict=True):
            for p in ps:
                await p.ok("POST", f"/api/tables/{t}/leave")
        balances = [(await p.ok("GET", "/api/me"))["balance"] for ps in seats for p in ps]
        assert sum(balances) == len(balances) * GRANT
    finally:
        for server in servers:
            assert server.stop() == 0, server.output()[-3000:]


def test_cluster_has_a_replica_per_primary(cluster: list[RedisServer]) -> None:
    roles = [cli(n.port, "info", "replication") for n in cluster]
    assert sum("role:master" in r for r in roles) == 3
    assert sum("role:slave" in r for r in roles) == 3
