"""`svara verify FILE`: check an exported hand with no server, no Redis and no project code.

The file is what `GET /api/tables/{id}/hands/{n}/export` and `svara audit TABLE HAND --export
FILE` write (its format: docs/FAIRNESS.md, "The export file"). This module re-implements from
the published rules alone -- docs/FAIRNESS.md "Decks" (decks v1 and v2), docs/CHAIN.md (the hash
chain, versions 1 and 2) and docs/RULES.md ("Hand score", "A hand, step by step") -- using
nothing but the standard library. It deliberately shares no code with the server
(`service.game`, `events.store.chain`, `service.tables.audit`): a verifier that called the
server's own deck or scoring functions would repeat a bug in them instead of catching it. Tests
hold the two implementations to each other: the same verdict on hundreds of played hands, the
same check and version on every kind of tampering, and the same score for all 4960 hands under
every scoring variant. It is one file on purpose: anyone can read it, or copy it and run `python
verify.py FILE`.

Checks (each failure names the check, the event version and the reason):
- `chain`     every link hash_v = sha256(raw(hash_{v-1}) || [v2: "svara-chain-v2\\n" at "\\n"]
              || bytes), versions consecutive, chain version never going down, the hand
              complete (from the event that published its first commitment to its settlement);
- `pins`      hashes and commitments the caller saw earlier (`--pin`, `--commitment`) agree;
- `commitment` each revealed seed hashes to the commitment restated at its deal and (v2) to
              the one published before the players' seeds were final;
- `seeds`     (v2) the players' seeds named at a deal are those recorded before it, and `mix`
              is their digest;
- `deck`      every dealt card is where the deck (v1 or v2) puts it;
- `cards`     every card looked at or shown is the one dealt;
- `scores`    every shown score follows from the cards and the table's scoring options;
- `winner`    the svara's tied players and the winners follow from the scores and folds;
- `chips`     antes, bets and fees add up to the pot, the payout and rake to the pot, and no
              stack goes below zero.
Exit status: 0 every check passed, 1 a check failed, 2 the file is malformed (an event that
does not fit EVENT_SCHEMA included). docs/VERIFYING.md offers a corpus of exports with the
verdict each must get; tests run this file, the audit and fair.js over it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import struct
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

FORMAT = "svara-hand-export"
ZERO_HASH = "0" * 64
V1_DECK = "hmac-sha256-fy-v1"
V2_DECK = "hmac-sha256-fy-v2"
CHECKS = (
    "chain", "pins", "commitment", "seeds", "deck", "cards", "scores", "winner", "chips"
)  # fmt: skip
JOKER = "7c"
VALUES = {"7": 7, "8": 8, "9": 9, "T": 10, "J": 10, "Q": 10, "K": 10, "A": 11}

JSON = dict[str, Any]


class Malformed(ValueError):
    """The file is not an export this verifier can read (exit status 2)."""


# -- the published algorithms, written out plainly ---------------------------------------------


def chain_link(chain: int, prev_hash: str, at: str, raw: bytes) -> str:
    """docs/CHAIN.md: version 1 hashes the bytes, version 2 also the time text."""
    prev = bytes.fromhex(prev_hash)
    if chain == 1:
        return hashlib.sha256(prev + raw).hexdigest()
    if chain == 2:
        return hashlib.sha256(prev + b"svara-chain-v2\n" + at.encode() + b"\n" + raw).hexdigest()
    raise ValueError(f"unknown chain version {chain}")


def mix_of(client_seeds: Mapping[int, str]) -> str:
    lines = [f"{seat}:{client_seeds[seat]}" for seat in sorted(client_seeds)]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def deck(seed: bytes, table_id: str, hand: int, deal: int, mix: str | None = None) -> list[str]:
    """docs/FAIRNESS.md "Decks": Fisher-Yates over the canonical order, driven by HMAC-SHA256
    words (v2 when `mix` is given)."""
    cards = [rank + suit for rank in "789TJQKA" for suit in "cdhs"]
    words: list[int] = []
    block = 0
    for i in range(31, 0, -1):
        while True:
            if not words:
                middle = f"{mix}:" if mix is not None else ""
                message = f"{table_id}:{hand}:{deal}:{middle}{block}".encode()
                digest = hmac.new(seed, message, hashlib.sha256).digest()
                words = list(struct.unpack(">8I", digest))
                block += 1
            x = words.pop(0)
            if x < 2**32 - (2**32 % (i + 1)):
                break
        j = x % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def score(cards: Sequence[str], joker_pair: str = "sum", natural_777: int = 34) -> int:
    """docs/RULES.md "Hand score": the largest value among the rows the hand contains."""
    ranks = [c[0] for c in cards]
    joker = JOKER in cards
    found = []
    if ranks.count("7") == 3:
        found.append(34 if joker else natural_777)  # row 1 (the joker's three) / variant
    elif len(set(ranks)) == 1:
        found.append(3 * VALUES[ranks[0]])  # row 2
    if ranks.count("A") >= 2:
        found.append(22)  # row 4
    if ranks.count("7") >= 2:
        found.append(23)  # row 5
    if joker:
        a, b = [c for c in cards if c != JOKER]
        if a[0] == b[0]:  # row 3
            found.append(11 + VALUES[a[0]] * 2 if joker_pair == "sum" else 3 * VALUES[a[0]])
        if a[1] == b[1]:
            found.append(11 + VALUES[a[0]] + VALUES[b[0]])  # row 6
        found.append(11 + max(VALUES[a[0]], VALUES[b[0]]))  # row 7
    else:
        suits: dict[str, int] = {}
        for c in cards:
            suits[c[1]] = suits.get(c[1], 0) + VALUES[c[0]]
        found.append(max(suits.values()))  # row 8
    return max(found)


# -- what each event carries: events/table.py, field by field -----------------------------------
#
# EVENT_SCHEMA: event type -> field -> [kind, required] (not required: the field has a default and
# may be left out). Kinds: "int", "str", "bool", "float"; ["list", kind]; ["tuple", kind, ...];
# ["dict", key kind, value kind] (JSON object; "int" keys written as decimal text);
# ["nullable", kind] (or null); ["one_of", value, ...]; ["struct", {field: [kind, required]}].
# Every event read is held to it (a field missing, of the wrong kind or unknown: a malformed
# file), and tests/fair/test_schema.py holds it to events/table.py, so it cannot drift.

REQUIRED, OPTIONAL = True, False
CARDS = ["tuple", "str", "str", "str"]
SEATS = ["list", "int"]
PHASE = ["one_of", "betting", "blind"]
_PLAYER = {"seat": ["int", REQUIRED], "user_id": ["int", REQUIRED]}
# the fields of an event that may also hand the turn on (TurnHandover)
_TURN = {"turn": [["nullable", "int"], OPTIONAL], "deadline": [["nullable", "float"], OPTIONAL],
         "phase": [["nullable", PHASE], OPTIONAL]}  # fmt: skip
SETTINGS: list[Any] = ["struct", {
    "ante": ["int", REQUIRED],
    "bet_unit": [["nullable", "int"], OPTIONAL],
    "max_seats": ["int", OPTIONAL],
    "min_buy_in": [["nullable", "int"], OPTIONAL],
    "max_buy_in": [["nullable", "int"], OPTIONAL],
    "turn_seconds": ["int", OPTIONAL],
    "svara_join_seconds": [["nullable", "int"], OPTIONAL],
    "next_hand_seconds": ["int", OPTIONAL],
    "blind_raise": [["one_of", "at_least_double", "double"], OPTIONAL],
    "max_raises": ["int", OPTIONAL],
    "dealer": [["one_of", "rotate", "winner"], OPTIONAL],
    "svara": [["one_of", "play", "split"], OPTIONAL],
    "svara_join_fee": [["one_of", "ante", "pot_share"], OPTIONAL],
    "rake_percent": ["int", OPTIONAL],
    "joker_pair": [["one_of", "substitute", "sum"], OPTIONAL],
    "natural_777": [["one_of", 30, 33, 34], OPTIONAL],
}]  # fmt: skip
EVENT_SCHEMA: dict[str, dict[str, list[Any]]] = {
    "table_created": {"table_id": ["str", REQUIRED], "settings": [SETTINGS, REQUIRED],
                      "created_by": ["int", REQUIRED], "created_at": ["float", OPTIONAL],
                      "next_commitment": ["str", OPTIONAL],
                      "idle_close_seconds": ["float", OPTIONAL], "name": ["str", OPTIONAL],
                      "tournament_id": ["str", OPTIONAL],
                      "private": ["bool", OPTIONAL],
                      "group_chat_id": [["nullable", "int"], OPTIONAL]},
    "seed_drawn": {"commitment": ["str", REQUIRED], "seed": ["str", REQUIRED]},
    "client_seed_set": {**_PLAYER, "client_seed": ["str", REQUIRED]},
    "player_seated": {**_PLAYER, "name": ["str", REQUIRED], "buy_in": ["int", REQUIRED],
                      "transfer_id": ["str", REQUIRED]},
    "player_left": {**_PLAYER, "cashed_out": ["int", REQUIRED], "transfer_id": ["str", REQUIRED],
                    "at": ["float", OPTIONAL]},
    "hand_started": {"number": ["int", REQUIRED], "dealer": ["int", REQUIRED],
                     "participants": [SEATS, REQUIRED], "commitment": ["str", REQUIRED],
                     "seed": ["str", REQUIRED], "algorithm": ["str", OPTIONAL]},
    "antes_paid": {"ante": ["int", REQUIRED], "seats": [SEATS, REQUIRED], "pot": ["int", REQUIRED],
                   "short": [["nullable", ["dict", "int", "int"]], OPTIONAL]},
    "ante_changed": {"ante": ["int", REQUIRED], "level": ["int", REQUIRED]},
    "cards_dealt": {**_TURN, "deal": ["int", REQUIRED], "cards": [["dict", "int", CARDS], REQUIRED],
                    "algorithm": ["str", OPTIONAL],
                    "client_seeds": [["nullable", ["dict", "int", "str"]], OPTIONAL],
                    "mix": ["str", OPTIONAL]},
    "blind_placed": {**_TURN, **_PLAYER, "amount": ["int", REQUIRED]},
    "passed": {**_TURN, **_PLAYER},
    "looked": {**_TURN, **_PLAYER, "cards": [CARDS, REQUIRED]},
    "called": {**_TURN, **_PLAYER, "amount": ["int", REQUIRED], "level": ["int", REQUIRED]},
    "raised": {**_TURN, **_PLAYER, "amount": ["int", REQUIRED], "level": ["int", REQUIRED]},
    "folded": {**_TURN, **_PLAYER, "left": ["bool", OPTIONAL]},
    "turn_deadline_set": {"seat": ["int", REQUIRED], "deadline": ["float", REQUIRED],
                          "phase": [PHASE, OPTIONAL]},
    "timed_out": {**_TURN, **_PLAYER,
                  "action": [["one_of", "fold", "pass", "skip_svara"], REQUIRED]},
    "showdown": {"deal": ["int", REQUIRED],
                 "hands": [["dict", "int", ["struct", {"cards": [CARDS, REQUIRED],
                                                       "score": ["int", REQUIRED]}]], REQUIRED],
                 "capped": ["bool", OPTIONAL]},
    "svara_started": {"tied": [SEATS, REQUIRED], "fee": ["int", REQUIRED],
                      "eligible": [SEATS, REQUIRED], "join_deadline": ["float", REQUIRED],
                      "pot": ["int", REQUIRED], "next_commitment": ["str", OPTIONAL]},
    "svara_joined": {**_PLAYER, "fee": ["int", REQUIRED]},
    "svara_skipped": _PLAYER,
    "svara_deal_started": {"deal": ["int", REQUIRED], "participants": [SEATS, REQUIRED],
                           "commitment": ["str", REQUIRED], "seed": ["str", REQUIRED]},
    "hand_settled": {"number": ["int", REQUIRED], "winners": [SEATS, REQUIRED],
                     "amounts": [["dict", "int", "int"], REQUIRED], "pot": ["int", REQUIRED],
                     "rake": ["int", REQUIRED],
                     "reason": [["one_of", "last_player", "showdown", "split", "svara_walkover"],
                                REQUIRED],
                     "seeds": [["list", ["struct", {"deal": ["int", REQUIRED],
                                                    "commitment": ["str", REQUIRED],
                                                    "seed": ["str", REQUIRED]}]], REQUIRED],
                     "next_hand_at": ["float", REQUIRED], "next_dealer": ["int", REQUIRED],
                     "next_commitment": ["str", OPTIONAL]},
    "sat_out": {**_TURN, **_PLAYER, "reason": [["one_of", "left", "timeouts"], OPTIONAL]},
    "returned": _PLAYER,
    "table_closed": {"reason": [["one_of", "idle"], OPTIONAL],
                     "idle_seconds": ["float", OPTIONAL]},
}  # fmt: skip
_CARD_NAMES = frozenset(r + s for r in "789TJQKA" for s in "cdhs")
_SCALARS: dict[str, Callable[[Any], bool]] = {
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool) and abs(v) < 2**53,
    "str": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, bool),
    "float": lambda v: isinstance(v, int | float) and not isinstance(v, bool)
    and math.isfinite(v),
}  # fmt: skip


def _is_int_key(k: str) -> bool:
    return k.isdigit() and k.isascii() and len(k) < 4


def kind_problem(kind: Any, v: Any, path: str) -> str:
    """What is wrong with value `v` for `kind` ("" when nothing); `path` names it."""
    wrong = f"`{path}` has the wrong type"
    if isinstance(kind, str):
        return "" if _SCALARS[kind](v) else wrong
    tag, *args = kind
    if tag == "nullable":
        return "" if v is None else kind_problem(args[0], v, path)
    if tag == "one_of":
        return "" if any(type(v) is type(x) and v == x for x in args) else (
            f"`{path}` has the wrong type: none of {', '.join(map(str, args))}")  # fmt: skip
    if tag == "struct":
        return fields_problem(args[0], v, f"{path}.")
    if tag in ("list", "tuple"):
        if not isinstance(v, list) or (tag == "tuple" and len(v) != len(args)):
            return wrong
        items = args * len(v) if tag == "list" else args
        for i, (item_kind, x) in enumerate(zip(items, v, strict=True)):
            if bad := kind_problem(item_kind, x, f"{path}[{i}]"):
                return bad
        return ""
    if tag == "dict":
        if not isinstance(v, dict):
            return wrong
        for k, x in v.items():
            if args[0] == "int" and not _is_int_key(k):
                return f"`{path}` has a key that is no seat number: {k!r}"
            if bad := kind_problem(args[1], x, f"{path}.{k}"):
                return bad
        return ""
    raise ValueError(f"unknown kind {kind!r}")


def fields_problem(fields: Mapping[str, list[Any]], obj: Any, prefix: str = "") -> str:
    """What is wrong with object `obj` for a struct's `fields` ("" when nothing)."""
    if not isinstance(obj, dict):
        return f"`{prefix.rstrip('.')}` is not an object"
    for name, (kind, required) in fields.items():
        if name not in obj:
            if required:
                return f"missing `{prefix}{name}`"
        elif bad := kind_problem(kind, obj[name], f"{prefix}{name}"):
            return bad
    unknown = sorted(set(obj) - set(fields))
    if unknown:
        return f"`{prefix}{unknown[0]}` is no field this verifier knows"
    return ""


def event_problem(data: Any) -> str:
    """What is wrong with a decoded event ("" when nothing): its type, its fields, and (beyond
    their kinds) every card a real card's name."""
    if not isinstance(data, dict):
        return "the stored bytes are not an event (a JSON object)"
    kind = data.get("type")
    fields = EVENT_SCHEMA.get(kind) if isinstance(kind, str) else None
    if fields is None:
        return f"unknown event type {data.get('type')!r}"
    if bad := fields_problem(fields, {k: v for k, v in data.items() if k != "type"}):
        return bad
    cards: list[Any] = []
    if data["type"] == "looked":
        cards = [data["cards"]]
    elif data["type"] == "cards_dealt":
        cards = list(data["cards"].values())
    elif data["type"] == "showdown":
        cards = [h["cards"] for h in data["hands"].values()]
    for hand in cards:
        if any(c not in _CARD_NAMES for c in hand):
            return f"{' '.join(map(str, hand))} are not three cards of the deck"
    return ""


# -- the file ---------------------------------------------------------------------------------


@dataclass
class Entry:
    version: int
    type: str
    at: str
    chain: int
    hash: str
    raw: bytes
    prev_hash: str | None = None  # context entries carry their own link
    data: JSON | None = None  # the decoded event, held to EVENT_SCHEMA by `load`


@dataclass
class Export:
    table_id: str
    hand: int
    settings: JSON
    seats: list[JSON]
    prev_hash: str
    events: list[Entry]
    context: list[Entry]


def _need(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise Malformed(f"{where}: missing `{key}`")
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise Malformed(f"{where}: `{key}` has the wrong type")
    return value


def _entry(obj: Any, where: str, with_prev: bool) -> Entry:
    version = _need(obj, "version", int, where)
    where = f"{where} (version {version})"
    if "raw" in obj:
        raw = _need(obj, "raw", str, where).encode("utf-8", errors="surrogatepass")
    elif "raw_b64" in obj:
        try:
            raw = base64.b64decode(_need(obj, "raw_b64", str, where), validate=True)
        except ValueError as exc:
            raise Malformed(f"{where}: `raw_b64` is not base64") from exc
    else:
        raise Malformed(f"{where}: missing `raw`")
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    kind = _need(obj, "type", str, where)
    # Every event is held to the schema before any check reads it: what this verifier cannot
    # read whole, it does not vouch for.
    problem = event_problem(data)
    if problem:
        raise Malformed(f"{where}: {problem}")
    if data["type"] != kind:
        raise Malformed(f"{where}: `type` is {kind!r} but its bytes hold a {data['type']!r}")
    entry = Entry(
        version=version,
        type=kind,
        at=_need(obj, "at", str, where),
        chain=_need(obj, "chain", int, where),
        hash=_need(obj, "hash", str, where),
        raw=raw,
        prev_hash=_need(obj, "prev_hash", str, where) if with_prev else None,
        data=data,
    )
    return entry


def load(text: str | bytes) -> Export:
    """Parse an export file; Malformed names what is wrong with it."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise Malformed(f"not JSON: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise Malformed(f"not a {FORMAT} file (its `format` is missing or different)")
    if doc.get("format_version") != 1:
        raise Malformed(f"unknown format_version {doc.get('format_version')!r} (this reads 1)")
    events = _need(doc, "events", list, "the file")
    context = doc.get("context", [])
    if not isinstance(context, list):
        raise Malformed("the file: `context` is not a list")
    if not events:
        raise Malformed("the file: `events` is empty")
    seats = _need(doc, "seats", list, "the file")
    for i, s in enumerate(seats):
        _need(s, "seat", int, f"seats[{i}]")
        if "stack" in s:
            _need(s, "stack", int, f"seats[{i}]")
    settings = _need(doc, "settings", dict, "the file")
    problem = fields_problem(SETTINGS[1], settings)
    if problem:
        raise Malformed(f"the file's settings: {problem}")
    return Export(
        table_id=_need(doc, "table_id", str, "the file"),
        hand=_need(doc, "hand", int, "the file"),
        settings=settings,
        seats=seats,
        prev_hash=_need(doc, "prev_hash", str, "the file"),
        events=[_entry(e, f"events[{i}]", False) for i, e in enumerate(events)],
        context=[_entry(e, f"context[{i}]", True) for i, e in enumerate(context)],
    )


# -- the checks --------------------------------------------------------------------------------


@dataclass
class Failure:
    check: str
    version: int | None
    reason: str
    chain_version: int | None = None  # the failing entry's chain version, when one is named


@dataclass
class Report:
    failures: list[Failure] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # the readable account of the hand
    ran: set[str] = field(default_factory=set)

    def fail(self, check: str, version: int | None, reason: str, chain: int | None = None) -> None:
        self.failures.append(Failure(check, version, reason, chain))

    @property
    def ok(self) -> bool:
        return not self.failures

    def results(self) -> list[JSON]:
        """One result per check: {check, ok, version?, reason?} (the first failure)."""
        out: list[JSON] = []
        for check in CHECKS:
            if check not in self.ran:
                continue
            mine = [f for f in self.failures if f.check == check]
            first = min(mine, key=lambda f: f.version or 0) if mine else None
            item: JSON = {"check": check, "ok": first is None}
            if first is not None:
                item.update(version=first.version, reason=first.reason)
                if first.chain_version is not None:
                    item["chain_version"] = first.chain_version
            out.append(item)
        return out


@dataclass
class _Deal:
    deal: int
    start: Entry  # hand_started / svara_deal_started
    participants: list[int]
    published: Entry | None = None  # v2: the event with its next_commitment
    drawn: Entry | None = None  # v2: the seed_drawn after it
    dealt: Entry | None = None


def verify(export: Export, pins: Mapping[str, Any] | None = None) -> Report:
    """Every check on `export`; `pins`: {"hashes": {version: hash}, "commitments":
    {"<hand>:<deal>": commitment}} saved by whoever checks (a contradiction fails `pins`)."""
    report = Report()
    report.ran.update(CHECKS if pins else [c for c in CHECKS if c != "pins"])
    _check_chain(export, report)
    if pins:
        _check_pins(export, pins, report)
    _Replay(export, report).run()
    return report


def _check_chain(export: Export, report: Report) -> None:
    prev, floor = export.prev_hash, 1
    expected = export.events[0].version
    for e in export.events:
        if e.version != expected:
            report.fail("chain", expected, f"events out of order or missing: expected version "
                        f"{expected}, found {e.version}")  # fmt: skip
            return
        bad = _bad_link(e, prev, floor)
        if bad:
            report.fail("chain", e.version, bad, e.chain)
            return
        prev, floor, expected = e.hash, e.chain, expected + 1
    for e in export.context:
        assert e.prev_hash is not None
        bad = _bad_link(e, e.prev_hash, 1)
        if bad:
            report.fail("chain", e.version, f"context entry: {bad}", e.chain)
    last = export.events[-1]
    data = last.data or {}
    if last.type != "hand_settled" or data.get("number") != export.hand:
        report.fail("chain", last.version + 1, f"the export ends at version {last.version} "
                    f"before hand {export.hand} settles (events removed?)")  # fmt: skip


def _bad_link(e: Entry, prev: str, floor: int) -> str:
    if e.chain not in (1, 2):
        return f"unknown chain version {e.chain}"
    if e.chain < floor:
        return f"chain version went down (v{e.chain} after v{floor})"
    try:
        recomputed = chain_link(e.chain, prev, e.at, e.raw)
    except ValueError:
        return "the previous hash is not hex"
    if recomputed != e.hash:
        what = "bytes" if e.chain == 1 else "bytes and time"
        return f"the stored hash does not match the event's {what} (chain v{e.chain})"
    return ""


def _check_pins(export: Export, pins: Mapping[str, Any], report: Report) -> None:
    by_version = {e.version: e for e in [*export.context, *export.events]}
    hashes = pins.get("hashes") or {}
    for key, pinned in sorted(hashes.items(), key=lambda kv: int(kv[0])):
        e = by_version.get(int(key))
        if e is not None and e.hash != pinned:
            report.fail("pins", e.version, f"hash {e.hash[:16]}... differs from the one seen "
                        f"earlier ({str(pinned)[:16]}...): the log was rewritten")  # fmt: skip
    commitments = pins.get("commitments") or {}
    for key, pinned in commitments.items():
        hand, _, deal = str(key).partition(":")
        if hand != str(export.hand):
            continue
        for e in export.events:
            d = e.data or {}
            number = d.get("number") if e.type == "hand_started" else None
            is_deal = (e.type == "hand_started" and deal == "1" and number == export.hand) or (
                e.type == "svara_deal_started" and str(d.get("deal")) == deal
            )
            if is_deal and d.get("commitment") != pinned:
                report.fail("pins", e.version, f"deal {deal}'s commitment differs from the one "
                            "seen before the deal")  # fmt: skip


class _Replay:
    """The hand followed event by event: pot, stacks, folds, seeds in effect, deals."""

    def __init__(self, export: Export, report: Report) -> None:
        self.x = export
        self.r = report
        s = export.settings
        self.ante = int(s.get("ante", 0))
        self.pending_ante = 0
        self.rake_percent = int(s.get("rake_percent", 0))
        self.joker_pair = str(s.get("joker_pair", "sum"))
        self.natural_777 = int(s.get("natural_777", 34))
        self.svara_rule = str(s.get("svara", "play"))
        self.fee_rule = str(s.get("svara_join_fee", "pot_share"))
        self.names = {int(x["seat"]): str(x.get("name", f"seat {x['seat']}")) for x in
                      export.seats}  # fmt: skip
        self.stacks = {int(x["seat"]): int(x.get("stack", 0)) for x in export.seats}
        # The seeds in effect before the export's first event: the stored events that set
        # them (the file's `context`), not the seats' summary.
        self.client_seeds: dict[int, str] = {}
        for e in sorted(export.context, key=lambda e: e.version):
            if e.type == "client_seed_set" and e.data is not None:
                self.client_seeds[int(e.data["seat"])] = str(e.data["client_seed"])
        self.deals: dict[int, _Deal] = {}
        self.published: Entry | None = None  # the last event publishing a next_commitment
        self.publisher_of_next: Entry | None = None
        self.drawn: Entry | None = None
        self.in_hand = False
        self.pot = 0
        self.level = 0
        self.put_in: dict[int, int] = {}
        self.folded: set[int] = set()
        self.deal: _Deal | None = None
        self.fee = 0
        self.tied: list[int] = []
        self.joined: list[int] = []
        self.showdowns: list[tuple[Entry, dict[int, JSON]]] = []
        self.seeds: dict[int, JSON] = {}  # deal -> the seed its settlement revealed
        self.settled: Entry | None = None

    def say(self, e: Entry, text: str) -> None:
        self.r.lines.append(f"v{e.version:<5} {text}")

    def who(self, seat: Any) -> str:
        return f"{self.names.get(int(seat), 'seat')} (seat {seat})"

    def run(self) -> None:
        handlers: dict[str, Callable[[Entry, JSON], None]] = {
            "table_created": self.table_created, "seed_drawn": self.seed_drawn,
            "client_seed_set": self.client_seed_set, "player_seated": self.player_seated,
            "player_left": self.player_left, "hand_started": self.hand_started,
            "antes_paid": self.antes_paid, "cards_dealt": self.cards_dealt,
            "blind_placed": self.blind_placed, "passed": self.passed, "looked": self.looked,
            "called": self.called, "raised": self.raised, "folded": self.folded_,
            "timed_out": self.timed_out, "showdown": self.showdown,
            "svara_started": self.svara_started, "svara_joined": self.svara_joined,
            "svara_skipped": self.svara_skipped, "svara_deal_started": self.svara_deal_started,
            "hand_settled": self.hand_settled, "sat_out": self.sat_out,
            "returned": self.returned, "turn_deadline_set": self.turn_deadline_set,
            "ante_changed": self.ante_changed,
        }  # fmt: skip
        for e in self.x.events:
            assert e.data is not None  # `load` held every event to the schema
            handler = handlers.get(e.type)
            if handler is None:
                self.r.fail("chain", e.version, f"a {e.type} has no place in a hand's record")
                continue
            try:
                handler(e, e.data)
            except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
                self.r.fail("chain", e.version, f"the event lacks what it must carry ({exc!r})")
        self.check_deals()

    # -- between hands --------------------------------------------------------------------

    def table_created(self, e: Entry, d: JSON) -> None:
        if d.get("table_id") != self.x.table_id:
            self.r.fail("chain", e.version, "table_created names another table")
        stored = d.get("settings")
        if not isinstance(stored, dict) or any(
            self.x.settings.get(k) != v for k, v in stored.items()
        ):
            self.r.fail("chips", e.version, "the file's settings differ from the table's")
        self.publish(e, d)
        self.say(e, f"table created; ante {self.ante}")

    def publish(self, e: Entry, d: JSON) -> None:
        if d.get("next_commitment"):
            self.published = e
            self.drawn = None
            self.say(e, f"  publishes the next deal's commitment {d['next_commitment']}")

    def seed_drawn(self, e: Entry, d: JSON) -> None:
        self.drawn = e
        self.say(e, "seed drawn for the next deal (secret until its hand settles)")

    def client_seed_set(self, e: Entry, d: JSON) -> None:
        self.client_seeds[int(d["seat"])] = str(d["client_seed"])
        self.say(e, f"{self.who(d['seat'])} sets their seed to {d['client_seed']!r}")

    def player_seated(self, e: Entry, d: JSON) -> None:
        seat = int(d["seat"])
        self.names[seat] = str(d["name"])
        self.stacks[seat] = int(d["buy_in"])
        self.client_seeds.pop(seat, None)
        self.say(e, f"{self.who(seat)} sits down with {d['buy_in']}")

    def player_left(self, e: Entry, d: JSON) -> None:
        seat = int(d["seat"])
        stack = self.stacks.pop(seat, None)
        if stack is not None and stack != d["cashed_out"]:
            self.r.fail("chips", e.version, f"{self.who(seat)} cashes out {d['cashed_out']} "
                        f"but holds {stack}")  # fmt: skip
        self.client_seeds.pop(seat, None)
        if seat in self.tied:
            self.tied.remove(seat)
        if seat in self.joined:
            self.joined.remove(seat)
        self.say(e, f"{self.who(seat)} leaves with {d['cashed_out']}")

    def sat_out(self, e: Entry, d: JSON) -> None:
        self.say(e, f"{self.who(d['seat'])} is sat out")

    def returned(self, e: Entry, d: JSON) -> None:
        self.say(e, f"{self.who(d['seat'])} sits back in")

    def turn_deadline_set(self, e: Entry, d: JSON) -> None:
        pass

    # -- a deal -----------------------------------------------------------------------------

    def hand_started(self, e: Entry, d: JSON) -> None:
        if d["number"] != self.x.hand:
            self.r.fail("chain", e.version, f"hand {d['number']} starts inside hand "
                        f"{self.x.hand}'s export")  # fmt: skip
            return
        self.in_hand = True
        self.pot = 0
        if self.pending_ante:
            self.ante, self.pending_ante = self.pending_ante, 0
        self.new_deal(e, 1, [int(s) for s in d["participants"]])
        self.say(e, f"hand {d['number']} starts; dealer {self.who(d['dealer'])}; commitment "
                 f"{d['commitment']}")  # fmt: skip

    def svara_deal_started(self, e: Entry, d: JSON) -> None:
        self.new_deal(e, int(d["deal"]), [int(s) for s in d["participants"]])
        players = ", ".join(self.who(s) for s in d["participants"])
        self.say(e, f"svara deal {d['deal']} for {players}; commitment {d['commitment']}")

    def new_deal(self, e: Entry, number: int, participants: list[int]) -> None:
        deal = _Deal(number, e, participants, self.published, self.drawn)
        self.published = self.drawn = None
        self.deals[number] = deal
        self.deal = deal
        self.level = 0
        self.put_in = {s: 0 for s in participants}
        self.folded = set()
        self.tied, self.joined = [], []

    def ante_changed(self, e: Entry, d: JSON) -> None:
        """A tournament table's new ante counts from the next hand dealt: a hand in play keeps
        the ante (and the svara fee) it started with."""
        if int(d["ante"]) <= 0 or int(d["level"]) < 1:
            self.r.fail("chips", e.version, f"an ante of {d['ante']} at level {d['level']}")
        self.pending_ante = int(d["ante"])
        self.say(e, f"the ante from the next hand is {d['ante']} (level {d['level']})")

    def antes_paid(self, e: Entry, d: JSON) -> None:
        seats = [int(s) for s in d["seats"]]
        if d["ante"] != self.ante:
            self.r.fail("chips", e.version, f"an ante of {d['ante']}; the table's is {self.ante}")
        short = {int(k): int(v) for k, v in (d.get("short") or {}).items()}
        for s in seats:  # a tournament stack below the ante pays all it has
            if s in short and not 0 <= short[s] < int(d["ante"]):
                self.r.fail("chips", e.version, f"seat {s} pays {short[s]} of an ante of "
                            f"{d['ante']}")  # fmt: skip
            self.pay(e, s, short.get(s, int(d["ante"])))
        if d["pot"] != self.pot:
            self.r.fail("chips", e.version, f"the pot after the antes is {self.pot}, not "
                        f"{d['pot']}")  # fmt: skip
        self.say(e, f"antes of {d['ante']} from {len(seats)} players; pot {self.pot}")

    def pay(self, e: Entry, seat: int, amount: int) -> None:
        if amount < 0:
            self.r.fail("chips", e.version, f"{self.who(seat)} pays a negative amount")
        self.pot += amount
        if seat in self.stacks:
            self.stacks[seat] -= amount
            if self.stacks[seat] < 0:
                self.r.fail("chips", e.version, f"{self.who(seat)} pays {amount} with "
                            f"{self.stacks[seat] + amount} left")  # fmt: skip

    def cards_dealt(self, e: Entry, d: JSON) -> None:
        deal = self.deals.get(int(d["deal"]))
        if deal is None:
            self.r.fail("deck", e.version, f"cards for deal {d['deal']}, which never started")
            return
        deal.dealt = e
        algorithm = d.get("algorithm", V1_DECK)
        if algorithm == V2_DECK:
            named = {int(k): str(v) for k, v in (d.get("client_seeds") or {}).items()}
            expected = {s: self.client_seeds[s] for s in deal.participants
                        if s in self.client_seeds}  # fmt: skip
            if named != expected:
                self.r.fail("seeds", e.version, f"the players' seeds named at the deal {named} "
                            f"are not those recorded before it {expected}")  # fmt: skip
            elif d.get("mix") != mix_of(named):
                self.r.fail("seeds", e.version, "mix is not the digest of the players' seeds")
            seeds = ", ".join(f"{s}:{v}" for s, v in sorted(named.items())) or "none"
            how = f"{algorithm}, players' seeds {seeds}, mix {d.get('mix')}"
        else:
            how = algorithm
        self.say(e, f"deal {d['deal']} dealt ({how})")

    def blind_placed(self, e: Entry, d: JSON) -> None:
        seat, amount = int(d["seat"]), int(d["amount"])
        if self.put_in.get(seat, 0) != 0 or (amount <= self.level and self.level > 0):
            self.r.fail("chips", e.version, f"a blind of {amount} from {self.who(seat)} does "
                        "not follow the bets before it")  # fmt: skip
        self.pay(e, seat, amount)
        self.put_in[seat] = amount
        self.level = amount
        self.say(e, f"{self.who(seat)} blind {amount}; pot {self.pot}")

    def passed(self, e: Entry, d: JSON) -> None:
        self.say(e, f"{self.who(d['seat'])} passes")

    def looked(self, e: Entry, d: JSON) -> None:
        self.seen(e, int(d["seat"]), d["cards"], "looks at")
        self.say(e, f"{self.who(d['seat'])} looks at their cards")

    def called(self, e: Entry, d: JSON) -> None:
        seat, amount = int(d["seat"]), int(d["amount"])
        before = self.put_in.get(seat, 0)
        if d["level"] != self.level or before + amount != self.level:
            due = self.level - before
            self.r.fail("chips", e.version, f"{self.who(seat)} calls {amount}: with {before} in "
                        f"and the level at {self.level} a call is {due}")  # fmt: skip
        self.pay(e, seat, amount)
        self.put_in[seat] = before + amount
        self.say(e, f"{self.who(seat)} calls {amount}; pot {self.pot}")

    def raised(self, e: Entry, d: JSON) -> None:
        seat, amount, level = int(d["seat"]), int(d["amount"]), int(d["level"])
        before = self.put_in.get(seat, 0)
        if level <= self.level or before + amount != level:
            self.r.fail("chips", e.version, f"{self.who(seat)} raises to {level} paying {amount}"
                        f" with {before} in and the level at {self.level}")  # fmt: skip
        self.pay(e, seat, amount)
        self.put_in[seat] = before + amount
        self.level = level
        self.say(e, f"{self.who(seat)} raises to {level} ({amount}); pot {self.pot}")

    def folded_(self, e: Entry, d: JSON) -> None:
        self.folded.add(int(d["seat"]))
        self.say(e, f"{self.who(d['seat'])} folds" + (" (leaving)" if d.get("left") else ""))

    def timed_out(self, e: Entry, d: JSON) -> None:
        if d["action"] == "fold":
            self.folded.add(int(d["seat"]))
        self.say(e, f"{self.who(d['seat'])} timed out: {d['action']}")

    def seen(self, e: Entry, seat: int, cards: Any, verb: str) -> None:
        deal = self.deal
        dealt = deal.dealt.data if deal is not None and deal.dealt is not None else None
        given = (dealt or {}).get("cards", {}).get(str(seat))
        if cards is not None and (given is None or list(cards) != list(given)):
            dealt_text = " ".join(given) if given is not None else "nothing"
            self.r.fail("cards", e.version, f"{self.who(seat)} {verb} {' '.join(cards)} but was "
                        f"dealt {dealt_text}")  # fmt: skip

    def showdown(self, e: Entry, d: JSON) -> None:
        hands = {int(s): h for s, h in d["hands"].items()}
        parts = []
        for seat, h in sorted(hands.items()):
            self.seen(e, seat, h["cards"], "shows")
            right = score(h["cards"], self.joker_pair, self.natural_777)
            if h["score"] != right:
                self.r.fail("scores", e.version, f"{self.who(seat)} shows {' '.join(h['cards'])}"
                            f" scored {h['score']}; the rules give {right}")  # fmt: skip
            parts.append(f"{self.who(seat)} {' '.join(h['cards'])} = {h['score']}")
        self.showdowns.append((e, hands))
        self.say(e, "showdown: " + "; ".join(parts))

    def best(self, hands: dict[int, JSON]) -> list[int]:
        scores = {s: score(h["cards"], self.joker_pair, self.natural_777) for s, h in
                  hands.items()}  # fmt: skip
        if not scores:  # a showdown that shows nobody has no best hand (the browser agrees)
            return []
        top = max(scores.values())
        return [s for s, v in scores.items() if v == top]

    def svara_started(self, e: Entry, d: JSON) -> None:
        tied = [int(s) for s in d["tied"]]
        if not self.showdowns:
            self.r.fail("winner", e.version, "a svara with no showdown before it")
        else:
            best = self.best(self.showdowns[-1][1])
            if sorted(best) != sorted(tied) or len(best) < 2 or self.svara_rule != "play":
                self.r.fail("winner", e.version, f"a svara between {tied}; the showdown's best "
                            f"are {best} (svara rule {self.svara_rule})")  # fmt: skip
        if d["pot"] != self.pot:
            self.r.fail("chips", e.version, f"the svara's pot is {d['pot']}, not {self.pot}")
        fee = self.ante if self.fee_rule == "ante" else self.pot // max(1, len(tied))
        if d["fee"] != fee:
            self.r.fail("chips", e.version, f"a join fee of {d['fee']}; the rule gives {fee}")
        self.fee, self.tied, self.joined = int(d["fee"]), tied, []
        self.say(e, f"svara between {', '.join(self.who(s) for s in tied)}; join fee "
                 f"{d['fee']}; pot {self.pot}")  # fmt: skip
        self.publish(e, d)

    def svara_joined(self, e: Entry, d: JSON) -> None:
        seat = int(d["seat"])
        if d["fee"] != self.fee:
            self.r.fail("chips", e.version, f"{self.who(seat)} joins for {d['fee']}; the fee is "
                        f"{self.fee}")  # fmt: skip
        self.pay(e, seat, int(d["fee"]))
        self.joined.append(seat)
        self.say(e, f"{self.who(seat)} joins the svara for {d['fee']}; pot {self.pot}")

    def svara_skipped(self, e: Entry, d: JSON) -> None:
        self.say(e, f"{self.who(d['seat'])} does not join")

    def hand_settled(self, e: Entry, d: JSON) -> None:
        if d["number"] == self.x.hand:
            self.settle(e, d)
        else:  # the previous hand's settlement, which publishes this hand's commitment
            for seat, amount in d["amounts"].items():
                if int(seat) in self.stacks:
                    self.stacks[int(seat)] += int(amount)
            self.say(e, f"hand {d['number']} settled")
        self.publish(e, d)

    def settle(self, e: Entry, d: JSON) -> None:
        winners = [int(s) for s in d["winners"]]
        amounts = {int(k): int(v) for k, v in d["amounts"].items()}
        reason = d["reason"]
        deal = self.deal
        last_players = [s for s in deal.participants if s not in self.folded] if deal else []
        expected: list[int] | None = None
        if reason == "last_player":
            expected = last_players
        elif reason in ("showdown", "split"):
            best = self.best(self.showdowns[-1][1]) if self.showdowns else []
            fits = len(best) == 1 if reason == "showdown" else (
                len(best) >= 2 and self.svara_rule == "split")  # fmt: skip
            expected = best if fits else None
        elif reason == "svara_walkover":
            expected = sorted({*self.tied, *self.joined})
        if expected is None or sorted(expected) != sorted(winners):
            self.r.fail("winner", e.version, f"winners {winners} ({reason}) do not follow from "
                        f"the hand (the rules give {expected})")  # fmt: skip
        if d["pot"] != self.pot:
            self.r.fail("chips", e.version, f"the settled pot is {d['pot']}; the bets add up to "
                        f"{self.pot}")  # fmt: skip
        rake = self.pot * self.rake_percent // 100
        share, odd = divmod(self.pot - rake, max(1, len(winners)))
        right = {s: share + (1 if i < odd else 0) for i, s in enumerate(winners)}
        if d["rake"] != rake or amounts != right:
            self.r.fail("chips", e.version, f"paid {amounts} with rake {d['rake']}; a pot of "
                        f"{self.pot} pays {right} with rake {rake}")  # fmt: skip
        for seat, amount in amounts.items():
            if seat in self.stacks:
                self.stacks[seat] += amount
        paid = ", ".join(f"{self.who(s)} +{a}" for s, a in amounts.items())
        self.say(e, f"hand {d['number']} settled ({reason}): {paid}; rake {d['rake']}; "
                 f"pot {d['pot']}")  # fmt: skip
        self.seeds = {int(s["deal"]): s for s in d.get("seeds", [])}
        self.settled = e
        self.in_hand = False

    # -- after the hand: commitments and decks ------------------------------------------------

    def check_deals(self) -> None:
        settled = self.settled
        if settled is None:
            return
        for number, deal in sorted(self.deals.items()):
            try:
                self.check_deal(settled, deal, self.seeds.get(number))
            except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
                at = deal.dealt.version if deal.dealt is not None else deal.start.version
                self.r.fail("deck", at, f"deal {number}'s events lack what they must carry "
                            f"({exc!r})")  # fmt: skip

    def check_deal(self, settled: Entry, deal: _Deal, revealed: JSON | None) -> None:
        start = deal.start.data or {}
        dealt = deal.dealt
        committed = start.get("commitment")
        algorithm = (dealt.data or {}).get("algorithm", V1_DECK) if dealt else V1_DECK
        if algorithm == V2_DECK:
            published = (deal.published.data or {}).get("next_commitment") if deal.published \
                else None  # fmt: skip
            if published is None:
                self.r.fail("commitment", deal.start.version, f"deal {deal.deal} is v2 but no "
                            "commitment was published before it")  # fmt: skip
            elif published != committed:
                self.r.fail("commitment", deal.start.version, f"deal {deal.deal}'s commitment is "
                            f"not the one published at version {deal.published.version}")  # type: ignore[union-attr]  # fmt: skip
        if revealed is None:
            self.r.fail("commitment", settled.version, f"no seed revealed for deal {deal.deal}")
            seed = None
        else:
            seed_hex = str(revealed.get("seed", ""))
            try:
                seed = bytes.fromhex(seed_hex)
            except ValueError:
                seed = None
            if seed is None or hashlib.sha256(seed).hexdigest() != committed:
                self.r.fail("commitment", settled.version, f"the seed revealed for deal "
                            f"{deal.deal} does not match its commitment")  # fmt: skip
            elif revealed.get("commitment") != committed:
                self.r.fail("commitment", settled.version, f"deal {deal.deal}'s revealed "
                            "commitment differs from the one at the deal")  # fmt: skip
            elif start.get("seed") not in (None, seed_hex):
                self.r.fail("commitment", deal.start.version, f"the seed recorded at deal "
                            f"{deal.deal} is not the one revealed")  # fmt: skip
            elif deal.drawn is not None and (deal.drawn.data or {}).get("seed") != seed_hex:
                self.r.fail("commitment", deal.drawn.version, "the seed drawn in advance is "
                            "not the one revealed")  # fmt: skip
        if dealt is None:
            self.r.fail("deck", deal.start.version, f"deal {deal.deal} has no cards_dealt")
            return
        self.check_deck(dealt, deal, seed, algorithm)

    def check_deck(self, dealt: Entry, deal: _Deal, seed: bytes | None, algorithm: str) -> None:
        d = dealt.data or {}
        if algorithm not in (V1_DECK, V2_DECK):
            self.r.fail("deck", dealt.version, f"unknown deck algorithm {algorithm!r}")
            return
        if seed is None or len(seed) != 32:
            self.r.fail("deck", dealt.version, "no valid seed to rebuild the deck from")
            return
        mix = str(d.get("mix", "")) if algorithm == V2_DECK else None
        order = deck(seed, self.x.table_id, self.x.hand, deal.deal, mix)
        n = len(deal.participants)
        cards = d.get("cards", {})
        if sorted(int(s) for s in cards) != sorted(deal.participants) or not 2 <= n <= 10:
            self.r.fail("deck", dealt.version, f"cards dealt to seats {sorted(cards)}; the deal's "
                        f"players are {deal.participants}")  # fmt: skip
            return
        for i, seat in enumerate(deal.participants):
            right = [order[i], order[n + i], order[2 * n + i]]
            got = list(cards[str(seat)])
            if got != right:
                self.r.fail("deck", dealt.version, f"{self.who(seat)} got {' '.join(got)}; the "
                            f"{algorithm} deck puts {' '.join(right)} there")  # fmt: skip
        self.r.lines.append(f"        deal {deal.deal} deck: {' '.join(order)}")


# -- the transcript (`--text`) -----------------------------------------------------------------


class _Transcript:
    """The hand's readable history in English (docs/TRANSCRIPT.md), from the file's events
    alone with its own bookkeeping of names, stacks and the pot: the same text as the
    server's `GET /api/tables/{id}/hands/{n}/transcript?lang=en`."""

    def __init__(self, export: Export) -> None:
        self.x = export
        self.names = {int(s["seat"]): str(s.get("name", "?")) for s in export.seats}
        self.stacks = {int(s["seat"]): int(s.get("stack", 0)) for s in export.seats}
        self.pot = 0
        self.ante = export.settings.get("ante")  # until a tournament's level rises
        self.lines: list[str] = []

    def who(self, seat: Any) -> str:
        return f"{self.names.get(int(seat), '?')} (seat {seat})"

    def whos(self, seats: Any) -> str:
        return ", ".join(self.who(s) for s in seats)

    def text(self) -> str:
        started: Entry | None = None
        settled: Entry | None = None
        for e in self.x.events:
            d = e.data or {}
            if started is None:
                if e.type == "hand_started" and d.get("number") == self.x.hand:
                    started = e
                    self.header(e, d)
                else:
                    self.between(e, d)
                    continue
            line = self.line(e, d)
            if line is not None:
                self.lines.append(f"#{e.version} {line}")
            if e.type == "hand_settled" and d.get("number") == self.x.hand:
                settled = e
                break
        if started is None or settled is None:
            raise Malformed(f"the file holds no settled hand {self.x.hand}")
        self.footer(settled, settled.data or {})
        return "\n".join(self.lines) + "\n"

    def between(self, e: Entry, d: JSON) -> None:
        if e.type == "hand_settled":
            for seat, amount in d.get("amounts", {}).items():
                if int(seat) in self.stacks:
                    self.stacks[int(seat)] += int(amount)
        elif e.type == "player_seated":
            self.names[int(d["seat"])] = str(d["name"])
            self.stacks[int(d["seat"])] = int(d["buy_in"])
        elif e.type == "player_left":
            self.stacks.pop(int(d["seat"]), None)
        elif e.type == "ante_changed":
            self.ante = d["ante"]

    def header(self, e: Entry, d: JSON) -> None:
        name = self.x.settings.get("name") or ""
        table = f"{name} ({self.x.table_id})" if name else self.x.table_id
        when = datetime.fromtimestamp(float(e.at), UTC).strftime("%Y-%m-%d %H:%M:%S")
        players = ", ".join(f"{self.who(s)}, stack {self.stacks.get(int(s), 0)}"
                            for s in d["participants"])  # fmt: skip
        self.lines += ["Svara hand history", f"Table: {table}", f"Hand: {self.x.hand}",
                       f"Stakes: ante {self.ante}", f"Started: {when} UTC",
                       f"Players: {players}", ""]  # fmt: skip

    def line(self, e: Entry, d: JSON) -> str | None:
        t, pot = e.type, self.pot
        if t == "hand_started":
            self.pot = 0
            return (f"Hand {d['number']}: dealer {self.who(d['dealer'])}; deal 1 commitment "
                    f"{d['commitment']}")  # fmt: skip
        if t == "antes_paid":
            self.pot = int(d["pot"])
            return f"Antes of {d['ante']} from {len(d['seats'])} players; pot {self.pot}"
        if t == "cards_dealt":
            return f"Deal {d['deal']} dealt"
        if t in ("blind_placed", "called", "raised"):
            self.pot += int(d["amount"])
            verb = {"blind_placed": "goes blind", "called": "calls"}.get(t)
            if verb is None:
                return (f"{self.who(d['seat'])} raises to {d['level']} (+{d['amount']}); pot "
                        f"{self.pot}")  # fmt: skip
            return f"{self.who(d['seat'])} {verb} {d['amount']}; pot {self.pot}"
        if t == "passed":
            return f"{self.who(d['seat'])} passes; pot {pot}"
        if t == "looked":
            return f"{self.who(d['seat'])} looks at their cards; pot {pot}"
        if t == "folded":
            how = "folds and leaves" if d.get("left") else "folds"
            return f"{self.who(d['seat'])} {how}; pot {pot}"
        if t == "timed_out":
            actions = {"fold": "fold", "pass": "pass", "skip_svara": "does not join the svara"}
            action = actions.get(d["action"], d["action"])
            return f"{self.who(d['seat'])} runs out of time: {action}; pot {pot}"
        if t == "showdown":
            shown = sorted(d["hands"].items(), key=lambda i: int(i[0]))
            hands = ", ".join(f"{self.who(s)} {' '.join(h['cards'])} = {h['score']}"
                              for s, h in shown)  # fmt: skip
            return f"Showdown{' (capped)' if d.get('capped') else ''}: {hands}"
        if t == "svara_started":
            return f"Svara between {self.whos(d['tied'])}; join fee {d['fee']}; pot {pot}"
        if t == "svara_joined":
            self.pot += int(d["fee"])
            return f"{self.who(d['seat'])} joins the svara for {d['fee']}; pot {self.pot}"
        if t == "svara_skipped":
            return f"{self.who(d['seat'])} does not join the svara; pot {pot}"
        if t == "svara_deal_started":
            return (f"Deal {d['deal']} for {self.whos(d['participants'])}; commitment "
                    f"{d['commitment']}")  # fmt: skip
        if t == "seed_drawn":
            return f"The next deal's seed is drawn; commitment {d['commitment']}"
        if t == "player_seated":
            self.names[int(d["seat"])] = str(d["name"])
            return f"{self.who(d['seat'])} sits down with {d['buy_in']}"
        if t == "player_left":
            return f"{self.who(d['seat'])} leaves with {d['cashed_out']}"
        if t == "sat_out":
            return f"{self.who(d['seat'])} sits out"
        if t == "returned":
            return f"{self.who(d['seat'])} sits back in"
        if t == "client_seed_set":
            return f"{self.who(d['seat'])} sets their seed to {d['client_seed']}"
        if t == "hand_settled":
            return f"Hand {d['number']} settled"
        if t in ("turn_deadline_set", "ante_changed"):  # the next hand's ante: not this one's
            return None
        return t

    def footer(self, e: Entry, d: JSON) -> None:
        reasons = {"showdown": "showdown", "split": "split pot", "last_player": "last player in",
                   "svara_walkover": "svara walkover"}  # fmt: skip
        amounts = sorted(d["amounts"].items(), key=lambda i: int(i[0]))
        paid = ", ".join(f"{self.who(s)} wins {a}" for s, a in amounts)
        self.lines += ["", f"Result ({reasons.get(d['reason'], d['reason'])}): {paid}; pot "
                       f"{d['pot']}; rake {d['rake']}"]  # fmt: skip
        for seed in sorted(d.get("seeds", []), key=lambda s: int(s["deal"])):
            self.lines.append(f"Deal {seed['deal']}: commitment {seed['commitment']}; seed "
                              f"{seed['seed']}")  # fmt: skip
        self.lines.append(f"Newest chain hash: {e.hash} (version {e.version})")


def transcript(export: Export) -> str:
    """The hand's readable history (`svara verify --text FILE`)."""
    return _Transcript(export).text()


# -- the command -------------------------------------------------------------------------------


def _parse_pins(args: list[str]) -> tuple[str | None, JSON] | str:
    """FILE [--pin VERSION:HASH]... [--commitment HAND:DEAL:COMMITMENT]..."""
    path: str | None = None
    pins: JSON = {}
    it = iter(args)
    for arg in it:
        if arg in ("--pin", "--commitment"):
            value = next(it, None)
            if value is None:
                return f"{arg} needs a value"
            parts = value.split(":")
            if arg == "--pin" and len(parts) == 2 and parts[0].isdigit():
                pins.setdefault("hashes", {})[parts[0]] = parts[1]
            elif arg == "--commitment" and len(parts) == 3:
                pins.setdefault("commitments", {})[f"{parts[0]}:{parts[1]}"] = parts[2]
            else:
                return f"bad {arg} {value!r}"
        elif arg == "--text":
            pins["text"] = True
        elif path is None:
            path = arg
        else:
            return f"unexpected argument {arg!r}"
    return path, pins


USAGE = (
    "usage: svara verify FILE [--pin VERSION:HASH]... [--commitment HAND:DEAL:COMMITMENT]...\n"
    "       svara verify --text FILE   (print the hand's readable history; checks nothing)"
)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    parsed = _parse_pins(args)
    if isinstance(parsed, str) or parsed[0] is None:
        print(f"svara verify: {parsed if isinstance(parsed, str) else 'no FILE'}\n{USAGE}",
              file=sys.stderr)  # fmt: skip
        return 2
    path, pins = parsed
    assert path is not None
    text_only = bool(pins.pop("text", False))
    try:
        with open(path, "rb") as f:
            export = load(f.read())
        if text_only:
            print(transcript(export), end="")
            return 0
    except OSError as exc:
        print(f"svara verify: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    except Malformed as exc:
        print(f"svara verify: {path} is malformed: {exc}", file=sys.stderr)
        return 2
    report = verify(export, pins)
    print(render(export, report))
    return 0 if report.ok else 1


def render(export: Export, report: Report) -> str:
    first, last = export.events[0].version, export.events[-1].version
    kinds = sorted({e.chain for e in export.events})
    out = [
        f"Table {export.table_id}, hand {export.hand}: events {first}-{last} "
        f"(chain v{'/v'.join(map(str, kinds))})",
        "Seats: " + ", ".join(
            f"{s.get('name', '?')} (seat {s['seat']}, stack {s.get('stack', '?')})"
            for s in export.seats
        ),
        "",
        *report.lines,
        "",
        "Checks:",
    ]
    for result in report.results():
        if result["ok"]:
            out.append(f"  {result['check']:<11} ok")
        else:
            chain = f" (chain v{result['chain_version']})" if "chain_version" in result else ""
            out.append(f"  {result['check']:<11} FAILED at version {result['version']}{chain}: "
                       f"{result['reason']}")  # fmt: skip
    failed = [r for r in report.results() if not r["ok"]]
    if len(report.failures) > len(failed):
        out.append("All failures:")
        out += [f"  {f.check} at version {f.version}: {f.reason}" for f in report.failures]
    out.append("")
    out.append("Every check passed." if report.ok else f"{len(failed)} check(s) failed.")
    return "\n".join(out)


if __name__ == "__main__":
    raise SystemExit(main())
