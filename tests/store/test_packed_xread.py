"""The hub's hand-packed XREAD is byte for byte what redis-py would send, as positions move."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from redis.asyncio.connection import Connection

from events.store.packed import PackedXread

_keys = st.text(alphabet="abcxyz{}:-_0123456789é", min_size=1, max_size=20)


def _redis_py(count: int, block: int, positions: dict[str, int]) -> bytes:
    ids = [f"{v}-0" for v in positions.values()]
    args = ("XREAD", "COUNT", count, "BLOCK", block, "STREAMS", *positions, *ids)
    return b"".join(Connection().pack_command(*args))


@given(st.lists(st.dictionaries(_keys, st.integers(0, 10**9), min_size=1, max_size=30),
                min_size=1, max_size=5))
def test_packed_like_redis_py(rounds: list[dict[str, int]]) -> None:
    packer = PackedXread(1000, 5000)
    for positions in rounds:  # one packer across calls: its caches must follow the changes
        assert packer.pack(positions) == _redis_py(1000, 5000, positions)
