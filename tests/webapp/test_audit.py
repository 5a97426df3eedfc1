"""Fair hands in the browser: the web app checks a hand for itself.

Two people play at a table of the real `svara serve` on the real Redis (dev mode, a namespace
of this module's own). Each page gave the table its own seed (made on first use, kept in
localStorage); the audited hand's deck was cut by both. One opens the audit: the page fetches
the export, recomputes every chain link and the deck with WebCrypto (the deck it shows is held
to Python's `shuffled_deck_v2` for that deal) and says verified. Then the stored bytes are
tampered with directly in Redis, as someone with access to it would -- with and without every
hash after the edit recomputed -- and the reloaded audit shows the failure, naming the check
and the event version, the same as `svara verify` given the same pins; a rewrite whose chain
is valid again is caught by what the page kept while it played (the `pins` check), and a
server that calls a tampered hand verified is shown disagreeing with the page.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
import redis

from events.store.factory import open_redis_store
from events.store.redis_store import RedisEventStore
from service import verify
from service.game.deck import mix_of, shuffled_deck_v2
from tests.support.browser import Contexts, check_layout, snap
from tests.support.http_player import HttpPlayer
from tests.support.redis import REDIS_TEST_URL
from tests.support.serve import APP_ENV, Server
from tests.support.tamper import Change, edit, move_time, rehashed, remove, tamper
from tests.support.waiting import eventually
from tests.webapp.catalogs import catalog
from tests.webapp.languages import VISIBLE_TEXT_JS, check_language
from tests.webapp.player import Player
from tests.webapp.tables import sit_down

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.redis]

# What the test players click, first available wins: look at the cards, then bet and call,
# so the hand has a look, a raise, a call and a showdown to tamper with.
ORDER = ["look", "call", "raise", "pass", "skip_svara", "fold", "sit_in"]
SEED_KEY = "svara:clientSeed"

TEXT_SIZES_JS = """(root) => [...document.querySelectorAll(`${root} *`)]
  .filter((el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
  .filter((el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; })
  .map((el) => ({text: el.textContent.slice(0, 30), px: parseFloat(getComputedStyle(el).fontSize)}))
  .filter((t) => t.px < 14)"""


@pytest.fixture(scope="module")
def namespace() -> Iterator[str]:
    """A namespace of this module's own on the shared Redis, deleted afterwards."""
    name = f"webaudit-{uuid.uuid4().hex[:10]}"
    client = redis.Redis.from_url(REDIS_TEST_URL)
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.fail(f"Redis is required at {REDIS_TEST_URL} ({exc})")
    yield name
    for key in client.scan_iter(match=f"*{name}*", count=500):
        client.delete(key)
    client.close()


@pytest.fixture(scope="module")
def redis_server(namespace: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`svara serve` in dev mode (no BOT_TOKEN: signed test users) on the real Redis."""
    srv = Server({**APP_ENV, "REDIS_URL": REDIS_TEST_URL, "SVARA_NAMESPACE": namespace},
                 log=tmp_path_factory.mktemp("serve-redis") / "serve.log").spawn()
    try:
        srv.wait_ready()
        yield srv
    finally:
        srv.stop()


@pytest_asyncio.fixture(loop_scope="session")
async def store() -> AsyncIterator[RedisEventStore]:
    opened = open_redis_store(REDIS_TEST_URL)
    yield opened
    await opened.close()


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


@pytest_asyncio.fixture(loop_scope="session", scope="module")
async def played(redis_server: Server, chromium: Any, namespace: str) -> AsyncIterator[Played]:
    contexts = Contexts(chromium)
    async with aiohttp.ClientSession() as http:
        yield await play(redis_server, contexts, namespace, http)
    for context in contexts.opened:
        await context.close()


async def test_the_page_recomputes_the_deck_and_shows_the_hand_verified(
    played: Played, redis_server: Server, shots: Path
) -> None:
    page = played.ana.page
    await page.goto(played.audit_url(redis_server.url))
    verdict = await page_verdict(page)
    assert verdict["verified"], verdict
    assert verdict["checks"].keys() == {"chain", "pins", "commitment", "seeds", "deck", "cards",
                                        "scores", "winner", "chips", "yours"}, verdict
    assert all(c["ok"] == "true" for c in verdict["checks"].values()), verdict
    assert verdict["server"] == {"verified": "true", "agrees": "true"}
    # each deal's commitment is the one the page kept, and Ana's cards are where the deck puts them
    assert verdict["kept"] and set(verdict["kept"]) == {"true"}, verdict
    assert verdict["yours"] and set(verdict["yours"]) == {"true"}, verdict
    # the deck the page shows is the one Python deals from the revealed seed and both seeds
    exported = await played.export()
    events = [json.loads(e["raw"]) for e in exported["events"]]
    settled = next(e for e in events
                   if e["type"] == "hand_settled" and e["number"] == played.hand)
    dealt = next(e for e in events if e["type"] == "cards_dealt" and e["deal"] == 1)
    seed = next(s["seed"] for s in settled["seeds"] if s["deal"] == 1)
    seeds = {int(k): v for k, v in dealt["client_seeds"].items()}
    assert len(seeds) == 2
    python = shuffled_deck_v2(bytes.fromhex(seed), played.table, played.hand, 1, mix_of(seeds))
    assert verdict["decks"]["1"] == python
    await check_layout(page, bar=False)
    assert await page.evaluate(TEXT_SIZES_JS, ".audit-screen") == []
    await snap(page, shots, "audit-verified", full=True)
    # the download saves the export exactly as the server sent it, under its name
    async with page.expect_download() as info:
        await page.click("#download")
    download = await info.value
    assert download.suggested_filename == f"svara-{played.table}-hand-{played.hand}.json"
    saved = json.loads(await asyncio.to_thread(Path(await download.path()).read_text))
    assert saved == exported | {"exported_at": saved["exported_at"]}


async def test_a_deck_the_server_reports_is_not_what_the_page_shows(
    played: Played, redis_server: Server
) -> None:
    """The page computes the deck itself: a server's audit that names another deck (and
    claims a failure) changes nothing the page computed, and the two are shown disagreeing."""
    page = played.ana.page

    async def lying_audit(route: Any) -> None:
        response = await route.fetch()
        body = await response.json()
        for deal in body["deals"]:
            deal["deck"] = list(reversed(deal["deck"]))
        body["verified"] = False
        await route.fulfill(response=response, json=body)

    await page.route(re.compile(r".*/hands/\d+/audit$"), lying_audit)
    try:
        await page.goto(played.audit_url(redis_server.url))
        verdict = await page_verdict(page)
    finally:
        await page.unroute(re.compile(r".*/hands/\d+/audit$"))
    assert verdict["verified"]
    assert verdict["server"] == {"verified": "false", "agrees": "false"}
    assert await page.is_visible("#disagree")
    exported = await played.export()
    server_audit = await played.api.ok("GET",
                                       f"/api/tables/{played.table}/hands/{played.hand}/audit")
    assert verdict["decks"]["1"] == server_audit["deals"][0]["deck"]  # not the reversed one
    assert exported["hand"] == played.hand


def _versions(exported: dict[str, Any]) -> dict[str, int]:
    """The first version of each event type in the hand (from its hand_started on)."""
    out: dict[str, int] = {}
    started = False
    for e in exported["events"]:
        started = started or e["type"] == "hand_started"
        if started:
            out.setdefault(e["type"], e["version"])
    return out


def _bump(data: dict[str, Any]) -> None:
    data["amount"] += 1


def _swap_cards(data: dict[str, Any]) -> None:
    cards, seats = data["cards"], sorted(data["cards"])
    cards[seats[0]], cards[seats[1]] = cards[seats[1]], cards[seats[0]]


def _wrong_seed(data: dict[str, Any]) -> None:
    data["seeds"][0]["seed"] = "ab" * 32


def _cases(v: dict[str, int], pinned: list[int]) -> dict[str, tuple[Change, dict[str, int]]]:
    """Each tampering, and the checks (with versions) the page must name at least. A rewrite
    that recomputes every hash from an event on contradicts the first hash the page kept
    from there on (`pinned`: the versions whose hashes it kept)."""
    bet = v.get("called", v.get("raised"))
    assert bet is not None, v
    settled = v["hand_settled"]

    def pin(version: int) -> int:
        return min(p for p in pinned if p >= version)

    return {
        "changed amount": (edit(bet, _bump, rehash=False), {"chain": bet}),
        "changed amount, rehashed": (edit(bet, _bump, rehash=True),
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


async def test_tampered_bytes_in_redis_are_named_by_the_page(
    played: Played, redis_server: Server, store: RedisEventStore, shots: Path
) -> None:
    page = played.ana.page
    original = await store.read(played.stream)
    versions = _versions(await played.export())
    try:
        for name, (change, expected) in _cases(versions, await pinned_versions(played)).items():
            await tamper(store, played.stream, lambda _events: list(original))
            await tamper(store, played.stream, change)
            await page.goto(played.audit_url(redis_server.url))
            verdict = await page_verdict(page)
            shown = failed(verdict)
            assert not verdict["verified"], (name, verdict)
            for check, version in expected.items():
                assert shown.get(check) == version, (name, check, shown)
                assert re.search(rf"\bEvent {version}\b", verdict["checks"][check]["text"]), (
                    name, verdict)
            # the same checks and versions as the offline verifier given the same pins
            mine = {k: v for k, v in shown.items() if k != "yours"}
            assert mine == await python_verdict(played), (name, shown)
            # the verdict names the first failed check and its version
            first = next(iter(shown))
            assert (verdict["failedCheck"], int(verdict["failedVersion"])) == (first, shown[first])
            server = verdict["server"]
            assert server["agrees"] == str(server["verified"] == "false").lower(), (name, server)
            if name == "changed amount, rehashed":
                await check_layout(page, bar=False)
                assert await page.evaluate(TEXT_SIZES_JS, ".audit-screen") == []
                await snap(page, shots, "audit-failed", full=True)
            if name == "wrong seed, rehashed":
                # deal 1's deck rebuilt from the wrong seed does not give Ana the cards she saw
                assert shown.get("yours") == versions["cards_dealt"], verdict
                assert verdict["yours"][0] == "false", verdict
            if name == "moved time, rehashed":
                # A valid chain and nothing else changed: only what the page kept can tell. The
                # server's own audit passes the rewrite, and the page says they disagree.
                assert shown == expected, shown
                assert server == {"verified": "true", "agrees": "false"}, server
                assert await page.is_visible("#disagree")
                await snap(page, shots, "audit-disagree", dark=False, full=True)
    finally:
        await tamper(store, played.stream, lambda _events: list(original))
    await page.goto(played.audit_url(redis_server.url))
    assert (await page_verdict(page))["verified"]


async def test_what_the_page_kept_decides_the_pins_and_your_cards(
    played: Played, redis_server: Server, browser: Contexts
) -> None:
    """Someone who did not play that hand has nothing kept to hold the file to (the page says
    so, and verifies the rest); Ana's own cards are checked against the rebuilt deck: had the
    game shown her other cards than the record's deck gives her seat, only that check fails
    -- the server's audit cannot know what it showed her, so the two disagree."""
    cleo = await Player.open(browser, redis_server.url, "Cleo Audit")
    await cleo.page.goto(played.audit_url(redis_server.url))
    verdict = await page_verdict(cleo.page)
    assert verdict["verified"] and "yours" not in verdict["checks"], verdict
    assert verdict["checks"]["pins"]["ok"] == "none"
    assert catalog("en")["audit.nothing_kept"] in verdict["checks"]["pins"]["text"]

    page = played.ana.page
    key = f"svara:pins:{played.table}"
    kept = await page.evaluate(f"JSON.parse(localStorage['{key}'])")
    shown = kept["cards"][f"{played.hand}:1"]
    other = next(c for c in ("Ah", "Kh", "Qh", "Jh") if c not in shown["cards"])
    try:
        await page.evaluate(
            f"""(card) => {{ const r = JSON.parse(localStorage['{key}']);
              r.cards['{played.hand}:1'].cards[0] = card;
              localStorage['{key}'] = JSON.stringify(r); }}""", other)
        await page.goto(played.audit_url(redis_server.url))
        verdict = await page_verdict(page)
        versions = _versions(await played.export())
        assert failed(verdict) == {"yours": versions["cards_dealt"]}, verdict
        assert verdict["yours"][0] == "false"
        assert verdict["server"] == {"verified": "true", "agrees": "false"}
    finally:
        await page.evaluate(f"(r) => {{ localStorage['{key}'] = JSON.stringify(r); }}", kept)


async def test_a_browser_without_webcrypto_says_it_cannot_check(
    played: Played, redis_server: Server, browser: Contexts
) -> None:
    """(An http page that is not localhost has no crypto.subtle.) The page says it cannot
    compute the checks, shows the server's verdict, and claims no disagreement."""
    no_subtle = "Object.defineProperty(Crypto.prototype, 'subtle', {get: () => undefined});"
    dana = await Player.open(browser, redis_server.url, "Dana Audit", init_script=no_subtle)
    await dana.page.goto(played.audit_url(redis_server.url))
    verdict = await page_verdict(dana.page)
    assert not verdict["verified"] and verdict["checks"] == {}
    assert await dana.page.inner_text("#audit-problem") == catalog("en")["audit.no_crypto"].replace(
        "{api}", "WebCrypto")
    assert verdict["server"] == {"verified": "true", "agrees": "null"}
    assert not await dana.page.is_visible("#disagree")


async def test_the_audit_in_russian_and_arabic(
    played: Played, redis_server: Server, store: RedisEventStore, shots: Path
) -> None:
    page = played.ana.page
    original = await store.read(played.stream)
    versions = _versions(await played.export())
    bet = versions.get("called", versions.get("raised"))
    assert bet is not None
    try:
        for lang in ("ru", "ar"):
            await page.evaluate("(lang) => window.svara.chooseLanguage(lang)", lang)
            await page.wait_for_function(
                "(lang) => document.documentElement.lang === lang", arg=lang)
            await page.goto(played.audit_url(redis_server.url))
            verdict = await page_verdict(page)
            assert verdict["verified"]
            words = catalog(lang)
            assert await page.inner_text("#audit .verdict-head") == words["audit.verified"]
            assert await page.inner_text("#audit li[data-check=chain] .check-name") == words[
                "audit.check.chain"]
            check_language(lang, await page.evaluate(VISIBLE_TEXT_JS), "audit")
            assert await page.evaluate("document.documentElement.dir") == (
                "rtl" if lang == "ar" else "ltr")
            # the deck and the hex read left to right in every language
            assert await page.evaluate(
                "getComputedStyle(document.querySelector('.deck')).direction") == "ltr"
            await check_layout(page, bar=False)
            await snap(page, shots, f"audit-verified-{lang}", full=True)

            await tamper(store, played.stream, edit(bet, _bump, rehash=True))
            await page.goto(played.audit_url(redis_server.url))
            verdict = await page_verdict(page)
            assert failed(verdict) == {
                "chips": bet, "pins": min(v for v in await pinned_versions(played) if v >= bet)}
            assert await page.inner_text("#audit .verdict-head") == words["audit.failed"]
            event = words["audit.at_event"].replace("{version}", str(bet))
            assert event in verdict["checks"]["chips"]["text"]
            await check_layout(page, bar=False)
            assert await page.evaluate(TEXT_SIZES_JS, ".audit-screen") == []
            await snap(page, shots, f"audit-failed-{lang}", full=True)
            await page.set_viewport_size({"width": 360, "height": 740})
            await check_layout(page, bar=False)
            await page.set_viewport_size({"width": 390, "height": 844})
            await tamper(store, played.stream, lambda _events: list(original))
    finally:
        await tamper(store, played.stream, lambda _events: list(original))
        await page.evaluate("window.svara.chooseLanguage('en')")
