"""`svara audit --tournament ID [--json]`: a tournament's standings verified from its own
events (chain, each elimination against the table's hand where the stack reached 0, the ante
levels recomputed by the schedule's rule, places, prizes = pool by the prize table), read
from the store at `REDIS_URL` (namespace `SVARA_NAMESPACE`). Exit status as `svara audit`:
0 verified, 1 a check failed, 2 bad arguments, an unknown tournament or an unreachable
store."""

from __future__ import annotations

import argparse
import json
import time

from events.store.factory import open_store
from service.api.config import Config
from service.audit_cli import from_store
from service.tables.facade import JSON
from service.tables.streams import Streams
from service.tables.tournaments import TournamentStore
from service.tables.tournaments_audit import audit_tournament


def render(tournament_id: str, audit: JSON) -> str:
    lines = [f"Tournament {tournament_id}: standings audit"]
    for name, check in audit["checks"].items():
        lines.append(f"  {name:<13} {'ok' if check['ok'] else 'FAILED'}"
                     + ("" if check["ok"] else f": {json.dumps(check)}"))
    for row in audit["standings"]:
        lines.append(f"  {row['place']:>3}. {row['name']} ({row['user_id']}): {row['prize']}")
    lines.append("Verified." if audit["verified"] else "NOT verified.")
    return "\n".join(lines)


async def fetch(config: Config, tournament_id: str) -> JSON:
    store = open_store(config.redis_url)
    try:
        t = TournamentStore(store, config.namespace, time.time)
        return await audit_tournament(t, Streams(config.namespace), tournament_id)
    finally:
        await store.close()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="svara audit --tournament", description=__doc__)
    parser.add_argument("--tournament", required=True, metavar="ID")
    parser.add_argument("--json", action="store_true", help="print the audit as JSON")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code else 0
    audit = from_store(lambda config: fetch(config, args.tournament))
    if audit is None:
        return 2
    print(json.dumps(audit, indent=1) if args.json else render(args.tournament, audit))
    return 0 if audit["verified"] else 1
