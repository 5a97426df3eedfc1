"""The hub's blocking XREAD, packed by hand from cached pieces.

Why: redis-py packs every argument in Python on every call. The hub's XREAD names every
stream with local subscribers twice (key and position) and is re-issued after each delivery,
so with 200 tables packing it cost 0.4-0.7 ms -- more CPU than the action that woke it. Here
each key is encoded once and each position once per new version; a call is one join.
"""

from __future__ import annotations


def _bulk(value: bytes) -> bytes:
    return b"$%d\r\n%b\r\n" % (len(value), value)


class PackedXread:
    def __init__(self, count: int, block_ms: int) -> None:
        head = [b"XREAD", b"COUNT", b"%d" % count, b"BLOCK", b"%d" % block_ms, b"STREAMS"]
        self._head_len = len(head)
        self._head = b"".join(_bulk(a) for a in head)
        self._keys: tuple[str, ...] = ()
        self._keys_blob = b""
        self._versions: tuple[int, ...] = ()
        self._ids: list[bytes] = []

    def pack(self, positions: dict[str, int]) -> bytes:
        """RESP for `XREAD COUNT c BLOCK b STREAMS <keys> <version>-0 ...` (what redis-py's
        pack_command would produce for the same arguments). The keys' part is rebuilt only
        when the set of streams changes, and an id only when its stream's position moved."""
        keys = tuple(positions)
        versions = tuple(positions.values())
        if keys != self._keys:
            self._keys = keys
            self._keys_blob = b"".join([_bulk(k.encode()) for k in keys])
            self._versions = versions
            self._ids = [_bulk(b"%d-0" % v) for v in versions]
        elif versions != self._versions:
            ids = self._ids
            for i, (new, old) in enumerate(zip(versions, self._versions, strict=True)):
                if new != old:
                    ids[i] = _bulk(b"%d-0" % new)
            self._versions = versions
        count = self._head_len + 2 * len(keys)
        return b"*%d\r\n" % count + self._head + self._keys_blob + b"".join(self._ids)
