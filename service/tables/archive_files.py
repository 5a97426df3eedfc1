"""The files an archived table leaves on disk, and how they are written (`svara archive`).

In `<dir>/<table_id>/`:

- `hand-<n:06d>.json` per settled hand: its export (`service.tables.export`, the format
  docs/VERIFYING.md describes), which `svara verify FILE` checks offline;
- `log.json`: the whole log, format `svara-table-log` version 1:
  `{"format", "format_version", "table_id", "archived_at", "closed_at", "version",
  "head_hash", "events": [entry + "data"]}`, each entry as in an export (`version`, `type`,
  `at` as stored and hashed, `chain`, `hash`, `raw` or `raw_b64`) with the event decoded as
  `data` (null if its bytes are no event), so the chain can be recomputed from `raw`.

Each file is written to a temporary name, flushed to disk (fsync), renamed over its final
name and the directory synced: a crash leaves either the old file or the whole new one, and
once `write_all` returns the files survive a power cut. `read_back` checks them from disk.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from events import table as ev
from events.store.base import StoredEvent
from events.table import TableEvent
from service.tables.export import build_export, entry
from service.tables.facade import JSON

LOG_FORMAT = "svara-table-log"
LOG_NAME = "log.json"


def hand_name(number: int) -> str:
    return f"hand-{number:06d}.json"


def settled_hands(events: Sequence[TableEvent | None]) -> list[int]:
    return [e.number for e in events if isinstance(e, ev.HandSettled)]


def log_document(
    table_id: str, stored: Sequence[StoredEvent], events: Sequence[TableEvent | None],
    *, archived_at: float, closed_at: float,
) -> JSON:
    rows: list[JSON] = []
    for s, e in zip(stored, events, strict=True):
        row = entry(s, e)
        row["data"] = _data(e)
        rows.append(row)
    return {
        "format": LOG_FORMAT,
        "format_version": 1,
        "table_id": table_id,
        "archived_at": archived_at,
        "closed_at": closed_at,
        "version": stored[-1].version,
        "head_hash": stored[-1].hash,
        "events": rows,
    }


def _data(event: TableEvent | None) -> Any:
    if event is None:
        return None
    data = msgspec.to_builtins(event, str_keys=True)
    if isinstance(data, dict):
        data.pop("type", None)
    return data


def documents(
    table_id: str, stored: Sequence[StoredEvent], events: Sequence[TableEvent | None],
    *, archived_at: float, closed_at: float,
) -> dict[str, bytes]:
    """File name -> contents: one export per settled hand, then the whole log."""
    files = {
        hand_name(n): _encode(build_export(table_id, n, stored, events))
        for n in settled_hands(events)
    }
    files[LOG_NAME] = _encode(
        log_document(table_id, stored, events, archived_at=archived_at, closed_at=closed_at)
    )
    return files


def _encode(doc: JSON) -> bytes:
    return (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def sync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_all(directory: Path, files: dict[str, bytes]) -> int:
    """Write every file durably into `directory` (made if missing); the bytes written."""
    directory.mkdir(parents=True, exist_ok=True)
    sync_dir(directory.parent)
    for name, data in files.items():
        write_atomic(directory / name, data)
    sync_dir(directory)
    return sum(len(d) for d in files.values())


def read_back(directory: Path, files: dict[str, bytes]) -> str | None:
    """None if every file on disk holds exactly what was written; else what differs."""
    for name, data in files.items():
        try:
            on_disk = (directory / name).read_bytes()
        except OSError as exc:
            return f"{name}: {exc}"
        if on_disk != data:
            return f"{name}: differs from what was written"
    return None
