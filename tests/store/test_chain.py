"""The chain definition itself, independent of any store."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from events.store.base import StoredEvent
from events.store.chain import ZERO_HASH, at_text, chain, find_break, link, link_v2

datas = st.lists(st.binary(max_size=40), min_size=1, max_size=30)


def stored(ds: list[bytes]) -> list[StoredEvent]:
    pairs = zip(ds, chain(ZERO_HASH, ds, "0.0"), strict=True)
    return [StoredEvent(i + 1, d, 0.0, h, chain=2) for i, (d, h) in enumerate(pairs)]


def stored_v1(ds: list[bytes]) -> list[StoredEvent]:
    out, h = [], ZERO_HASH
    for i, d in enumerate(ds):
        h = link(h, d)
        out.append(StoredEvent(i + 1, d, 0.0, h))
    return out


def test_definition_is_sha256_of_raw_previous_digest_and_bytes() -> None:
    first = hashlib.sha256(bytes(32) + b"event").hexdigest()
    assert link(ZERO_HASH, b"event") == first
    assert link(first, b"next") == hashlib.sha256(bytes.fromhex(first) + b"next").hexdigest()


def test_definition_v2_has_a_prefix_and_the_time_text_inside() -> None:
    """docs/CHAIN.md: raw previous digest || "svara-chain-v2\n" || at || "\n" || data."""
    expected = hashlib.sha256(bytes(32) + b"svara-chain-v2\n1732900000.25\nevent").hexdigest()
    assert expected == "c248a693b7689d44a177436e5cd2e950b504e13d2b960be803f6cc07d7c63793"
    assert link_v2(ZERO_HASH, "1732900000.25", b"event") == expected
    assert chain(ZERO_HASH, [b"event"], "1732900000.25") == [expected]
    assert at_text(1732900000.25) == "1732900000.25" and at_text(5) == "5.0"
    # the hot path's batch form is the same as one link after another
    two = chain(ZERO_HASH, [b"a", b"b"], "7.5")
    assert two[1] == link_v2(link_v2(ZERO_HASH, "7.5", b"a"), "7.5", b"b")


@given(datas)
def test_an_untouched_chain_verifies(ds: list[bytes]) -> None:
    assert find_break(stored(ds)) is None


@given(datas, st.data())
def test_any_changed_byte_is_found_at_its_version(ds: list[bytes], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(ds) - 1))
    events = stored(ds)
    old = events[i].data
    new = data.draw(st.binary(max_size=40).filter(lambda b: b != old))
    events[i] = StoredEvent(events[i].version, new, 0.0, events[i].hash, chain=2)
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
    events[i] = StoredEvent(a.version, b.data, 0.0, b.hash, chain=2)
    events[i + 1] = StoredEvent(b.version, a.data, 0.0, a.hash, chain=2)
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


@given(datas, st.data())
def test_any_moved_time_is_found_at_its_version(ds: list[bytes], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(ds) - 1))
    events = stored(ds)
    moved = data.draw(st.floats(allow_nan=False, allow_infinity=False).filter(lambda t: t != 0))
    events[i] = StoredEvent(events[i].version, events[i].data, moved, events[i].hash, chain=2)
    broken = find_break(events)
    assert broken is not None and broken[0] == i + 1


@given(datas)
def test_a_version_1_chain_still_verifies_and_may_go_on_in_version_2(ds: list[bytes]) -> None:
    old = stored_v1(ds)
    assert find_break(old) is None
    head = old[-1].hash
    new = [StoredEvent(len(ds) + 1, b"new", 3.0, link_v2(head, "3.0", b"new"), chain=2)]
    assert find_break([*old, *new]) is None
    # a version-1 entry after a version-2 one is a break, whatever its hash
    after = StoredEvent(len(ds) + 2, b"v1", 4.0, link(new[0].hash, b"v1"))
    broken = find_break([*old, *new, after])
    assert broken is not None and broken[0] == len(ds) + 2 and "went down" in broken[1]
    # and so is an unknown chain version
    odd = StoredEvent(1, ds[0], 0.0, old[0].hash, chain=7)
    broken = find_break([odd])
    assert broken is not None and "unknown chain version" in broken[1]
