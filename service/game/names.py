"""What a table's name may be: 1-32 characters of any script, trimmed, with no control or
formatting characters (they could hide or reorder what other players read)."""

from __future__ import annotations

import unicodedata

MAX_NAME = 32
_REFUSED = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def table_name(raw: str) -> str:
    """The name to record; ValueError says why `raw` is refused."""
    name = raw.strip()
    if not name:
        raise ValueError("a table's name needs at least one visible character")
    if len(name) > MAX_NAME:
        raise ValueError(f"a table's name is at most {MAX_NAME} characters")
    for char in name:
        if unicodedata.category(char) in _REFUSED:
            raise ValueError("a table's name may not hold control or formatting characters")
    return name
