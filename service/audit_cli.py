"""`svara audit TABLE HAND [--export FILE] [--json]`: the server's audit of a settled hand, read
straight from the store at `REDIS_URL` (namespace `SVARA_NAMESPACE`), as an operator settles a
dispute; `--export FILE` also writes the hand's export for `svara verify FILE` (which needs
neither this code nor the store). `svara audit --tournament ID` audits a tournament's
standings instead (`service.tournament_audit_cli`). Exit status: 0 verified, 1 a check failed,
2 bad arguments, an unknown table or hand, or an unreachable store."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from events.store.base import StoreUnavailable
from events.store.factory import open_store
from service.api.config import Config, ConfigError
from service.tables.audit import audit_hand, export_hand
from service.tables.facade import JSON, ServiceError
from service.tables.streams import Streams

T = TypeVar("T")


def render(audit: JSON) -> str:
    lines = [f"Table {audit['table_id']}, hand {audit['hand']}: server audit"]
    for r in audit["results"]:
        if r["ok"]:
            lines.append(f"  {r['check']:<11} ok")
        else:
            chain = f" (chain v{r['chain_version']})" if "chain_version" in r else ""
            lines.append(
                f"  {r['check']:<11} FAILED at version {r['version']}{chain}: {r['reason']}"
            )
    table_chain = audit.get("table_chain", {})
    if not table_chain.get("ok", True):
        lines.append(
            f"  (the table's chain breaks later, at version {table_chain['version']}: "
            f"{table_chain['reason']})"
        )
    lines.append("Verified." if audit["verified"] else "NOT verified.")
    return "\n".join(lines)


async def fetch(config: Config, table_id: str, hand: int, export: bool) -> tuple[JSON, JSON | None]:
    """The audit (and the export) of the hand, read from the configured store."""
    store = open_store(config.redis_url)
    stream = Streams(config.namespace).table(table_id)
    try:
        audit = await audit_hand(store, stream, table_id, hand)
        exported = await export_hand(store, stream, table_id, hand) if export else None
        return audit, exported
    finally:
        await store.close()


def from_store(fetching: Callable[[Config], Coroutine[Any, Any, T]]) -> T | None:
    """What `fetching` reads from the deployment's store, or None after saying on stderr
    why it could not (bad configuration, an unknown table or hand, an unreachable store):
    the audit commands' exit 2."""
    try:
        return asyncio.run(fetching(Config.from_env(os.environ)))
    except ConfigError as exc:
        print(f"svara audit: {exc}", file=sys.stderr)
    except ServiceError as exc:
        print(f"svara audit: {exc.message} ({exc.code})", file=sys.stderr)
    except StoreUnavailable as exc:
        print(f"svara audit: the store is unreachable: {exc}", file=sys.stderr)
    return None


def main(argv: list[str]) -> int:
    if argv[:1] == ["--tournament"] or any(a.startswith("--tournament=") for a in argv[:1]):
        from service.tournament_audit_cli import main as tournament_main

        return tournament_main(argv)
    parser = argparse.ArgumentParser(prog="svara audit", description=__doc__)
    parser.add_argument("table")
    parser.add_argument("hand", type=int)
    parser.add_argument("--export", metavar="FILE", help="also write the hand's export file")
    parser.add_argument("--json", action="store_true", help="print the audit as JSON")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code else 0
    fetched = from_store(lambda config: fetch(config, args.table, args.hand, bool(args.export)))
    if fetched is None:
        return 2
    audit, exported = fetched
    print(json.dumps(audit, indent=1) if args.json else render(audit))
    if exported is not None:
        with open(args.export, "w", encoding="utf-8") as f:
            json.dump(exported, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"Export written to {args.export} (check it with: svara verify {args.export})",
              file=sys.stderr)  # fmt: skip
    return 0 if audit["verified"] else 1
