"""One checked truth for the event schema: the tables the two independent verifiers carry
(`service/verify.py`'s and fair.js's `EVENT_SCHEMA`) equal what events/table.py defines,
field by field (kind, and whether it may be left out), and each verifier refuses an event
that does not fit its table, so the table is what it reads by."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from events.store.base import StoredEvent
from service import verify
from tests.fair.schema import event_schema, normal
from tests.support import fair_node as node
from tests.support.corpus import ROOT
from tests.support.tamper import edit

GOOD = ROOT / "exports" / "good" / "v2-deck.json"


def _sorted_one_of(schema: Any) -> Any:
    """one_of values in one order (a Literal's order says nothing)."""
    if isinstance(schema, list):
        items = [_sorted_one_of(x) for x in schema]
        if items and items[0] == "one_of":
            return ["one_of", *sorted(items[1:], key=json.dumps)]
        return items
    if isinstance(schema, dict):
        return {k: _sorted_one_of(v) for k, v in schema.items()}
    return schema


TRUTH = _sorted_one_of(normal(event_schema()))


def test_verify_py_carries_the_schema_of_events_table() -> None:
    mine = _sorted_one_of(normal(verify.EVENT_SCHEMA))
    assert sorted(mine) == sorted(TRUTH)
    for kind in TRUTH:
        assert mine[kind] == TRUTH[kind], kind


def test_fair_js_carries_the_schema_of_events_table() -> None:
    mine = _sorted_one_of(node.run("return fair.EVENT_SCHEMA;"))
    assert sorted(mine) == sorted(TRUTH)
    for kind in TRUTH:
        assert mine[kind] == TRUTH[kind], kind


def _rewritten(change: Any, kind: str, good: Path = GOOD) -> dict[str, Any]:
    """The good v2 export with its first `kind` event changed by `change` and every hash after
    it recomputed (the chain holds: only the schema can refuse it)."""
    doc = json.loads(good.read_text())
    entry = next(e for e in doc["events"] if e["type"] == kind)
    stored = [StoredEvent(e["version"], e["raw"].encode(), float(e["at"]), e["hash"],
                          chain=e["chain"]) for e in doc["events"]]  # fmt: skip
    prev = doc["prev_hash"]
    out = edit(entry["version"], change, rehash=False)(stored)
    for e, s in zip(doc["events"], out, strict=True):
        e["raw"] = s.data.decode()
        if e["version"] >= entry["version"]:
            e["hash"] = verify.chain_link(e["chain"], prev, e["at"], e["raw"].encode())
        prev = e["hash"]
    return doc


# (what is wrong, the event type, the edit, what the refusal names)
BAD: list[tuple[str, str, Any, str]] = [
    ("a required field missing", "called", lambda d: d.pop("level"), "missing `level`"),
    ("a field of the wrong kind", "called", lambda d: d.update(level="10"), "`level`"),
    ("an unknown field", "called", lambda d: d.update(bonus=5), "`bonus`"),
    ("a value no Literal allows", "hand_settled", lambda d: d.update(reason="gift"), "`reason`"),
    ("a nested struct's field missing", "showdown",
     lambda d: next(iter(d["hands"].values())).pop("score"), "score"),
    ("a card that is none", "looked", lambda d: d.update(cards=["7c", "8c", "Zz"]), "Zz"),
    ("an optional field of the wrong kind", "folded", lambda d: d.update(left=1), "`left`"),
]  # fmt: skip


@pytest.mark.parametrize("case", [c[0] for c in BAD])
def test_each_verifier_refuses_an_event_that_does_not_fit_its_schema(case: str) -> None:
    _, kind, change, named = next(c for c in BAD if c[0] == case)
    doc = _rewritten(change, kind)
    with pytest.raises(verify.Malformed, match="events\\[") as refused:
        verify.load(json.dumps(doc))
    assert named in str(refused.value)
    answer = node.run(
        """
        try { await fair.verifyExport(arg); return {ok: true}; }
        catch (e) { return {error: e.message}; }""",
        doc,
    )
    assert "error" in answer and named in answer["error"], answer


def test_the_good_export_fits_both_schemas() -> None:
    doc = json.loads(GOOD.read_text())
    assert verify.verify(verify.load(json.dumps(doc))).ok
    assert node.run("return (await fair.verifyExport(arg)).ok;", doc) is True


@pytest.mark.parametrize("group", [-1001234567890, None])
def test_both_verifiers_read_a_table_opened_in_a_group(group: int | None) -> None:
    """`table_created.group_chat_id` (a /newtable table's group, or null) is optional."""
    doc = _rewritten(lambda d: d.update(group_chat_id=group), "table_created",
                     ROOT / "exports" / "good" / "timeout.json")  # hand 1: table_created in it
    assert verify.verify(verify.load(json.dumps(doc))).ok
    assert node.run("return (await fair.verifyExport(arg)).ok;", doc) is True
