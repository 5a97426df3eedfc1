"""The audit tests' hand (test_audit.py): two pages play it on a table of the real server, and
what the tests read of it (the page's verdict, `svara verify`'s) and do to it (the tamperings
and the checks each must fail)."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import aiohttp

from service import verify
from tests.support.browser import Contexts
from tests.support.http_player import HttpPlayer
from tests.support.serve import Server
from tests.support.tamper import Change, edit, move_time, rehashed, remove
from tests.support.waiting import eventually
from tests.webapp.player import Player
from tests.webapp.tables import sit_down

# What the test players click, first available wins: look at the cards, then bet and call,
# so the hand has a look, a raise, a call and a showdown to tamper with.
ORDER = ["look", "call", "raise", "pass", "skip_svara", "fold", "sit_in"]
SEED_KEY = "svara:clientSeed"


class Played:
    """A settled hand both pages played, and what the test needs to tamper with it."""

    def __init__(self, table: str, hand: int, ana: Player, boris: Player, api: HttpPlayer,
                 stream: str) -> None:
        self.table, self.hand, self.ana, self.boris, self.api = table, hand, ana, boris, api
        self.stream = stream

    async def export(self) -> dict[str, Any]:
        data: dict[str, Any] = await self.api.ok(
            "GET", f"/api/tables/{self.table}/hands/{self.hand}/export")
        return data

    def audit_url(self, base: str) -> str:
        return f"{base}/?table={self.table}&screen=audit&hand={self.hand}"


async def seed_of(player: Player) -> str:
    seed = await player.page.evaluate(f"localStorage[{json.dumps(SEED_KEY)}]")
    assert isinstance(seed, str)
    return seed


async def step(player: Player) -> None:
    """Click the first action of ORDER the page offers (none: nothing happens)."""
    state = await player.look()
    choice = next((a for a in ORDER if a in state["enabled"]), None)
    if choice is None:
        return
    try:
        await player.page.click(f".action-bar [data-action={choice}]:enabled", timeout=2_000)
    except Exception:  # the table moved on between reading and clicking
        return


async def play(server: Server, browser: Contexts, namespace: str,
               http: aiohttp.ClientSession) -> Played:
    """Ana and Boris sit down on their pages (each page gives the table its seed), play two
    hands by tapping, and Boris leaves: hand 2 was cut by both seeds and the log is quiet."""
    ana = await Player.open(browser, server.url, "Ana Audit")
    boris = await Player.open(browser, server.url, "Boris Audit")
    api = await HttpPlayer.login(http, server.url, ana.user_id, "Ana Audit")
    boris_api = await HttpPlayer.login(http, server.url, boris.user_id, "Boris Audit")
    table = await api.create(ante=10, max_seats=2, next_hand_seconds=2)
    await sit_down(ana, server.url, table)
    ana_seed = await seed_of(ana)
    assert re.fullmatch(r"[0-9a-f]{32}", ana_seed), ana_seed  # 16 random bytes, made here
    await eventually(lambda: _seed_at(api, table, ana_seed), 10, every=0.1)  # sent on sitting down
    await sit_down(boris, server.url, table)  # the second player: hand 1 is dealt now
    boris_seed = await seed_of(boris)
    assert boris_seed != ana_seed
    await eventually(lambda: _seed_at(boris_api, table, boris_seed), 10, every=0.1)

    async def hand_two_settled() -> bool:
        status, body = await api.call("GET", f"/api/tables/{table}/hands?limit=5")
        return status == 200 and any(h["number"] == 2 for h in body["hands"])

    async with asyncio.timeout(60):
        while not await hand_two_settled():
            await step(ana)
            await step(boris)
            await asyncio.sleep(0.1)
    # Ana's page saw it settle live before Boris leaves (the pins it keeps come from there).
    await ana.page.wait_for_function(
        "() => { const v = window.svara?.current?.view;"
        " return v && v.hand && (v.hand.number > 2 || v.hand.phase === 'settled'); }")
    await boris_api.ok("POST", f"/api/tables/{table}/leave")
    await eventually(lambda: _quiet(api, table), 10, every=0.1)
    played = Played(table, 2, ana, boris, api, f"{namespace}:table:{table}")
    # the players' seeds that cut hand 2 are both pages' own
    exported = await played.export()
    dealt = next(json.loads(e["raw"]) for e in exported["events"]
                 if e["type"] == "cards_dealt")
    seats = {s["user_id"]: s["seat"] for s in exported["seats"]}
    assert dealt["client_seeds"] == {str(seats[ana.user_id]): ana_seed,
                                     str(seats[boris.user_id]): boris_seed}
    return played


async def _seed_at(api: HttpPlayer, table: str, seed: str) -> bool:
    view = await api.view(table)
    return bool(view["you"]["client_seed"] == seed)


async def _quiet(api: HttpPlayer, table: str) -> bool:
    """Nobody in a hand: the log does not grow while the test tampers with it."""
    view = await api.view(table)
    return view["hand"] is None or view["hand"]["phase"] == "settled"


async def page_verdict(page: Any) -> dict[str, Any]:
    """The audit screen as the page shows it: its verdict, each check's result and version,
    the deck of each deal, the server's verdict and whether the two agree."""
    await page.wait_for_selector("#audit")
    found: dict[str, Any] = await page.evaluate("""() => {
      const audit = document.querySelector('#audit');
      const server = document.querySelector('#server-audit');
      return {
        verified: audit.dataset.verified === 'true',
        failedCheck: audit.dataset.failedCheck, failedVersion: audit.dataset.failedVersion,
        checks: Object.fromEntries([...audit.querySelectorAll('.checks li')].map((li) =>
          [li.dataset.check, {ok: li.dataset.ok, version: li.dataset.version,
                              text: li.innerText}])),
        decks: Object.fromEntries([...document.querySelectorAll('.deal')].map((d) =>
          [d.dataset.deal, [...d.querySelectorAll('.deck .card')].map((c) => c.dataset.card)])),
        server: server ? {verified: server.dataset.verified, agrees: server.dataset.agrees} : null,
        yours: [...document.querySelectorAll('.deal .yours')].map((y) => y.dataset.ok),
        kept: [...document.querySelectorAll('.deal .kept')].map((k) => k.dataset.kept),
      };
    }""")
    return found


def failed(verdict: dict[str, Any]) -> dict[str, int]:
    return {name: int(c["version"]) for name, c in verdict["checks"].items() if c["ok"] == "false"}


async def python_verdict(played: Played) -> dict[str, int | None]:
    """`svara verify` on the same export, given the pins the page kept (its localStorage)."""
    kept = await played.ana.page.evaluate(
        f"JSON.parse(localStorage['svara:pins:{played.table}'] || 'null')")
    hashes = dict(kept["hashes"])
    if kept.get("newest"):
        hashes[str(kept["newest"]["version"])] = kept["newest"]["hash"]
    pins = {"hashes": hashes, "commitments": kept["commitments"]}
    report = verify.verify(verify.load(json.dumps(await played.export())), pins)
    return {r["check"]: r.get("version") for r in report.results() if not r["ok"]}


def first_versions(exported: dict[str, Any]) -> dict[str, int]:
    """The first version of each event type in the hand (from its hand_started on)."""
    out: dict[str, int] = {}
    started = False
    for e in exported["events"]:
        started = started or e["type"] == "hand_started"
        if started:
            out.setdefault(e["type"], e["version"])
    return out


def bump(data: dict[str, Any]) -> None:
    data["amount"] += 1


def _swap_cards(data: dict[str, Any]) -> None:
    cards, seats = data["cards"], sorted(data["cards"])
    cards[seats[0]], cards[seats[1]] = cards[seats[1]], cards[seats[0]]


def _wrong_seed(data: dict[str, Any]) -> None:
    data["seeds"][0]["seed"] = "ab" * 32


def tampering_cases(v: dict[str, int],
                    pinned: list[int]) -> dict[str, tuple[Change, dict[str, int]]]:
    """Each tampering, and the checks (with versions) the page must name at least. A rewrite
    that recomputes every hash from an event on contradicts the first hash the page kept
    from there on (`pinned`: the versions whose hashes it kept)."""
    bet = v.get("called", v.get("raised"))
    assert bet is not None, v
    settled = v["hand_settled"]

    def pin(version: int) -> int:
        return min(p for p in pinned if p >= version)

    return {
        "changed amount": (edit(bet, bump, rehash=False), {"chain": bet}),
        "changed amount, rehashed": (edit(bet, bump, rehash=True),
                                     {"chips": bet, "pins": pin(bet)}),
        "swapped card, rehashed": (edit(v["cards_dealt"], _swap_cards, rehash=True),
                                   {"deck": v["cards_dealt"], "pins": v["cards_dealt"]}),
        "wrong seed, rehashed": (edit(settled, _wrong_seed, rehash=True),
                                 {"commitment": settled, "pins": settled}),
        "moved time": (move_time(v["looked"], -30.0), {"chain": v["looked"]}),
        "moved time, rehashed": (lambda es: rehashed(move_time(v["looked"], -30.0)(es),
                                                     v["looked"]), {"pins": pin(v["looked"])}),
        "removed event": (remove(bet), {"chain": bet}),
    }


async def pinned_versions(played: Played) -> list[int]:
    """The versions whose hashes Ana's page kept (its localStorage)."""
    kept = await played.ana.page.evaluate(
        f"JSON.parse(localStorage['svara:pins:{played.table}'] || 'null')")
    versions = [int(v) for v in kept["hashes"]]
    assert kept["newest"]["version"] >= max(versions)
    return sorted(versions)
