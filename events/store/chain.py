"""The tamper-evident hash chain over a stream's stored event bytes.

Definition (version 1, fixed -- auditors recompute it outside this code base):

    hash_0 = 64 ASCII zeros ("000...0"), the value "before" version 1
    hash_v = lowercase_hex( sha256( bytes.fromhex(hash_{v-1}) || data_v ) )

where `data_v` is the event's stored bytes exactly as appended and `||` is concatenation: the
previous hash enters as its 32 raw digest bytes, never as hex text, so case and encoding
cannot be argued about. Each stream entry carries its own `hash_v`; a changed byte, a removed
entry or two swapped entries make the recomputed chain differ from the stored one at the first
affected version, and `find_break` names that version.

Only the event bytes are chained: `at` and `action_id` are store metadata (the event itself
carries every domain fact). The chain proves the log was not altered after the fact *relative
to a hash someone kept*; an attacker who can rewrite the whole stream can recompute it, which
is why clients and audits may pin the head hash they saw.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from events.store.base import StoredEvent

ZERO_HASH = "0" * 64


def link(prev_hash: str, data: bytes) -> str:
    """The hash of an entry holding `data` whose predecessor's hash is `prev_hash`."""
    return hashlib.sha256(bytes.fromhex(prev_hash) + data).hexdigest()


def chain(prev_hash: str, datas: Sequence[bytes]) -> list[str]:
    """Hashes for consecutive entries `datas` following an entry hashed `prev_hash`."""
    out: list[str] = []
    h = prev_hash
    for data in datas:
        h = link(h, data)
        out.append(h)
    return out


def find_break(
    events: Iterable[StoredEvent], *, after: int = 0, prev_hash: str = ZERO_HASH
) -> tuple[int, str, int, str] | None:
    """Check entries that should follow version `after` (hashed `prev_hash`).

    Returns None when the entries are gap-free and every stored hash matches, else
    `(bad_version, reason, last_good_version, last_good_hash)` for the first mismatch.
    """
    expected = after + 1
    h = prev_hash
    for ev in events:
        if ev.version != expected:
            reason = "missing event" if ev.version > expected else "out-of-order event"
            return expected, f"{reason} (found version {ev.version})", expected - 1, h
        try:
            recomputed = link(h, ev.data)
        except ValueError:  # the previous stored hash was not hex
            return expected, "stored hash is not hex", expected - 1, h
        if recomputed != ev.hash:
            return expected, "stored hash does not match the event bytes", expected - 1, h
        h = recomputed
        expected += 1
    return None
