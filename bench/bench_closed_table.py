"""What a closed table costs in Redis, and what is left of it once archived.

    REDIS_URL=redis://127.0.0.1:6379/10 python bench/bench_closed_table.py [--hands 10]

Plays `--hands` hands at a two-player table (a TableService in this process, a fake clock),
both players leave, the table closes; then sums `MEMORY USAGE <key> SAMPLES 0` over every
key whose name holds the table's id (a SCAN), by kind of key, and per hand. Then `svara
archive`'s own code archives it (files to a temporary directory) and measures what remains:
no key, one field of the tombstone hash. Uses a namespace of its own and deletes what it made.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from events.store.factory import open_redis_store
from service.tables.archive import Archiver
from service.tables.service import TableService
from tests.support.archive import IDLE, closed_table
from tests.support.clock import FakeClock
from tests.support.service_play import make_users


async def sizes(client: Any, table_id: str) -> dict[str, int]:
    out: dict[str, int] = {}
    async for raw in client.scan_iter(match=f"*{table_id}*", count=1000):
        key = raw.decode()
        suffix = key.rsplit(table_id, 1)[1].lstrip("}:")
        kind = ("hands index " if key.startswith("svara:{#ix}") else "log ") + suffix
        out[kind] = out.get(kind, 0) + int(await client.memory_usage(key, samples=0) or 0)
    return out


async def main(hands: int) -> None:
    url = os.environ.get("REDIS_URL")
    if not url:
        raise SystemExit("set REDIS_URL (a database of your own: the bench writes to it)")
    namespace = f"bench{uuid.uuid4().hex[:8]}:"
    clock = FakeClock(1_700_000_000.0)
    store = open_redis_store(url)
    service = TableService(store, clock=clock, namespace=namespace, think_seconds=0.0,
                           idle_close_seconds=IDLE)  # fmt: skip
    client: Any = store.client
    try:
        table_id = await closed_table(service, clock, make_users(2), hands)
        version = await store.version(service.streams.table(table_id))
        by_kind = await sizes(client, table_id)
        total = sum(by_kind.values())
        print(f"closed table after {hands} hands ({version} events): {total} bytes "
              f"({total / hands:.0f} per hand) in {len(by_kind)} keys")
        for kind, size in sorted(by_kind.items(), key=lambda kv: -kv[1]):
            print(f"  {kind:<24} {size:>8} bytes")
        with tempfile.TemporaryDirectory() as tmp:
            archiver = Archiver(service, store, Path(tmp), closed_days=0, clock=clock)
            outcomes = [o async for o in archiver.run()]
            done = outcomes[0]
            print(f"archived: {done.files} files, {done.file_bytes} bytes on disk; "
                  f"{done.freed_bytes} bytes of Redis freed")
        left = await sizes(client, table_id)
        tomb = int(await client.memory_usage(service.tombstones.key, samples=0) or 0)
        print(f"after the archive: {sum(left.values())} bytes in keys naming the table; "
              f"the tombstone hash {service.tombstones.key} holds 1 table in {tomb} bytes")
        scratch = f"svara:{namespace}scratch"  # what a tombstone costs among many
        for start in range(0, 10_000, 1000):
            await client.hset(scratch, mapping={uuid.uuid4().hex[:16]: repr(clock.now)
                                                for _ in range(start, start + 1000)})  # fmt: skip
        many = int(await client.memory_usage(scratch, samples=0) or 0)
        rows = [k async for k in client.scan_iter(match=f"*{namespace}myhands:*", count=1000)]
        kept = sum([int(await client.memory_usage(k, samples=0) or 0) for k in rows])
        print(f"kept on purpose: the players' own hand lists ({namespace}myhands:<user>), "
              f"{kept} bytes for 2 players x {hands} hands ({kept / (2 * hands):.0f} per row)")
        print(f"10,000 tombstones: {many} bytes ({many / 10_000:.0f} per archived table)")
    finally:
        await service.stop()
        keys = [k async for k in client.scan_iter(match=f"*{namespace}*", count=1000)]
        if keys:
            await client.delete(*keys)
        await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=10)
    asyncio.run(main(parser.parse_args().hands))
