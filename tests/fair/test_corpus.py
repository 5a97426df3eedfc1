"""The verifier corpus (docs/verifier-corpus): written by tests/fair/make_corpus.py from games
with fixed seeds, committed, and judged the same by all three verifiers -- `svara verify`
(service/verify.py, run as the standalone script it is), the server's audit (its checks on
each hand's stored log, `service.tables.audit_checks.check_log`) and fair.js (under node) --
as its manifest says."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from service import verify
from service.tables.audit_checks import check_log
from service.tables.export import decode_lenient
from tests.fair.make_corpus import CASES, GOOD, build
from tests.support import fair_node as node
from tests.support.corpus import ROOT, read_log

MANIFEST: dict[str, Any] = json.loads((ROOT / "manifest.json").read_text())
ITEMS = {item["name"]: item for item in MANIFEST["files"]}


def _doc(item: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads((ROOT / item["file"]).read_text())
    return out


def test_the_committed_corpus_is_what_the_generator_writes() -> None:
    """Reproducible: the same games, the same bytes (else run `python -m
    tests.fair.make_corpus` and commit)."""
    files = build()
    on_disk = {str(p.relative_to(ROOT)) for p in ROOT.rglob("*.json")}
    assert on_disk == set(files)
    for path, text in files.items():
        assert (ROOT / path).read_text() == text, path


def test_the_corpus_has_every_kind_of_hand_the_docs_promise() -> None:
    assert set(ITEMS) == set(GOOD) | {c.name for c in CASES}
    decks = {d for item in ITEMS.values() if item["verdict"] == "verified" for d in item["decks"]}
    chains = {c for item in ITEMS.values() if item["verdict"] == "verified" for c in item["chain"]}
    assert decks == {verify.V1_DECK, verify.V2_DECK} and chains == {1, 2}
    checked = {item["check"] for item in ITEMS.values() if item["verdict"] == "failed"}
    assert checked == {"chain", "chips", "deck", "commitment", "seeds", "scores", "winner"}
    assert any(item["verdict"] == "malformed" for item in ITEMS.values())
    for item in ITEMS.values():
        assert item["format"] == verify.FORMAT and item["format_version"] == 1
        if item["verdict"] == "failed":
            assert item["failures"][item["check"]] == item["version"]


def _failures(results: list[dict[str, Any]]) -> dict[str, int]:
    return {r["check"]: r["version"] for r in results if not r["ok"]}


@pytest.mark.parametrize("name", sorted(ITEMS))
def test_svara_verify_gives_the_manifests_verdict(name: str) -> None:
    item = ITEMS[name]
    path = ROOT / item["file"]
    # the standalone script, standard library only, as anyone would run it
    done = subprocess.run([sys.executable, "-I", verify.__file__, str(path)],
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    expected_status = {"verified": 0, "failed": 1, "malformed": 2}[item["verdict"]]
    assert done.returncode == expected_status, (done.stdout, done.stderr)
    if item["verdict"] == "malformed":
        assert "is malformed" in done.stderr
        return
    report = verify.verify(verify.load(path.read_text()))
    assert _failures(report.results()) == item["failures"]
    for check, version in item["failures"].items():
        assert f"{check:<11} FAILED at version {version}" in done.stdout


@pytest.mark.parametrize("name", sorted(ITEMS))
def test_the_servers_audit_gives_the_manifests_verdict(name: str) -> None:
    item = ITEMS[name]
    doc = _doc(item)
    stored = read_log(json.loads((ROOT / item["log"]).read_text()))
    # the export is the log's own: the audit judges the very events the file holds
    assert [e["hash"] for e in doc["events"]] == [
        s.hash for s in stored[-len(doc["events"]) :]]  # fmt: skip
    checked = check_log(doc["table_id"], doc["hand"], stored, decode_lenient(stored))
    failures = _failures(checked.findings.results())
    expected = item.get("audit", item)
    assert failures == expected["failures"]
    assert (not failures) == (expected["verdict"] == "verified")


def test_fair_js_gives_the_manifests_verdicts() -> None:
    names = sorted(ITEMS)
    answers = node.run(
        """
        const out = [];
        for (const doc of arg) {
          try {
            const r = await fair.verifyExport(doc);
            out.push({ok: r.ok, results: r.results});
          } catch (e) { out.push({error: e.message}); }
        }
        return out;""",
        [_doc(ITEMS[n]) for n in names],
    )
    for name, answer in zip(names, answers, strict=True):
        item = ITEMS[name]
        if item["verdict"] == "malformed":
            assert "error" in answer, (name, answer)
            continue
        assert "results" in answer, (name, answer)
        assert _failures(answer["results"]) == item["failures"], name
        assert answer["ok"] == (item["verdict"] == "verified"), name
