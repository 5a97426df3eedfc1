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

from events.store.redis_store import RedisEventStore
from service.game.deck import mix_of, shuffled_deck_v2
from tests.support.browser import Contexts, check_layout, snap
from tests.support.redis import REDIS_TEST_URL
from tests.support.serve import APP_ENV, Server
from tests.support.tamper import edit, tamper
from tests.webapp.audits import (
    Played,
    bump,
    failed,
    first_versions,
    page_verdict,
    pinned_versions,
    play,
    python_verdict,
    tampering_cases,
)
from tests.webapp.catalogs import catalog
from tests.webapp.languages import VISIBLE_TEXT_JS, check_language
from tests.webapp.player import Player

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.redis]

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


async def test_tampered_bytes_in_redis_are_named_by_the_page(
    played: Played, redis_server: Server, store: RedisEventStore, shots: Path
) -> None:
    page = played.ana.page
    original = await store.read(played.stream)
    versions = first_versions(await played.export())
    try:
        cases = tampering_cases(versions, await pinned_versions(played))
        for name, (change, expected) in cases.items():
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
        versions = first_versions(await played.export())
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
    versions = first_versions(await played.export())
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

            await tamper(store, played.stream, edit(bet, bump, rehash=True))
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
