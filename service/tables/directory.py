"""Directory entries: the append-only lists of tables and wallets a process can enumerate.

Entries are written idempotently (action_id = the entry's key) *before* the thing they list,
so a crash can leave an entry pointing at nothing (skipped by readers) but never an unlisted
table or wallet.
"""

from __future__ import annotations

import msgspec


class DirectoryEntry(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    pass


class TableListed(DirectoryEntry, frozen=True, kw_only=True, tag="table_listed"):
    table_id: str
    created_by: int


class WalletOpened(DirectoryEntry, frozen=True, kw_only=True, tag="wallet_opened"):
    user_id: int


AnyEntry = TableListed | WalletOpened

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(AnyEntry)


def encode_entry(entry: AnyEntry) -> bytes:
    return _encoder.encode(entry)


def decode_entry(data: bytes) -> AnyEntry | None:
    """None for bytes that are not a directory entry (ignored, never fatal)."""
    try:
        return _decoder.decode(data)
    except msgspec.DecodeError:
        return None
