"""Writes the verifier corpus, docs/verifier-corpus: hand exports for anyone writing a verifier,
each with the verdict every verifier must give (docs/VERIFYING.md describes it).

    python -m tests.fair.make_corpus          # write it anew (the same bytes every time)
    python -m tests.fair.make_corpus --check  # exit 1 if the committed corpus differs

The good hands are real games played through the rules engine with fixed seeds
(tests/fair/corpus_games.py); the tampered ones are those logs edited the way an attacker with
the database would (tests/support/tamper.py), exported afterwards. Each tampered case states the
check and the event version it must fail at; the generator refuses to write a corpus on which
the offline verifier and the server's audit do not both give exactly that.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from events import table as ev
from events.store.base import StoredEvent
from events.store.chain import at_text
from service import verify
from service.game.settings import TableSettings
from service.tables.audit_checks import check_log
from service.tables.export import build_export, decode_lenient
from tests.fair.corpus_games import Game, find
from tests.support.corpus import ROOT
from tests.support.tamper import Change, data_of, edit, move_time, rehashed, remove, swap

BASE = TableSettings(ante=10, max_seats=6, turn_seconds=30, next_hand_seconds=3)
Events = list[ev.TableEvent]


def _has(*kinds: type) -> Callable[[Events], bool]:
    return lambda events: all(any(type(e) is k for e in events) for k in kinds)


def _v2_wanted(events: Events) -> bool:
    dealt = [e for e in events if isinstance(e, ev.CardsDealt)]
    return _has(ev.Called, ev.Looked, ev.ShowdownHappened)(events) and bool(
        dealt and dealt[0].client_seeds) and isinstance(events[0], ev.HandStarted) and \
        events[0].number >= 2  # fmt: skip


def _odd_split(events: Events) -> bool:
    settled = events[-1]
    return isinstance(settled, ev.HandSettled) and settled.reason == "split" and bool(
        (settled.pot - settled.rake) % len(settled.winners))  # fmt: skip


def _raiser(game: Game, user: int, choice: tuple[str, int | None]) -> tuple[str, int | None]:
    """Raise to the most allowed whenever a raise is legal: the stacks run out fast."""
    state = game.state
    assert state is not None
    from service.game.legal import legal_actions

    legal = {a.type: a for a in legal_actions(state, user)}
    if "raise" in legal and legal["raise"].max is not None:
        return "raise", legal["raise"].max
    if "call" in legal:
        return "call", None
    return choice


def _sleeper(game: Game, user: int, choice: tuple[str, int | None]) -> Any:
    """The second player lets their turns time out in the betting round."""
    return None if user == game.users[1] and choice[0] in ("call", "raise", "fold") else choice


def _leaver(game: Game, user: int, choice: tuple[str, int | None]) -> Any:
    """The third player stands up on their first betting turn of hand 2."""
    if user == game.users[2] and game.hand_number() == 2 and choice[0] in ("call", "fold",
                                                                             "raise"):  # fmt: skip
        game.leave(2)
        return "left", None
    return choice


def _blinder(game: Game, user: int, choice: tuple[str, int | None]) -> Any:
    """Everyone plays blind while they may."""
    state = game.state
    assert state is not None
    from service.game.legal import legal_actions

    legal = {a.type: a for a in legal_actions(state, user)}
    if "blind" in legal:
        return "blind", legal["blind"].min
    return choice


def _settings(**changes: Any) -> TableSettings:
    return msgspec.structs.replace(BASE, **changes)


SEEDS = {0: "alice-seed", 2: "7f3a"}
# name -> (what it shows, the game, what its hand must have)
GOOD: dict[str, tuple[str, Callable[[str], Game], Callable[[Events], bool]]] = {
    "v1-deck": ("an old table's first hand: deck v1, chain v1 throughout",
                lambda label: Game(label, BASE, seeded_table=False, chain=1),
                lambda events: _has(ev.ShowdownHappened)(events) and any(
                    isinstance(e, ev.CardsDealt) and e.algorithm == verify.V1_DECK
                    for e in events)),
    "v2-deck": ("deck v2 with two players' seeds (in the file's context), a look, a call, a "
                "showdown", lambda label: Game(label, BASE, client_seeds=SEEDS), _v2_wanted),
    "svara": ("a svara played out over several deals (svara rule `play`)",
              lambda label: Game(label, BASE, players=4, client_seeds=SEEDS),
              lambda events: sum(isinstance(e, ev.SvaraDealStarted) for e in events) >= 2),
    "split-pot": ("a tie split (svara rule `split`) with a 5% rake and an odd chip",
                  lambda label: Game(label, _settings(svara="split", rake_percent=5),
                                     client_seeds=SEEDS), _odd_split),
    "capped-showdown": ("the betting ends when nobody still in can put in more",
                        lambda label: Game(label, _settings(max_buy_in=300), buy_in=100,
                                           policy=_raiser),
                        lambda events: any(isinstance(e, ev.ShowdownHappened) and e.capped
                                           for e in events)),
    "blinds": ("blind bets before anyone looks",
               lambda label: Game(label, BASE, policy=_blinder),
               lambda events: sum(isinstance(e, ev.BlindPlaced) for e in events) >= 2),
    "timeout": ("a player's turn times out (the server folds for them)",
                lambda label: Game(label, BASE, policy=_sleeper), _has(ev.TimedOut)),
    "player-left": ("a player stands up in the middle of the hand",
                    lambda label: Game(label, BASE, players=4, policy=_leaver),
                    _has(ev.PlayerLeft)),
}  # fmt: skip


@dataclass
class Case:
    name: str
    base: str  # the good game it edits
    about: str
    target: str  # the type of the event edited (its first in the hand)
    check: str  # the check that must fail ("" for a malformed file)
    make: Callable[[int], Change]  # the edit, given the target's version
    shift: int = 0  # where it fails, relative to the target's version


def _bump(field: str, by: int = 1) -> Callable[[dict[str, Any]], None]:
    return lambda d: d.update({field: d[field] + by})


def _swap_cards(d: dict[str, Any]) -> None:
    a, b = sorted(d["cards"])[:2]
    d["cards"][a], d["cards"][b] = d["cards"][b], d["cards"][a]


def _seed_line(d: dict[str, Any]) -> None:
    seat = sorted(d["client_seeds"])[0]
    d["client_seeds"][seat] += "x"


def _other_winner(d: dict[str, Any]) -> None:
    winner = str(d["winners"][0])
    loser = next(s for s in ("0", "1", "2") if s != winner)
    d["winners"], d["amounts"] = [int(loser)], {loser: d["amounts"][winner]}


def _odd_chip_moved(d: dict[str, Any]) -> None:
    first, second = (str(s) for s in d["winners"][:2])
    d["amounts"][first], d["amounts"][second] = d["amounts"][second], d["amounts"][first]


def _more_rake(d: dict[str, Any]) -> None:
    d["rake"] += 1
    d["amounts"][str(d["winners"][0])] -= 1


def _relabel(version: int) -> Change:
    def apply(events: list[StoredEvent]) -> list[StoredEvent]:
        out = [msgspec.structs.replace(e, chain=1) if e.version == version else e for e in events]
        return rehashed(out, version)

    return apply


def _fix(change: Callable[[dict[str, Any]], None], rehash: bool = True) -> Callable[[int], Change]:
    return lambda v: edit(v, change, rehash=rehash)


CASES = [
    Case("changed-bet", "v2-deck", "a call's amount raised by one chip, every hash after it "
         "recomputed", "called", "chips", _fix(_bump("amount"))),
    Case("changed-bet-hash-kept", "v2-deck", "the same edit with the stored hashes left alone",
         "called", "chain", _fix(_bump("amount"), rehash=False)),
    Case("swapped-cards", "v2-deck", "two players' dealt cards swapped", "cards_dealt", "deck",
         _fix(_swap_cards)),
    Case("wrong-seed", "v2-deck", "another seed revealed at the settlement", "hand_settled",
         "commitment", _fix(lambda d: d["seeds"][0].update(seed="ab" * 32))),
    Case("players-seed-changed", "v2-deck", "a player's seed named at the deal altered",
         "cards_dealt", "seeds", _fix(_seed_line)),
    Case("removed-event", "v2-deck", "a call removed", "called", "chain", remove),
    Case("reordered-events", "v2-deck", "a call and the event after it swapped", "called",
         "chain", swap),
    Case("moved-time", "v2-deck", "an event's stored time moved back 30 s (chain v2 hashes it)",
         "looked", "chain", lambda v: move_time(v, -30.0)),
    Case("chain-relabelled-v1", "v2-deck", "an entry relabelled as chain version 1 (which "
         "leaves the time out), every hash recomputed", "looked", "chain", _relabel),
    Case("shown-score", "v2-deck", "a shown score raised by one", "showdown", "scores",
         _fix(lambda d: d["hands"][sorted(d["hands"])[0]].update(
             score=d["hands"][sorted(d["hands"])[0]]["score"] + 1))),
    Case("other-winner", "v2-deck", "the pot paid to a player the showdown did not make the "
         "winner", "hand_settled", "winner", _fix(_other_winner)),
    Case("svara-fee", "svara", "the svara's join fee raised by one", "svara_started", "chips",
         _fix(_bump("fee"))),
    Case("odd-chip-moved", "split-pot", "the odd chip of a split given to the other winner",
         "hand_settled", "chips", _fix(_odd_chip_moved)),
    Case("more-rake", "split-pot", "one chip more rake, taken from a winner", "hand_settled",
         "chips", _fix(_more_rake)),
    Case("v1-swapped-cards", "v1-deck", "two players' dealt cards swapped in a v1 deal (chain "
         "v1)", "cards_dealt", "deck", _fix(_swap_cards)),
    Case("cashed-out-more", "player-left", "the leaving player cashed out 10 chips more than "
         "their stack", "player_left", "chips", _fix(_bump("cashed_out", 10))),
    Case("malformed-field-missing", "v2-deck", "a call without its `level` (hashes "
         "recomputed): no verifier can read it whole", "called", "",
         _fix(lambda d: d.pop("level"))),
]  # fmt: skip


def _log_entries(stored: list[StoredEvent]) -> list[dict[str, Any]]:
    return [{"version": s.version, "at": at_text(s.at), "chain": s.chain, "hash": s.hash,
             "raw": s.data.decode()} for s in stored]  # fmt: skip


def _export(table_id: str, hand: int, stored: list[StoredEvent]) -> dict[str, Any]:
    doc = build_export(table_id, hand, stored, decode_lenient(stored))
    doc["exported_at"] = stored[-1].at  # not the clock: the same bytes every time
    return doc


def offline_verdict(doc: dict[str, Any]) -> dict[str, Any]:
    """What `svara verify` says of an export: {verdict, failures: {check: version}}."""
    try:
        report = verify.verify(verify.load(json.dumps(doc)))
    except verify.Malformed as exc:
        return {"verdict": "malformed", "failures": {}, "reason": str(exc)}
    failures = {r["check"]: r["version"] for r in report.results() if not r["ok"]}
    return {"verdict": "failed" if failures else "verified", "failures": failures}


def audit_verdict(table_id: str, hand: int, stored: list[StoredEvent]) -> dict[str, Any]:
    """What the server's audit (its checks on the stored log) says of the hand."""
    findings = check_log(table_id, hand, stored, decode_lenient(stored)).findings
    failures = {r["check"]: r["version"] for r in findings.results() if not r["ok"]}
    return {"verdict": "failed" if failures else "verified", "failures": failures}


def _dump(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False) + "\n"


def build() -> dict[str, str]:
    """Every file of the corpus: path (relative to its folder) -> text."""
    files: dict[str, str] = {}
    manifest: list[dict[str, Any]] = []
    games: dict[str, tuple[Game, int]] = {}
    for name, (about, make, wanted) in GOOD.items():
        game, hand = find(name, make, wanted)
        games[name] = game, hand
        stored = game.log_through(hand)
        doc = _export(game.table_id, hand, stored)
        files[f"exports/good/{name}.json"] = _dump(doc)
        files[f"logs/{name}.json"] = _dump(_log_entries(stored))
        offline, audit = offline_verdict(doc), audit_verdict(game.table_id, hand, stored)
        assert offline["verdict"] == audit["verdict"] == "verified", (name, offline, audit)
        manifest.append(_item(name, about, "good", doc, stored, "verified", None, None, {}))
    for case in CASES:
        game, hand = games[case.base]
        stored = game.log_through(hand)
        events = decode_lenient(stored)
        start = next(i for i, e in enumerate(events)
                     if isinstance(e, ev.HandStarted) and e.number == hand)  # fmt: skip
        target = next(s.version for s, e in zip(stored[start:], events[start:], strict=True)
                      if e is not None and data_of(s)["type"] == case.target)  # fmt: skip
        tampered = case.make(target)(stored)
        doc = _export(game.table_id, hand, tampered)
        files[f"exports/tampered/{case.name}.json"] = _dump(doc)
        files[f"logs/{case.name}.json"] = _dump(_log_entries(tampered))
        offline, audit = offline_verdict(doc), audit_verdict(game.table_id, hand, tampered)
        version = target + case.shift
        if case.check:
            assert offline["failures"].get(case.check) == version, (case.name, offline)
            assert offline["failures"] == audit["failures"], (case.name, offline, audit)
            manifest.append(_item(case.name, case.about, "tampered", doc, tampered, "failed",
                                  case.check, version, offline["failures"]))  # fmt: skip
        else:
            assert offline["verdict"] == "malformed", (case.name, offline)
            item = _item(case.name, case.about, "tampered", doc, tampered, "malformed", None,
                         version, {})  # fmt: skip
            item["audit"] = audit  # the server reads its own log leniently: see VERIFYING.md
            manifest.append(item)
    files["manifest.json"] = _dump({
        "format": "svara-verifier-corpus", "version": 1,
        "about": "Hand exports (format svara-hand-export) and the verdict every verifier must "
                 "give; see docs/VERIFYING.md. Written by tests/fair/make_corpus.py.",
        "files": manifest,
    })  # fmt: skip
    return files


def _item(name: str, about: str, kind: str, doc: dict[str, Any], stored: list[StoredEvent],
          verdict: str, check: str | None, version: int | None,
          failures: dict[str, int]) -> dict[str, Any]:  # fmt: skip
    events = [json.loads(e["raw"]) for e in doc["events"] if e["raw"].startswith("{")]
    decks = sorted({e.get("algorithm", verify.V1_DECK) for e in events
                    if e.get("type") == "cards_dealt"})  # fmt: skip
    return {
        "name": name, "about": about, "file": f"exports/{kind}/{name}.json",
        "log": f"logs/{name}.json", "verdict": verdict, "check": check, "version": version,
        "failures": failures, "format": doc["format"], "format_version": doc["format_version"],
        "chain": sorted({e["chain"] for e in doc["events"]}), "decks": decks,
    }  # fmt: skip


def main(argv: list[str]) -> int:
    files = build()
    if "--check" in argv:
        stale = [p for p, text in files.items()
                 if not (ROOT / p).exists() or (ROOT / p).read_text() != text]  # fmt: skip
        print("\n".join(stale) or "the corpus is up to date")
        return 1 if stale else 0
    for path, text in files.items():
        (ROOT / path).parent.mkdir(parents=True, exist_ok=True)
        (ROOT / path).write_text(text)
    print(f"wrote {len(files)} files under {ROOT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
