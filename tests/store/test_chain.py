"""The chain definition itself, independent of any store."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from events.store.base import StoredEvent
from events.store.chain import ZERO_HASH, chain, find_break, link

datas = st.lists(st.binary(max_size=40), min_size=1, max_size=30)


def stored(ds: list[bytes]) -> list[StoredEvent]:
    pairs = zip(ds, chain(ZERO_HASH, ds), strict=True)
    return [StoredEvent(i + 1, d, 0.0, h) for i, (d, h) in enumerate(pairs)]


def test_definition_is_sha256_of_raw_previous_digest_and_bytes() -> None:
    first = hashlib.sha256(bytes(32) + b"event").hexdigest()
    assert link(ZERO_HASH, b"event") == first
    assert link(first, b"next") == hashlib.sha256(bytes.fromhex(first) + b"next").hexdigest()


@given(datas)
def test_an_untouched_chain_verifies(ds: list[bytes]) -> None:
    assert find_break(stored(ds)) is None


@given(datas, st.data())
def test_any_changed_byte_is_found_at_its_version(ds: list[bytes], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(ds) - 1))
    events = stored(ds)
    old = events[i].data
    new = data.draw(st.binary(max_size=40).filter(lambda b: b != old))
    events[i] = StoredEvent(events[i].version, new, 0.0, events[i].hash)
    broken = find_break(events)
    assert broken is not None
    assert broken[0] == i + 1


@given(datas.filter(lambda ds: len(ds) >= 2), st.data())
def test_a_removed_event_is_found_at_its_version(ds: list[bytes], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(ds) - 2))  # not the head (see test_tampering)
    events = stored(ds)
    del events[i]
    broken = find_break(events)
    assert broken is not None
    assert broken[0] == i + 1


@given(datas.filter(lambda ds: len(ds) >= 2), st.data())
def test_swapped_events_are_found_at_the_first(ds: list[bytes], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(ds) - 2))
    if ds[i] == ds[i + 1]:
        return  # swapping equal bytes changes nothing
    events = stored(ds)
    a, b = events[i], events[i + 1]
    events[i] = StoredEvent(a.version, b.data, 0.0, b.hash)
    events[i + 1] = StoredEvent(b.version, a.data, 0.0, a.hash)
    broken = find_break(events)
    assert broken is not None
    assert broken[0] == i + 1


def test_verifying_a_tail_from_a_known_hash() -> None:
    ds = [b"a", b"b", b"c", b"d"]
    events = stored(ds)
    assert find_break(events[2:], after=2, prev_hash=events[1].hash) is None
    broken = find_break(events[2:], after=2, prev_hash=ZERO_HASH)
    assert broken is not None
    assert broken[0] == 3
