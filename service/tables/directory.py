"""Directory entries: the append-only lists of tables and wallets written before the indexes
beside the streams replaced them (`service.tables.index`, the transfer marks).

Nothing writes them any more: a version-checked append to one shared stream per table and per
new wallet made bursts of creations contend (200 at once got 503s). They are read once per
namespace, to index a deployment that predates the indexes (`TableService.ensure_indexes`).
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
