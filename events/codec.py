"""Bytes <-> table events: msgspec JSON with one reusable encoder and decoder.

JSON (not msgpack) so stored events stay readable in `redis-cli` and in audits.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import msgspec

from events.table import TableEvent, TableEventBase

_encoder = msgspec.json.Encoder()
_decoder: msgspec.json.Decoder[TableEvent] = msgspec.json.Decoder(TableEvent)


def encode_table_event(event: TableEvent) -> bytes:
    return _encoder.encode(event)


def decode_table_event(data: bytes) -> TableEvent:
    """Decode one stored event; raises msgspec.ValidationError/DecodeError on bad bytes."""
    return _decoder.decode(data)


def decode_table_events(datas: Iterable[bytes]) -> Iterator[TableEvent]:
    """Decode many stored events lazily (replay's hot loop: no Python frame per event)."""
    return map(_decoder.decode, datas)


def event_type(event: TableEventBase) -> str:
    """The event's stable tag, e.g. `player_seated`."""
    tag = type(event).__struct_config__.tag
    assert isinstance(tag, str)
    return tag
