"""`svara reindex`: rebuild the lobby and wake indexes, the hands indexes (where each hand lies
in its table's log, each player's settled hands) and the transfer marks of the deployment that
REDIS_URL and SVARA_NAMESPACE name, from its streams (a keyspace scan).

For an index lost or damaged by hand; safe while `svara serve` replicas run (each entry is
written only if its stream is still at the version it was computed from). A deployment from
before the indexes needs nothing: `svara serve` indexes it once at its first start.

`svara reindex --stats` rebuilds the player stats and leaderboards instead: every table's
settled hands folded into a fresh generation, which then replaces the live one (safe while
replicas run: they go on counting into the new one). Run it once on a deployment whose
tables predate the stats or the per-day figures (a profile's last 7 days), or to check the
figures against the streams.
"""

from __future__ import annotations

import asyncio
import os
import sys

from service.api.config import Config, ConfigError


def main(argv: list[str]) -> int:
    if argv not in ([], ["--stats"]):
        print(f"usage: svara reindex [--stats]\n\n{__doc__}", file=sys.stderr)
        return 2
    stats = argv == ["--stats"]
    try:
        config = Config.from_env(os.environ)
    except ConfigError as exc:
        print(f"svara reindex: {exc}", file=sys.stderr)
        return 2
    if not config.redis_url:
        print("svara reindex: REDIS_URL is not set (the embedded store has nothing to keep)",
              file=sys.stderr)
        return 2
    count = asyncio.run(_reindex(config, stats=stats))
    print(f"counted the hands of {count} tables" if stats
          else f"indexed {count} tables and wallets")
    return 0


async def _reindex(config: Config, *, stats: bool = False) -> int:
    from events.store import open_store
    from service.tables.service import TableService

    store = open_store(config.redis_url)
    try:
        service = TableService(store, namespace=config.namespace)
        if stats:
            return await service.stats.projector.rebuild()
        return await service.rebuild_indexes()
    finally:
        await store.close()
