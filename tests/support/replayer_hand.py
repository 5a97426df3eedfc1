"""The hand the replayer benchmark steps through (bench/bench_replayer.py): the svara of
docs/verifier-corpus (several deals, about 40 events), replayed and exported by the service."""

from __future__ import annotations

import json
from typing import Any

from events.store.factory import open_redis_store
from service.tables.facade import User
from service.tables.service import TableService
from tests.support.corpus import corpus_case, read_log
from tests.support.tamper import tamper


async def svara_hand() -> tuple[dict[str, Any], str, int]:
    """The replay (as its first seated player sees it) and the export of the corpus's svara
    hand (docs/verifier-corpus: several deals), its table's stored log written into the
    embedded store as the store keeps it and read by the service; and its number of deals."""
    case = corpus_case("svara")
    table, hand = case["export"]["table_id"], case["export"]["hand"]
    store = open_redis_store(None)
    service = TableService(store, namespace="bench:", think_seconds=0.0, poll_seconds=0.01)
    stored = read_log(case["entries"])
    await tamper(store, f"bench:table:{table}", lambda _events: stored)
    viewer = User(id=case["export"]["seats"][0]["user_id"], name="viewer")
    try:
        replay = await service.replay(viewer, table, hand)
        exported = await service.export(table, hand)
    finally:
        await service.stop()
    deals = sum(1 for s in replay["steps"] if s["event"]["type"] in
                ("hand_started", "svara_deal_started"))
    return replay, json.dumps(exported), deals
