"""Every kind of hand of the verifier corpus (v1 and v2 decks, several svara deals, a split
pot, a capped showdown, blinds, a timeout, a player leaving mid-hand), stored in real Redis as
its log says, indexed by `svara reindex`'s rebuild, then replayed and transcribed: the steps
are the hand's events for every viewer, no step shows a viewer what they may not see, the
replay reads the hand's events only, and the English transcript is `svara verify --text`'s."""

from __future__ import annotations

import json
from typing import Any

import pytest

from events.codec import decode_table_event
from events.store.keys import keys_for
from service import verify
from service.tables.audit_checks import check_log
from service.tables.export import decode_lenient
from service.tables.facade import User
from service.tables.service import TableService
from tests.support.corpus import ROOT, read_log
from tests.support.http_player import check_event_privacy, check_seed_privacy, check_view_privacy
from tests.support.services import Factory

MANIFEST: dict[str, Any] = json.loads((ROOT / "manifest.json").read_text())
GOOD = [item for item in MANIFEST["files"] if item["verdict"] == "verified"]


async def store_log(service: TableService, log: list[dict[str, Any]], table_id: str) -> None:
    """The corpus log as stream entries, byte for byte (hashes, times and chain versions as
    stored), the way `functions.lua` writes them."""
    redis: Any = service.store.client  # type: ignore[attr-defined]
    key = keys_for(service.streams.table(table_id)).events
    for e in log:
        fields = {"d": e["raw"].encode(), "at": e["at"], "h": e["hash"]}
        if e["chain"] == 2:
            fields["c"] = "2"
        await redis.xadd(key, fields, id=f"{e['version']}-0")


@pytest.mark.parametrize("item", GOOD, ids=[i["name"] for i in GOOD])
async def test_every_kind_of_hand_replays_and_transcribes(
    services: Factory, item: dict[str, Any]
) -> None:
    service = await services()
    doc = json.loads((ROOT / item["file"]).read_text())
    log = json.loads((ROOT / item["log"]).read_text())
    table_id, hand = doc["table_id"], doc["hand"]
    await store_log(service, log, table_id)
    await service.rebuild_indexes()
    stored = read_log(log)
    checked = check_log(table_id, hand, stored, decode_lenient(stored))
    audits = {hand: {"deals": checked.deals}}
    record = stored[checked.start : checked.end + 1]
    users = {e.user_id for s in stored if (e := decode_table_event(s.data))
             and type(e).__name__ == "PlayerSeated"}  # type: ignore[attr-defined]  # fmt: skip
    entries = 0
    read = service.store.read

    async def counting(stream: str, after: int = 0, limit: int | None = None) -> Any:
        nonlocal entries
        got = await read(stream, after, limit)
        entries += len(got)
        return got

    service.store.read = counting  # type: ignore[method-assign]
    for viewer in [*sorted(users), None]:
        user = User(id=viewer, name="x") if viewer is not None else None
        entries = 0
        replay = await service.replay(user, table_id, hand)
        steps = replay["steps"]
        assert [(s["version"], s["hash"]) for s in steps] == [(r.version, r.hash) for r in record]
        assert entries == len(steps)  # by the index: the hand's own events only
        seat = next((s["view"]["you"]["seat"] for s in steps
                     if s["view"]["you"]["seat"] is not None), -1)  # fmt: skip
        events = [{"version": s["version"], **s["event"]} for s in steps]
        check_event_privacy(events, seat, audits)
        check_seed_privacy(events, audits)
        for s in steps:
            if s["event"]["type"] != "showdown":  # its cards are the showdown's own
                check_view_privacy(s["view"])
    # each player's own list (rebuilt by the reindex): the nets of a hand add up to minus
    # its rake, a player who left mid-hand included
    nets = []
    for viewer in users:
        listed = (await service.my_hands(User(id=viewer, name="x"), None, 100))["hands"]
        nets += [h["won"] for h in listed if (h["table_id"], h["hand"]) == (table_id, hand)]
    settled = decode_table_event(record[-1].data)
    assert len(nets) >= 2 and sum(nets) == -settled.rake  # type: ignore[union-attr]
    english = await service.transcript(None, table_id, hand, "en")
    assert english == verify.transcript(verify.load(json.dumps(doc)))
    for language in ("ru", "ar"):
        assert await service.transcript(None, table_id, hand, language) != english
