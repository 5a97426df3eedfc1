"""Tables from before v2 keep verifying: a table of 150 hands recorded with the game core of
commit e03789e (tests/game/data), stored the way the store wrote it then (chain version 1:
no `c`, hashes without the time), audits and exports hand by hand with decks v1 and chain v1;
played on, it gets version-2 entries, one more v1 hand (no commitment was published in
advance) and then v2 hands, and every hand -- old, crossing over, new -- verifies on the
server and offline."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

import pytest

from events.codec import decode_table_event
from events.store.chain import link
from events.store.redis_store import RedisEventStore
from events.table import CardsDealt
from service import verify
from service.tables.facade import User
from tests.fair.game import play_randomly
from tests.support.clock import FakeClock
from tests.support.services import Factory

pytestmark = pytest.mark.redis
V1_LOG = Path(__file__).resolve().parents[1] / "game" / "data" / "v1_table_log.jsonl.gz"


def _recorded() -> list[list[bytes]]:
    """The recorded log, one list of event bytes per command (one append each)."""
    with gzip.open(V1_LOG, "rt") as f:
        lines = [json.loads(line) for line in f if not line.startswith("#")]
    return [[str(e).encode() for e in line["events"]] for line in lines]


async def _store_as_written_before_v2(store: RedisEventStore, stream: str) -> int:
    key = f"svara:{{{stream}}}:events"
    client: Any = store.client
    h, version, at = "0" * 64, 0, 1_700_000_000.0
    for i, batch in enumerate(_recorded()):
        for data in batch:
            version += 1
            h = link(h, data)
            await client.xadd(key, {"d": data, "at": repr(at), "h": h, "a": f"old:{i}"},
                              id=f"{version}-0")  # fmt: skip
        at += 1.5
    return version


async def test_a_table_from_before_v2_verifies_and_plays_on(
    services: Factory, clock: FakeClock
) -> None:
    service = await services()
    store = service.store
    assert isinstance(store, RedisEventStore)
    stream = service.streams.table("golden")
    last_old = await _store_as_written_before_v2(store, stream)
    assert await store.verify(stream) == last_old

    async def both(hand: int) -> dict[str, Any]:
        audit = await service.audit("golden", hand)
        exported = await service.export("golden", hand)
        report = verify.verify(verify.load(json.dumps(exported)))
        assert audit["verified"] and report.ok, (hand, audit["failures"], report.failures)
        return exported

    for hand in (1, 75, 148, 150):
        exported = await both(hand)
        assert {e["chain"] for e in exported["events"]} == {1}
        dealt = [json.loads(e["raw"]) for e in exported["events"] if e["type"] == "cards_dealt"]
        assert dealt and all("algorithm" not in d for d in dealt)  # v1 decks

    state = (await service.repo.load("golden")).state
    assert state is not None and state.hand_number == 150
    clock.now = 1_800_000_000.0
    users = [User(id=s.user_id, name=s.name) for s in state.seats if s is not None]
    await play_randomly(service, clock, "golden", users, 154, random.Random(1))
    stored = await store.read(stream)
    assert [e.chain for e in stored[last_old:]] == [2] * (len(stored) - last_old)
    algorithms = {}
    for s in stored[last_old:]:
        event = decode_table_event(s.data)
        if isinstance(event, CardsDealt) and event.deal == 1:
            algorithms[s.version] = event.algorithm
    assert list(algorithms.values())[:2] == ["hmac-sha256-fy-v1", "hmac-sha256-fy-v2"]
    for hand in (151, 152, 153):
        await both(hand)
    assert await store.verify(stream) == stored[-1].version
