"""The reconnect storm on Redis Cluster: the same storm as `bench_storm.py` (N sockets drop
and come back within a second while 50 tables play), on a local 3-primary cluster with a
replica each, and with one primary failed over to its replica mid-storm (`CLUSTER FAILOVER`,
as an operator does for maintenance); then the same storm on one Redis, in the same run, for
the comparison.

    python bench/bench_cluster.py                       # 2,000 sockets
    python bench/bench_cluster.py --sockets 500 --phase 5

The cluster's nodes and the single Redis are private redis-server processes on free ports
(7000-7099, with their bus ports), stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import bench_storm as storm  # the storm, its client and its report

from tests.support.redis_servers import (
    RedisServer,
    fail_over,
    free_port,
    replica_of,
    slot_owners,
    start_cluster,
)

JSON = dict[str, Any]


def failover_of_the_busiest(nodes: list[RedisServer]) -> Any:
    """The storm's side job: promote the replica of the primary serving most slots... of any
    primary (every primary holds tables: the slots spread them), timed from the drop."""

    async def run() -> JSON:
        await asyncio.sleep(0.2)  # the sockets are dropping and coming back
        owners = slot_owners(nodes)
        victim = max(set(owners.values()), key=list(owners.values()).count)
        replica = await asyncio.to_thread(replica_of, nodes, victim)
        t0 = time.perf_counter()
        await asyncio.to_thread(fail_over, nodes, replica)
        return {"primary": victim, "promoted": replica,
                "failover_s": time.perf_counter() - t0}

    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sockets", type=int, default=2000)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--playing", type=int, default=50)
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--spread", type=float, default=1.0)
    parser.add_argument("--phase", type=float, default=8.0)
    parser.add_argument("--port", type=int, default=8741)
    parser.add_argument("--skip-single", action="store_true",
                        help="the cluster only (no single-Redis run to compare with)")
    parser.add_argument("--workers", type=int, default=1, help="svara serve --workers")
    args = parser.parse_args()
    args.backlog, args.py_spy, args.server_root = 0, "", storm.api.REPO
    print(f"bench_cluster {time.strftime('%Y-%m-%d %H:%M')} UTC, load "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    # the bare-stack yardstick of this run (on the machine's Redis: it writes a few keys of its own)
    print(storm.probe.yardstick_line(asyncio.run(storm.probe.yardstick(
        os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"), args.port + 1))), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        nodes = start_cluster(Path(tmp) / "cluster", masters=3, replicas=1)
        try:
            args.redis_url = f"redis+cluster://127.0.0.1:{nodes[0].port}"
            print("## on the 3-primary cluster, a primary failed over mid-storm", flush=True)
            result = asyncio.run(storm.scenario(args, args.sockets,
                                                alongside=failover_of_the_busiest(nodes)))
            print(storm.report(result))
            side = result["during_storm"]
            print(f"- failover: primary :{side['primary']} -> replica :{side['promoted']} in "
                  f"{side['failover_s']:.1f} s (from the drop + 0.2 s)", flush=True)
        finally:
            for node in nodes:
                node.kill9()
        if not args.skip_single:
            single = RedisServer(Path(tmp) / "single", free_port(), "--appendonly", "no")
            single.start()
            try:
                args.redis_url = single.url
                print("## on one Redis (the same storm, for comparison)", flush=True)
                print(storm.report(asyncio.run(storm.scenario(args, args.sockets))), flush=True)
            finally:
                single.kill9()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
