"""`svara verify FILE` and `svara audit TABLE HAND`: the offline verifier as a command and as an
independent implementation.

It must share no code with the server (it checks the server's code rather than repeating it):
its imports are the standard library's only, and its deck, chain and scorer are held to the
server's on the test vectors of docs/FAIRNESS.md "Decks", random seeds and all 4960 hands
under every scoring variant.
"""

from __future__ import annotations

import ast
import asyncio
import json
import os
import subprocess
import sys
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events.store.chain import link_of
from service import verify
from service.game.cards import CANONICAL_DECK
from service.game.deck import mix_of, shuffled_deck, shuffled_deck_v2
from service.game.scoring import compute_score
from service.game.settings import ScoringOptions
from tests.fair.game import Played, played
from tests.support.clock import FakeClock
from tests.support.services import Factory
from tests.support.tamper import edit, tamper

ROOT = Path(__file__).resolve().parents[2]


def test_the_verifier_imports_nothing_but_the_standard_library() -> None:
    tree = ast.parse((ROOT / "service" / "verify.py").read_text())
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    top = {name.split(".")[0] for name in names} - {"__future__"}
    assert top <= sys.stdlib_module_names, top - sys.stdlib_module_names


def test_design_md_test_vectors() -> None:
    assert verify.deck(bytes(32), "t1", 1, 1)[:8] == "8h 7s Qh Js Ks Ad Qs Th".split()
    mix = verify.mix_of({0: "alice-seed", 2: "b0b", 5: "7f3a"})
    assert mix == "9603fecc74ddc9ae651d6cf7dae0749b2dbc23d0cee87b0a1f5b25cf65c75b23"
    assert verify.deck(bytes(32), "t1", 1, 1, mix)[:8] == "Tc Jh Qs 7c Kh Ts Jc Jd".split()


@given(
    st.binary(min_size=32, max_size=32),
    st.text("abc-_09", min_size=1, max_size=12),
    st.integers(1, 10**6),
    st.integers(1, 9),
    st.dictionaries(st.integers(0, 9), st.text("aZ9_-", min_size=1, max_size=64), max_size=10),
)
def test_decks_match_the_servers(
    seed: bytes, table: str, hand: int, deal: int, seeds: dict[int, str]
) -> None:
    assert verify.deck(seed, table, hand, deal) == shuffled_deck(seed, table, hand, deal)
    assert verify.mix_of(seeds) == mix_of(seeds)
    mix = mix_of(seeds)
    assert verify.deck(seed, table, hand, deal, mix) == shuffled_deck_v2(
        seed, table, hand, deal, mix
    )


@given(st.sampled_from([1, 2]), st.binary(min_size=32, max_size=32), st.binary(max_size=80),
       st.floats(0, 4e9))  # fmt: skip
def test_chain_links_match_the_stores(chain: int, prev: bytes, data: bytes, at: float) -> None:
    text = repr(at)
    assert verify.chain_link(chain, prev.hex(), text, data) == link_of(
        chain, prev.hex(), text, data
    )


def test_scores_match_the_servers_on_every_hand_and_variant() -> None:
    hands = list(combinations(CANONICAL_DECK, 3))
    assert len(hands) == 4960
    for joker_pair in ("sum", "substitute"):
        for natural in (34, 30, 33):
            options = ScoringOptions(joker_pair=joker_pair, natural_777=natural)
            for cards in hands:
                assert verify.score(cards, joker_pair, natural) == compute_score(cards, options)


WORKED = (
    "7h 9d 9c=9", "Ts Td Tc=30", "8c Kh 9d=10", "Kh 9h Qc=19", "Qc Qh 9d=10", "As Ad Tc=22",
    "8s Ad 7c=22", "Td 9d Jd=29", "Qc Qh Qd=30", "7c Kh Kd=31", "7c Ah Ad=33", "Qd Kd Ts=20",
    "Ts 8s Kh=18", "8s 8h 8d=24", "7h 7d 7s=34", "7h 7d Ks=23", "Ts Th Ac=11", "Js Qh Tc=10",
    "7c 7d Td=28",
)  # fmt: skip


def test_the_worked_examples_of_rules_md() -> None:
    for example in WORKED:
        cards, value = example.split("=")
        assert verify.score(cards.split()) == int(value), example
    assert verify.score(["7c", "Kh", "Kd"], "substitute") == 30
    assert verify.score(["7d", "7h", "7s"], natural_777=30) == 30
    assert verify.score(["7c", "7d", "7s"], natural_777=30) == 34


# -- the command ----------------------------------------------------------------------------


def _svara(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.cli", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, **(env or {})},
    )  # fmt: skip


@pytest.fixture
async def table(services: Factory, clock: FakeClock) -> Played:
    return await played(await services(), clock)


def _write(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=1))


async def _export_file(p: Played, path: Path) -> dict[str, Any]:
    exported = await p.service.export(p.table_id, p.hand)
    _write(path, exported)
    return exported


@pytest.mark.redis
async def test_a_good_export_passes_with_a_readable_account(table: Played, tmp_path: Path) -> None:
    exported = await _export_file(table, tmp_path / "hand.json")
    result = _svara("verify", str(tmp_path / "hand.json"))
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "Every check passed." in out
    for check in ("chain", "commitment", "seeds", "deck", "cards", "scores", "winner", "chips"):
        assert f"  {check:<11} ok" in out
    called = table.versions["called"]
    line = next(x for x in out.splitlines() if x.startswith(f"v{called} "))
    assert " calls " in line and "; pot " in line  # who, what, amount, pot after
    assert "hmac-sha256-fy-v2" in out and "alice-seed" in out
    # the file carries what a verifier needs
    assert exported["format"] == "svara-hand-export" and exported["format_version"] == 1
    types = [e["type"] for e in exported["events"]]
    assert types[0] == "hand_settled" and types[1] == "seed_drawn" and types[-1] == "hand_settled"
    assert all(len(e["hash"]) == 64 and e["chain"] == 2 for e in exported["events"])
    assert {e["type"] for e in exported["context"]} == {"table_created", "client_seed_set"}


@pytest.mark.redis
async def test_an_export_of_a_table_with_a_recorded_idle_limit_passes(
    services: Factory, clock: FakeClock
) -> None:
    """`table_created` carries the deployment's idle limit (`idle_close_seconds`) in the
    export's context: a field the verifier does not need, and no reason to fail."""
    p = await played(await services(idle_close_seconds=600), clock)
    exported = await p.service.export(p.table_id, p.hand)
    [created] = [e for e in exported["context"] if e["type"] == "table_created"]
    assert json.loads(created["raw"])["idle_close_seconds"] == 600
    report = verify.verify(verify.load(json.dumps(exported)))
    assert report.failures == [] and "chain" in report.ran and "winner" in report.ran


@pytest.mark.redis
async def test_an_edited_file_fails_naming_the_check_and_version(
    table: Played, tmp_path: Path
) -> None:
    exported = await _export_file(table, tmp_path / "hand.json")
    called = table.versions["called"]
    entry = next(e for e in exported["events"] if e["version"] == called)
    data = json.loads(entry["raw"])
    data["amount"] += 5
    entry["raw"] = json.dumps(data, separators=(",", ":"))
    _write(tmp_path / "edited.json", exported)
    result = _svara("verify", str(tmp_path / "edited.json"))
    assert result.returncode == 1
    assert f"chain       FAILED at version {called} (chain v2)" in result.stdout
    assert f"chips       FAILED at version {called}" in result.stdout
    # entries removed or reordered inside the file
    events = exported["events"]
    i = next(k for k, e in enumerate(events) if e["version"] == called)
    removed = [*events[:i], *events[i + 1 :]]
    reordered = [*events[:i], events[i + 1], events[i], *events[i + 2 :]]
    for name, changed in [("removed", removed), ("reordered", reordered)]:
        _write(tmp_path / f"{name}.json", {**exported, "events": changed})
        result = _svara("verify", str(tmp_path / f"{name}.json"))
        assert result.returncode == 1, name
        assert f"chain       FAILED at version {called}: events out of order or missing" in (
            result.stdout), (name, result.stdout)  # fmt: skip


@pytest.mark.redis
async def test_pins_a_contradicted_hash_or_commitment(table: Played, tmp_path: Path) -> None:
    exported = await _export_file(table, tmp_path / "hand.json")
    path = str(tmp_path / "hand.json")
    last = exported["events"][-1]
    started = next(e for e in exported["events"] if e["type"] == "hand_started")
    commitment = json.loads(started["raw"])["commitment"]
    good = _svara("verify", path, "--pin", f"{last['version']}:{last['hash']}",
                  "--commitment", f"{table.hand}:1:{commitment}")  # fmt: skip
    assert good.returncode == 0 and "  pins        ok" in good.stdout, good.stdout
    bad = _svara("verify", path, "--pin", f"{last['version']}:{'0' * 64}")
    assert bad.returncode == 1
    assert f"pins        FAILED at version {last['version']}" in bad.stdout
    bad = _svara("verify", path, "--commitment", f"{table.hand}:1:{'1' * 64}")
    assert bad.returncode == 1
    assert f"pins        FAILED at version {started['version']}" in bad.stdout


def test_malformed_files_exit_2_naming_the_problem(tmp_path: Path) -> None:
    cases = {
        "not json": ("{oops", "not JSON"),
        "another format": (json.dumps({"format": "pgn"}), "not a svara-hand-export file"),
        "no events": (json.dumps({"format": "svara-hand-export", "format_version": 1,
                                  "table_id": "t", "hand": 1, "settings": {}, "seats": [],
                                  "prev_hash": "0" * 64}), "missing `events`"),
        "a bad entry": (json.dumps({"format": "svara-hand-export", "format_version": 1,
                                    "table_id": "t", "hand": 1, "settings": {"ante": 1},
                                    "seats": [],
                                    "prev_hash": "0" * 64,
                                    "events": [{"version": 1, "type": "x", "at": "1.0",
                                                "chain": 2, "hash": "00"}]}),
                        "events[0] (version 1): missing `raw`"),
        "a newer format": (json.dumps({"format": "svara-hand-export", "format_version": 9}),
                           "unknown format_version 9"),
    }  # fmt: skip
    for name, (text, message) in cases.items():
        path = tmp_path / f"{name.replace(' ', '_')}.json"
        path.write_text(text)
        result = _svara("verify", str(path))
        assert result.returncode == 2, (name, result.stdout, result.stderr)
        assert "is malformed" in result.stderr and message in result.stderr, (name, result.stderr)
    missing = _svara("verify", str(tmp_path / "nowhere.json"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    assert _svara("verify").returncode == 2


@pytest.mark.redis
async def test_svara_audit_against_redis_and_its_export(
    table: Played, tmp_path: Path, redis_url: str
) -> None:
    namespace = table.service.streams.namespace.rstrip(":")
    env = {"REDIS_URL": redis_url, "SVARA_NAMESPACE": namespace}
    path = tmp_path / "from-cli.json"
    result = _svara("audit", table.table_id, str(table.hand), "--export", str(path), env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Verified." in result.stdout and "  seeds       ok" in result.stdout
    assert _svara("verify", str(path)).returncode == 0
    # a tampered log: the audit names the check and version, exit 1; so does verify
    version = table.versions["cards_dealt"]

    def swap_cards(d: dict[str, Any]) -> None:
        seats = sorted(d["cards"])
        d["cards"][seats[0]], d["cards"][seats[1]] = d["cards"][seats[1]], d["cards"][seats[0]]

    await tamper(table.store, table.stream, edit(version, swap_cards, rehash=True))
    result = _svara("audit", table.table_id, str(table.hand), "--export", str(path), env=env)
    assert result.returncode == 1
    assert f"deck        FAILED at version {version}" in result.stdout
    verified = _svara("verify", str(path))
    assert verified.returncode == 1
    assert f"deck        FAILED at version {version}" in verified.stdout
    unknown = _svara("audit", table.table_id, "999", env=env)
    assert unknown.returncode == 2 and "no hand 999" in unknown.stderr


@cache
def _an_export() -> str:
    """A settled hand's export from a table played on the embedded store."""

    async def build() -> str:
        from events.store import open_store
        from service.tables.service import TableService
        from tests.support.service_play import make_users, play_hands, seated_table

        clock = FakeClock()
        service = TableService(open_store(None), clock=clock, namespace="fuzz:")
        users = make_users(3)
        table_id = await seated_table(service, users)
        await service.set_client_seed(users[0], table_id, "fuzz")
        await play_hands(service, clock, table_id, users, hands=3)
        exported = await service.export(table_id, 2)
        await service.store.close()
        return json.dumps(exported)

    return asyncio.run(build())


_JUNK = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**20), st.text(max_size=8),
                  st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3),
                                                                       st.integers(), max_size=2))


def _damage(root: Any, data: st.DataObject) -> None:
    """Replace one value somewhere under `root` (up to three levels down) with junk."""
    target = root
    for _ in range(data.draw(st.integers(0, 3))):
        keys = sorted(target) if isinstance(target, dict) else range(len(target))
        inner = [k for k in keys if isinstance(target[k], dict | list) and target[k]]
        if not inner:
            break
        target = target[data.draw(st.sampled_from(inner))]
    keys = sorted(target) if isinstance(target, dict) else list(range(len(target)))
    if keys:
        target[data.draw(st.sampled_from(keys))] = data.draw(_JUNK)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_any_damaged_file_is_a_failed_check_or_malformed_never_a_crash(data: st.DataObject) -> None:
    """Bad input (a value replaced anywhere, in the file or inside an event's bytes) gets a
    verdict or a Malformed naming the problem: never another exception."""
    doc = json.loads(_an_export())
    if data.draw(st.booleans()):
        entry = data.draw(st.sampled_from(doc["events"]))
        event = json.loads(entry["raw"])
        _damage(event, data)
        entry["raw"] = json.dumps(event)
    else:
        _damage(doc, data)
    text = json.dumps(doc)
    try:
        export = verify.load(text)
    except verify.Malformed:
        return
    verify.render(export, verify.verify(export))


def test_settings_the_checks_read_must_have_their_types() -> None:
    doc = json.loads(_an_export())
    for key, junk in [("ante", None), ("ante", "10"), ("rake_percent", None), ("svara", 3)]:
        damaged = {**doc, "settings": {**doc["settings"], key: junk}}
        with pytest.raises(verify.Malformed, match=f"`{key}` has the wrong type"):
            verify.load(json.dumps(damaged))
