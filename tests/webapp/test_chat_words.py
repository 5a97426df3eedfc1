"""The quick chat's ids in the web app are the server's (no browser needed)."""

from __future__ import annotations

import re
from pathlib import Path

from service.tables.chat import PHRASES, REACTIONS


def test_the_chat_words_are_the_servers_ids() -> None:
    """One source of the ids: the server's lists; the app has a catalog key for each."""
    source = (Path(__file__).resolve().parents[2] / "service" / "api" / "static" / "js"
              / "chatwords.js").read_text(encoding="utf-8")
    phrases = source.split("export const PHRASES")[1].split("};")[0]
    reactions = source.split("export const REACTIONS")[1].split("};")[0]
    ids = re.compile(r"^\s+(\w+):", re.M)
    assert ids.findall(phrases) == list(PHRASES)
    assert ids.findall(reactions) == list(REACTIONS)
