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
        self._keys: dict[str, bytes] = {}
        self._ids: dict[str, tuple[int, bytes]] = {}

    def pack(self, positions: dict[str, int]) -> bytes:
        """RESP for `XREAD COUNT c BLOCK b STREAMS <keys> <version>-0 ...` (what redis-py's
        pack_command would produce for the same arguments)."""
        if len(self._keys) > 2 * len(positions) + 64:  # streams came and went: drop the rest
            self._keys = {k: v for k, v in self._keys.items() if k in positions}
            self._ids = {k: v for k, v in self._ids.items() if k in positions}
        keys: list[bytes] = []
        ids: list[bytes] = []
        for key, version in positions.items():
            packed_key = self._keys.get(key)
            if packed_key is None:
                packed_key = self._keys[key] = _bulk(key.encode())
            packed_id = self._ids.get(key)
            if packed_id is None or packed_id[0] != version:
                packed_id = self._ids[key] = (version, _bulk(b"%d-0" % version))
            keys.append(packed_key)
            ids.append(packed_id[1])
        count = self._head_len + 2 * len(keys)
        return b"*%d\r\n" % count + self._head + b"".join(keys) + b"".join(ids)
