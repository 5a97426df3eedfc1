"""The tamper-evident hash chain over a stream's stored entries.

Definition (fixed -- auditors recompute it outside this code base; docs/CHAIN.md says it again
for them). Each stream entry carries its chain version `c` (an entry without one is version 1):

    hash_0 = 64 ASCII zeros ("000...0"), the value "before" version 1
    version 1:  hash_v = hex(sha256(raw(hash_{v-1}) || data_v))
    version 2:  hash_v = hex(sha256(raw(hash_{v-1}) || "svara-chain-v2\\n" || at_v || "\\n"
                                    || data_v))

where `raw(h)` is the 32 digest bytes of the previous hash (never its hex text), `data_v` the
event's stored bytes exactly as appended, `at_v` the entry's stored time text (ASCII: the
shortest decimal that reads back as the same double, as Python's `repr(float)` writes it, e.g.
`1732900000.25`), `||` concatenation and `hex` lowercase. The time contains no newline, so the
preimage splits one way only; and a version-2 preimage never reads as a version-1 one whose
data is an event (that would have to start with `{`, not `svara-chain-v2`).

Every entry written since 2026-11-30 is version 2 (`functions.lua` stores `c` = 2 with it), so
its time is inside the chain; entries written before keep verifying as version 1 (their time
is store metadata only). A verifier knows which formula applies from the entry's `c`, and the
version may never go down along a stream: once an entry is version 2, an entry after it that
claims version 1 is a break ("chain version went down"), so nobody can quietly re-label the
newer entries as the older, weaker kind. Relabelling is no shortcut anyway: the version is in
the hashed bytes (the prefix), so a changed label changes the hash, and every later link.

A changed byte or time, a removed entry or two swapped entries make the recomputed chain
differ from the stored one at the first affected version, and `find_break` names that
version. The chain proves the log was not altered *relative to a hash someone kept*: an
attacker who can rewrite the whole stream can recompute it, which is why every event a player
receives carries its hash (players and audits pin them).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from events.store.base import StoredEvent

ZERO_HASH = "0" * 64
V1 = 1
V2 = 2
CURRENT = V2  # what `functions.lua` writes
_V2_PREFIX = b"svara-chain-v2\n"


def at_text(at: float) -> str:
    """The stored text of an entry's time (what version 2 hashes)."""
    return repr(float(at))


def link(prev_hash: str, data: bytes) -> str:
    """Version 1: the hash of an entry holding `data` whose predecessor's hash is
    `prev_hash` (the time is not in it)."""
    return hashlib.sha256(bytes.fromhex(prev_hash) + data).hexdigest()


def link_v2(prev_hash: str, at: str, data: bytes) -> str:
    """Version 2: as version 1, with the entry's time text `at` inside the hashed bytes."""
    return hashlib.sha256(
        b"%b%b%b\n%b" % (bytes.fromhex(prev_hash), _V2_PREFIX, at.encode("ascii"), data)
    ).hexdigest()


def link_of(version: int, prev_hash: str, at: str, data: bytes) -> str:
    """The hash of an entry of chain `version` (ValueError for a version this code lacks)."""
    if version == V2:
        return link_v2(prev_hash, at, data)
    if version == V1:
        return link(prev_hash, data)
    raise ValueError(f"unknown chain version {version}")


def chain(prev_hash: str, datas: Sequence[bytes], at: str) -> list[str]:
    """Version-2 hashes for consecutive entries `datas` appended together at time text `at`,
    following an entry hashed `prev_hash`. The append's hot path: the fixed part of each
    preimage is built once."""
    out: list[str] = []
    middle = b"%b%b\n" % (_V2_PREFIX, at.encode("ascii"))
    sha256 = hashlib.sha256
    h = bytes.fromhex(prev_hash)
    for data in datas:
        h = sha256(h + middle + data).digest()
        out.append(h.hex())
    return out


def find_break(
    events: Iterable[StoredEvent],
    *,
    after: int = 0,
    prev_hash: str = ZERO_HASH,
    floor: int = V1,
) -> tuple[int, str, int, str] | None:
    """Check entries that should follow version `after` (hashed `prev_hash`); `floor` is the
    highest chain version met before them (a later entry may not claim a lower one).

    Returns None when the entries are gap-free and every stored hash matches, else
    `(bad_version, reason, last_good_version, last_good_hash)` for the first mismatch.
    """
    expected = after + 1
    h = prev_hash
    for ev in events:
        if ev.version != expected:
            reason = "missing event" if ev.version > expected else "out-of-order event"
            return expected, f"{reason} (found version {ev.version})", expected - 1, h
        kind = ev.chain
        if kind != V1 and kind != V2:
            return expected, f"unknown chain version {kind}", expected - 1, h
        if kind < floor:
            return expected, f"chain version went down (v{kind} after v{floor})", expected - 1, h
        try:
            recomputed = link_of(kind, h, at_text(ev.at), ev.data)
        except ValueError:  # the previous stored hash was not hex
            return expected, "stored hash is not hex", expected - 1, h
        if recomputed != ev.hash:
            what = "event bytes" if kind == V1 else "event bytes and time"
            return expected, f"stored hash does not match the {what} (v{kind})", expected - 1, h
        h = recomputed
        floor = kind
        expected += 1
    return None
