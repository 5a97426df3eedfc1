"""The verifier corpus (docs/verifier-corpus, written by tests/fair/make_corpus.py): where it
lives, its cases, and its log files read back as the store's entries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from events.store.base import StoredEvent

ROOT = Path(__file__).resolve().parents[2] / "docs" / "verifier-corpus"


def read_log(entries: list[dict[str, Any]]) -> list[StoredEvent]:
    """A corpus log file back as the store's entries."""
    return [StoredEvent(e["version"], e["raw"].encode(), float(e["at"]), e["hash"],
                        chain=e["chain"]) for e in entries]  # fmt: skip


def corpus_case(name: str) -> dict[str, Any]:
    """Corpus case `name` from the manifest, with its export and its log entries read."""
    manifest = json.loads((ROOT / "manifest.json").read_text())
    case: dict[str, Any] = next(c for c in manifest["files"] if c["name"] == name)
    case["export"] = json.loads((ROOT / case["file"]).read_text())
    case["entries"] = json.loads((ROOT / case["log"]).read_text())
    return case
