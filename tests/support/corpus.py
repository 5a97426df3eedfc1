"""The verifier corpus (docs/verifier-corpus, written by tests/fair/make_corpus.py): where it
lives and its log files read back as the store's entries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from events.store.base import StoredEvent

ROOT = Path(__file__).resolve().parents[2] / "docs" / "verifier-corpus"


def read_log(entries: list[dict[str, Any]]) -> list[StoredEvent]:
    """A corpus log file back as the store's entries."""
    return [StoredEvent(e["version"], e["raw"].encode(), float(e["at"]), e["hash"],
                        chain=e["chain"]) for e in entries]  # fmt: skip
