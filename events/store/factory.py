"""`open_store(REDIS_URL)`: the one way the service gets its event store.

- None or ""                                → embedded store (fakeredis, Lua via lupa, in-process)
- redis://host:port/db (or rediss://)       → one Redis server
- redis+cluster://host:port (or ?cluster=1) → Redis Cluster, seeded from that node
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import fakeredis
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from events.store.base import EventStore, StoreUnavailable
from events.store.connection import PROBE_TIMEOUT, TrackedConnection, pool_reset
from events.store.redis_store import RedisEventStore

BLOCK_MS = 5000
# The reader's socket must outlive its blocking XREAD, or every idle read would look like an
# outage; every other command gets a short timeout so an outage turns into 503s quickly.
# Short, but above the pauses a healthy Redis takes (an fsync stall of the AOF, a big page
# of XRANGE on a loaded machine): a false timeout costs the commands on that one socket.
# Recovery does not wait for it: the stall probe (`events.store.connection`) frees stuck
# connections within a probe of Redis answering again.
READER_SOCKET_TIMEOUT = BLOCK_MS / 1000 + 5
COMMAND_SOCKET_TIMEOUT = 2.0
CONNECT_TIMEOUT = 1.0
# Pooled connections for reads (appends go down one pipelined connection, live events down
# the readers'). A burst waits for a free one -- up to POOL_WAIT seconds -- instead of failing
# at once: redis-py's default pool raises "Too many connections" past 100, which answered a
# busy moment with 503s. 64 connections keep Redis busy; more only queue inside Redis.
# `?max_connections=N` in REDIS_URL overrides the size.
POOL_SIZE = 64
POOL_WAIT = 5.0


def _no_retry() -> Retry:
    # The store decides what is safe to retry (reads yes, appends only via action_id).
    return Retry(NoBackoff(), 0)


def _split_cluster(url: str) -> tuple[str, bool]:
    parts = urlsplit(url)
    query = parse_qsl(parts.query)
    cluster = parts.scheme.endswith("+cluster") or any(
        k == "cluster" and v.lower() in ("1", "true", "yes") for k, v in query
    )
    scheme = parts.scheme.removesuffix("+cluster")
    rest = urlencode([(k, v) for k, v in query if k != "cluster"])
    return urlunsplit((scheme, parts.netloc, parts.path, rest, parts.fragment)), cluster


def open_store(
    redis_url: str | None, *, block_ms: int = BLOCK_MS, queue_size: int = 1024
) -> EventStore:
    """An EventStore for `redis_url` (see the module docstring). Connects lazily."""
    return open_redis_store(redis_url, block_ms=block_ms, queue_size=queue_size)


def open_redis_store(
    redis_url: str | None, *, block_ms: int = BLOCK_MS, queue_size: int = 1024
) -> RedisEventStore:
    """Like open_store, typed as the concrete class (tests and tools use its extras)."""
    reader_timeout = block_ms / 1000 + 5
    if not redis_url:
        return _embedded(block_ms, queue_size)
    url, cluster = _split_cluster(redis_url)
    if cluster:
        return _cluster(url, block_ms, queue_size, reader_timeout)

    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=POOL_SIZE,
        timeout=POOL_WAIT,
        socket_timeout=COMMAND_SOCKET_TIMEOUT,
        socket_connect_timeout=CONNECT_TIMEOUT,
        retry=_no_retry(),
        connection_class=TrackedConnection,
    )
    client: Redis = Redis.from_pool(pool)

    def one_connection(socket_timeout: float, connect_timeout: float = CONNECT_TIMEOUT) -> Redis:
        return Redis.from_url(
            url,
            socket_timeout=socket_timeout,
            socket_connect_timeout=connect_timeout,
            retry=_no_retry(),
            single_connection_client=True,
        )

    async def probe() -> None:
        # A fresh socket each time: a stalled one would say nothing about Redis.
        fresh = one_connection(PROBE_TIMEOUT, PROBE_TIMEOUT)
        try:
            await fresh.ping()
        finally:
            await fresh.aclose()

    async def connect_reader(_key: str) -> Redis:
        return one_connection(reader_timeout)

    async def connect_pipe() -> Redis:
        return one_connection(COMMAND_SOCKET_TIMEOUT)

    return RedisEventStore(
        client,
        connect_reader=connect_reader,
        block_ms=block_ms,
        queue_size=queue_size,
        connect_pipe=connect_pipe,
        pipe_timeout=COMMAND_SOCKET_TIMEOUT,
        probe=probe,
        pool_resets=(pool_reset(pool),),
    )


def _cluster(url: str, block_ms: int, queue_size: int, reader_timeout: float) -> RedisEventStore:
    # Redirections (MOVED/ASK) are still followed; only blind re-sends after a connection
    # error are off, as on one server: an append is retried by its action_id, not by redis-py.
    # A node's pool cannot wait for a free connection (it raises MaxConnectionsError), so the
    # store gates its commands instead: at most POOL_SIZE in flight, hence per node.
    client: RedisCluster = RedisCluster.from_url(
        url,
        socket_timeout=COMMAND_SOCKET_TIMEOUT,
        socket_connect_timeout=CONNECT_TIMEOUT,
        retry=_no_retry(),
        max_connections=POOL_SIZE,
    )

    async def connect_reader(key: str) -> Redis:
        # A blocking multi-key XREAD must stay in one slot and on the node that owns it.
        await client.initialize()
        node = client.get_node_from_key(key)
        if node is None:
            raise StoreUnavailable(f"no cluster node serves {key}")
        return Redis(
            host=node.host,
            port=int(node.port),
            socket_timeout=reader_timeout,
            socket_connect_timeout=CONNECT_TIMEOUT,
            retry=_no_retry(),
            single_connection_client=True,
        )

    return RedisEventStore(
        client,
        connect_reader=connect_reader,
        reader_group=client.keyslot,
        block_ms=block_ms,
        queue_size=queue_size,
        cluster=True,
        max_commands=POOL_SIZE,
        command_wait=POOL_WAIT,
    )


def embedded_store(
    server: fakeredis.FakeServer | None = None, *, block_ms: int = BLOCK_MS, queue_size: int = 1024
) -> RedisEventStore:
    """An embedded store; pass the same `server` to get several stores on one dataset."""
    return _embedded(block_ms, queue_size, server)


def _embedded(
    block_ms: int, queue_size: int, server: fakeredis.FakeServer | None = None
) -> RedisEventStore:
    """fakeredis as Redis 7 with Lua via lupa: the same functions.lua runs in-process."""
    server = server if server is not None else fakeredis.FakeServer(version=(7, 0))
    client: Redis = fakeredis.aioredis.FakeRedis(
        server=server,
        connection_pool_class=BlockingConnectionPool,
        max_connections=POOL_SIZE,
        timeout=POOL_WAIT,
    )

    async def connect_reader(_key: str) -> Redis:
        reader: Redis = fakeredis.aioredis.FakeRedis(server=server, single_connection_client=True)
        return reader

    return RedisEventStore(
        client, connect_reader=connect_reader, block_ms=block_ms, queue_size=queue_size
    )
