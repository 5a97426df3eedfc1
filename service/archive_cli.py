"""`svara archive [--closed-days N] [--to DIR] [--dry-run]`: move the history of tables closed
more than N days ago (default `ARCHIVE_CLOSED_DAYS`, else 30) out of the Redis at `REDIS_URL`
(namespace `SVARA_NAMESPACE`) into files under DIR/<table_id>/ (default ./archive): an
export per hand (`svara verify FILE` checks each) and the whole log; then their keys are
deleted and a tombstone kept (the API answers 410 `table_archived`). Safe to re-run, and
while `svara serve` runs (see service/tables/archive.py and deploy/README.md).

Exit status: 0 every due table archived (or, with --dry-run, could be); 1 some due table was
refused or failed (each is reported, and kept in Redis); 2 bad arguments or configuration,
no REDIS_URL, or an unreachable store."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from events.store.base import StoreUnavailable
from events.store.factory import open_redis_store
from service.api.config import Config, ConfigError
from service.tables.archive import Archiver, Outcome
from service.tables.facade import ServiceError

DEFAULT_DAYS = 30.0
VERBS = {
    "archived": "archived", "would_archive": "would archive", "too_young": "kept (too young)",
    "kept": "kept", "refused": "REFUSED", "changed": "kept (changed)", "failed": "FAILED",
}


def line(o: Outcome) -> str:
    head = f"{o.table_id}: {VERBS[o.status]}"
    if o.status in ("archived", "would_archive"):
        return (f"{head}, {o.hands} hands, {o.files} files ({o.file_bytes} bytes), "
                f"{o.freed_bytes} bytes of Redis; {o.detail}")  # fmt: skip
    return f"{head}: {o.detail}"


def summary(outcomes: list[Outcome], open_tables: int, dry_run: bool) -> str:
    def count(status: str) -> int:
        return sum(o.status == status for o in outcomes)

    done = [o for o in outcomes if o.status in ("archived", "would_archive")]
    freed = sum(o.freed_bytes for o in done)
    verb = "would archive" if dry_run else "archived"
    return (f"{verb} {len(done)} tables ({sum(o.hands for o in done)} hands): "
            f"{sum(o.files for o in done)} files, {sum(o.file_bytes for o in done)} bytes "
            f"written, {freed} bytes of Redis freed; kept: {count('too_young')} closed too "
            f"recently, {count('kept')} of tournaments, {open_tables} open; refused "
            f"{count('refused')}, failed "
            f"{count('failed') + count('changed')}")  # fmt: skip


async def archive(config: Config, directory: Path, days: float, dry_run: bool) -> int:
    from service.bot.groups import GroupTables
    from service.tables.service import TableService

    store = open_redis_store(config.redis_url)
    service = TableService(store, namespace=config.namespace)
    groups = GroupTables(service.kv, config.namespace)

    async def unbind_group(table_id: str) -> None:
        # the bot's binding of a table to the group it was created in (kept forever)
        binding = await groups.group_of(table_id)
        if binding is not None:
            await groups.unbind(binding.chat_id, table_id)

    archiver = Archiver(service, store, directory, closed_days=days, dry_run=dry_run,
                        forget=[unbind_group])  # fmt: skip
    outcomes: list[Outcome] = []
    try:
        if not await store.ping():
            raise StoreUnavailable("no answer to PING")
        async for outcome in archiver.run():
            outcomes.append(outcome)
            print(line(outcome), flush=True)
    finally:
        await store.close()
    print(summary(outcomes, archiver.open_tables, dry_run))
    bad = {"refused", "failed", "changed"}
    return 1 if any(o.status in bad for o in outcomes) else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="svara archive", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--closed-days", type=float, default=None, metavar="N",
                        help="archive tables closed more than N days ago")
    parser.add_argument("--to", default="archive", metavar="DIR", help="where the files go")
    parser.add_argument("--dry-run", action="store_true", help="say what would happen")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code else 0
    try:
        config = Config.from_env(os.environ)
        days = args.closed_days
        if days is None:
            days = float(os.environ.get("ARCHIVE_CLOSED_DAYS") or DEFAULT_DAYS)
    except ConfigError as exc:
        print(f"svara archive: {exc}", file=sys.stderr)
        return 2
    except ValueError:
        print("svara archive: ARCHIVE_CLOSED_DAYS must be a number of days", file=sys.stderr)
        return 2
    if not days >= 0:  # NaN too
        print("svara archive: --closed-days must be 0 or more", file=sys.stderr)
        return 2
    if not config.redis_url:
        print("svara archive: REDIS_URL is not set (the embedded store keeps nothing)",
              file=sys.stderr)  # fmt: skip
        return 2
    try:
        return asyncio.run(archive(config, Path(args.to), days, args.dry_run))
    except StoreUnavailable as exc:
        print(f"svara archive: the store is unreachable: {exc}", file=sys.stderr)
        return 2
    except ServiceError as exc:  # the store failing mid-run, as the service says it
        print(f"svara archive: {exc.message} ({exc.code})", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"svara archive: cannot write the archive: {exc}", file=sys.stderr)
        return 2
