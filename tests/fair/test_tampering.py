"""Tampering, adversarial: every kind of edit an attacker with access to Redis could
make to a settled hand -- a changed amount, a swapped card, a wrong seed, a removed, reordered
or re-hashed event, a moved time, a players'-seed line changed -- makes both the server's audit
and the offline verifier (`svara verify`) fail, naming the same check and event version.

Edits that keep the hash chain valid (every hash after the edit recomputed) are what only the
content checks can catch; edits that do not are caught by the chain at the first changed
version. Each of the audit's checks is shown failing on a bad input of its own
(`test_each_check_fails_on_its_own_bad_input`), so none can be removed unnoticed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from events.store.base import StoredEvent
from service import verify
from tests.fair.game import Played, both_verdicts, played
from tests.support.clock import FakeClock
from tests.support.services import Factory
from tests.support.tamper import (
    Change,
    edit,
    move_time,
    rehash_only,
    rehashed,
    remove,
    swap,
    tamper,
)

pytestmark = pytest.mark.redis


@pytest.fixture
async def table(services: Factory, clock: FakeClock) -> Played:
    return await played(await services(), clock)


def _bump(field: str, by: int = 1) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data[field] += by

    return change


def _swap_cards(data: dict[str, Any]) -> None:
    seats = sorted(data["cards"])
    cards = data["cards"]
    cards[seats[0]], cards[seats[1]] = cards[seats[1]], cards[seats[0]]


def _wrong_seed(data: dict[str, Any]) -> None:
    data["seeds"][0]["seed"] = "ab" * 32


def _seed_line(data: dict[str, Any]) -> None:
    seat = sorted(data["client_seeds"])[0]
    data["client_seeds"][seat] += "x"


CASES: dict[str, tuple[str, Callable[[dict[str, Any]], None]]] = {
    "changed amount": ("called", _bump("amount")),
    "swapped card": ("cards_dealt", _swap_cards),
    "wrong seed": ("hand_settled", _wrong_seed),
    "players' seed line changed": ("cards_dealt", _seed_line),
}


@pytest.mark.parametrize("case", sorted(CASES))
async def test_an_edit_breaks_the_chain_at_its_version(table: Played, case: str) -> None:
    kind, change = CASES[case]
    version = table.versions[kind]
    await tamper(table.store, table.stream, edit(version, change, rehash=False))
    server, offline = await both_verdicts(table)
    assert server.get("chain") == offline.get("chain") == version, (server, offline)


# (edit, the event type it hits, the check that must name it)
REWRITES: dict[str, tuple[str, Callable[[dict[str, Any]], None], str]] = {
    "changed amount": ("called", _bump("amount"), "chips"),
    "swapped card": ("cards_dealt", _swap_cards, "deck"),
    "wrong seed": ("hand_settled", _wrong_seed, "commitment"),
    "players' seed line changed": ("cards_dealt", _seed_line, "seeds"),
}


@pytest.mark.parametrize("case", sorted(REWRITES))
async def test_a_rewrite_with_every_hash_recomputed_is_named_by_its_check(
    table: Played, case: str
) -> None:
    kind, change, check = REWRITES[case]
    version = table.versions[kind]
    await tamper(table.store, table.stream, edit(version, change, rehash=True))
    server, offline = await both_verdicts(table)
    assert "chain" not in server and "chain" not in offline  # the chain itself holds
    assert server.get(check) == offline.get(check) == version, (server, offline)


async def test_a_removed_event(table: Played) -> None:
    version = table.versions["called"]
    await tamper(table.store, table.stream, remove(version))
    server, offline = await both_verdicts(table)
    assert server.get("chain") == offline.get("chain") == version, (server, offline)


async def test_two_reordered_events(table: Played) -> None:
    version = table.versions["called"]
    await tamper(table.store, table.stream, swap(version))
    server, offline = await both_verdicts(table)
    assert server.get("chain") == offline.get("chain") == version, (server, offline)


async def test_a_re_hashed_event_breaks_the_next_link(table: Played) -> None:
    """The edited event's own hash recomputed: its successor no longer links to it."""
    version = table.versions["called"]
    await tamper(table.store, table.stream, rehash_only(version, _bump("amount")))
    server, offline = await both_verdicts(table)
    assert server.get("chain") == offline.get("chain") == version + 1, (server, offline)


async def test_a_moved_time(table: Played) -> None:
    """The time is inside the hashed bytes (chain v2): moving it breaks the link."""
    version = table.versions["looked"]
    await tamper(table.store, table.stream, move_time(version, -30.0))
    server, offline = await both_verdicts(table)
    assert server.get("chain") == offline.get("chain") == version, (server, offline)


def _other_winner(data: dict[str, Any]) -> None:
    """The pot paid to another player than the one the showdown made the winner."""
    winner = data["winners"][0]
    loser = next(s for s in ("0", "1", "2") if int(s) != winner)
    data["winners"] = [int(loser)]
    data["amounts"] = {loser: data["amounts"][str(winner)]}


def _shown_score(data: dict[str, Any]) -> None:
    seat = sorted(data["hands"])[0]
    data["hands"][seat]["score"] += 1


def _looked_card(data: dict[str, Any]) -> None:
    data["cards"] = [data["cards"][1], data["cards"][0], data["cards"][2]]


# Every check of the audit, failing alone on a bad input that targets it.
ALONE: dict[str, tuple[str, Change | None]] = {
    "chips": ("called", None),
    "deck": ("cards_dealt", None),
    "commitment": ("hand_settled", None),
    "seeds": ("cards_dealt", None),
    "cards": ("looked", None),
    "scores": ("showdown", None),
    "winner": ("hand_settled", None),
}
_ALONE_EDITS: dict[str, Callable[[dict[str, Any]], None]] = {
    "chips": _bump("amount"),
    "deck": _swap_cards,
    "commitment": _wrong_seed,
    "seeds": _seed_line,
    "cards": _looked_card,
    "scores": _shown_score,
    "winner": _other_winner,
}


@pytest.mark.parametrize("check", sorted(ALONE))
async def test_each_check_fails_on_its_own_bad_input(table: Played, check: str) -> None:
    kind, _ = ALONE[check]
    version = table.versions[kind]
    await tamper(table.store, table.stream, edit(version, _ALONE_EDITS[check], rehash=True))
    server, offline = await both_verdicts(table)
    assert server.get(check) == offline.get(check) == version, (server, offline)
    assert set(server) == set(offline), (server, offline)
    if check == "deck":  # the swapped cards may have been looked at or shown since
        assert set(server) <= {"deck", "cards"}
    elif check == "commitment":  # nor are the cards those of the wrong seed's deck
        assert set(server) == {"commitment", "deck"}
    else:
        assert set(server) == {check}, (server, offline)


def _left_out_a_seed(data: dict[str, Any]) -> None:
    """A deal that ignores one player's seed, its mix made to match (a server that picks
    which seeds count)."""
    seat = sorted(data["client_seeds"])[0]
    del data["client_seeds"][seat]
    lines = [f"{s}:{data['client_seeds'][s]}" for s in sorted(data["client_seeds"], key=int)]
    data["mix"] = hashlib.sha256("\n".join(lines).encode()).hexdigest()


async def test_a_deal_that_left_out_a_players_seed_is_named(table: Played) -> None:
    version = table.versions["cards_dealt"]
    await tamper(table.store, table.stream, edit(version, _left_out_a_seed, rehash=True))
    server, offline = await both_verdicts(table)
    assert server == offline, (server, offline)
    assert server["seeds"] == version  # not the seeds recorded before the deal
    assert server["deck"] == version  # and the cards are not from that mix's deck either


async def test_a_mix_that_is_not_the_digest_of_the_seeds_is_named(table: Played) -> None:
    version = table.versions["cards_dealt"]
    await tamper(table.store, table.stream,
                 edit(version, lambda d: d.update(mix="ab" * 32), rehash=True))  # fmt: skip
    server, offline = await both_verdicts(table)
    assert server == offline == {"seeds": version, "deck": version}, (server, offline)


async def test_an_entry_relabelled_as_chain_version_1_is_named(table: Played) -> None:
    """A rewrite that relabels an entry as chain version 1 (whose hash leaves the time out)
    and recomputes every hash from there keeps each link valid, and still fails: the chain
    version went down at that entry."""
    version = table.versions["looked"]

    def relabel(events: list[StoredEvent]) -> list[StoredEvent]:
        out = [msgspec.structs.replace(e, chain=1) if e.version == version else e
               for e in events]  # fmt: skip
        return rehashed(out, version)

    await tamper(table.store, table.stream, relabel)
    audit = await table.service.audit(table.table_id, table.hand)
    exported = await table.service.export(table.table_id, table.hand)
    report = verify.verify(verify.load(json.dumps(exported)))
    for failures in (audit["failures"], [vars(f) for f in report.failures]):
        chain = [f for f in failures if f["check"] == "chain"]
        assert chain and chain[0]["version"] == version and "went down" in chain[0]["reason"]
