"""Every kind of hand in the replayer: the corpus of docs/verifier-corpus (a v1 deck, a v2
deck, a svara over several deals, a split pot, a capped showdown, blinds, a timeout, a player
leaving mid-hand, and tampered logs), each table's stored log written into Redis as the store
keeps it, then read by the real `svara serve` and replayed in Chromium inside Telegram's real
script. Each replays event for event with no mark where the log is honest, its open cards are
the decks this browser rebuilt (the server audit's deals), and a tampered log is marked at
the step the corpus names for it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest
from playwright.async_api import Browser

from events.store.redis_store import RedisEventStore
from tests.support.browser import Contexts
from tests.support.http_player import HttpPlayer
from tests.support.replayer_hand import svara_hand
from tests.support.serve import DEV_TOKEN, Server
from tests.support.telegram import LIGHT, fragment, sign, telegram_page
from tests.webapp.replays import (
    close_table,
    on_screen,
    open_replay,
    own_namespace,
    screen_state,
    serving,
    shown,
    store_corpus_table,
)
from tests.webapp.tables import drive, new_user_id, play_on

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.redis]
GOOD = ["v1-deck", "v2-deck", "svara", "split-pot", "capped-showdown", "blinds", "timeout",
        "player-left"]
TAMPERED = ["changed-bet-hash-kept", "changed-bet", "swapped-cards", "wrong-seed", "removed-event"]


@pytest.fixture(scope="module")
def namespace() -> Iterator[str]:
    with own_namespace("webkinds") as name:
        yield name


@pytest.fixture(scope="module")
def redis_server(namespace: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(namespace, tmp_path_factory.mktemp("serve-kinds") / "serve.log") as srv:
        yield srv


async def replayed(chromium: Browser, server: Server, case: dict[str, Any],
                   user_id: int) -> tuple[dict[str, Any], dict[str, Any], Any, Contexts]:
    """The replayer of the case's hand on the page of `user_id`, and the server's replay."""
    table, hand = case["export"]["table_id"], case["export"]["hand"]
    async with aiohttp.ClientSession() as http:
        api = await HttpPlayer.login(http, server.url, user_id, "Viewer")
        replay = dict(await api.ok("GET", f"/api/tables/{table}/hands/{hand}/replay"))
        audit = dict(await api.ok("GET", f"/api/tables/{table}/hands/{hand}/audit"))
    contexts = Contexts(chromium)
    page = await telegram_page(contexts)
    init_data = await sign(DEV_TOKEN, {"id": user_id, "first_name": "Viewer"})
    await open_replay(page, server.url, table, hand, fragment(init_data, theme=LIGHT))
    return replay, audit, page, contexts


@pytest.mark.parametrize("name", GOOD)
async def test_every_kind_of_hand_replays(
    redis_server: Server, chromium: Browser, store: RedisEventStore, namespace: str, name: str
) -> None:
    case = await store_corpus_table(store, namespace, name)
    seated = [s["user_id"] for s in case["export"]["seats"]] or [7_000_000]
    replay, audit, page, contexts = await replayed(chromium, redis_server, case, seated[0])
    try:
        state = await screen_state(page)
        steps = replay["steps"]
        assert [(s["version"], s["hash"]) for s in state["steps"]] == [
            (s["version"], s["hash"]) for s in steps]
        assert not [s for s in state["steps"] if s["bad"]], name
        assert state["checks"] == "true"
        deals = {d["deal"]: d["cards"] for d in audit["deals"]}
        assert state["dealJumps"] == (sorted(deals) if len(deals) > 1 else [])
        await page.click("[data-mode=open]")
        for i, step in enumerate(steps):
            if step["event"]["type"] == "cards_dealt":
                await page.fill("#replay-slider", str(i))
                faces = {str(s["seat"]): s["faces"] for s in (await screen_state(page))["seats"]
                         if s["faces"]}
                assert faces == deals[step["event"]["data"]["deal"]], (name, i)
        await page.keyboard.press("End")
        assert (await screen_state(page))["result"]  # the settled hand's result on the felt
        assert await page.is_visible(".replay-result .result")
        assert not page.errors  # type: ignore[attr-defined]
    finally:
        for context in contexts.opened:
            await context.close()


async def test_a_hand_of_a_closed_table_replays(
    redis_server: Server, chromium: Browser, store: RedisEventStore, namespace: str
) -> None:
    case = await store_corpus_table(store, namespace, "v2-deck")
    table = case["export"]["table_id"]
    async with aiohttp.ClientSession() as http:
        api = await HttpPlayer.login(http, redis_server.url, 7_000_000, "Viewer")
        view = await api.view(table)
        await close_table(store, namespace, table, view["seats"])
        closed = await api.view(table)
        assert closed["seats"] == [] and closed.get("closed", True), closed
    replay, _audit, page, contexts = await replayed(chromium, redis_server, case, 7_000_000)
    try:
        state = await screen_state(page)
        assert len(state["steps"]) == len(replay["steps"]) > 0
        assert not [s for s in state["steps"] if s["bad"]]
        assert state["checks"] == "true"
        assert not page.errors  # type: ignore[attr-defined]
    finally:
        for context in contexts.opened:
            await context.close()


@pytest.mark.parametrize("name", TAMPERED)
async def test_a_tampered_log_is_marked_where_it_broke(
    redis_server: Server, chromium: Browser, store: RedisEventStore, namespace: str, name: str
) -> None:
    case = await store_corpus_table(store, namespace, name)
    seated = [s["user_id"] for s in case["export"]["seats"]] or [7_000_000]
    _replay, _audit, page, contexts = await replayed(chromium, redis_server, case, seated[0])
    try:
        state = await screen_state(page)
        assert state["checks"] == "false"
        broke: dict[str, int] = {}  # each check's first step marked
        for s in state["steps"]:
            for check in s["broke"].split():
                broke.setdefault(check, s["version"])
        # at the version the corpus names, or where it would be (an event removed there)
        where = min(s["version"] for s in state["steps"] if s["version"] >= case["version"])
        assert broke.get(case["check"]) == where, (name, broke)
        assert not page.errors  # type: ignore[attr-defined]
    finally:
        for context in contexts.opened:
            await context.close()


async def test_the_replayer_bench_loads_its_hand() -> None:
    """The replayer benchmark's hand (bench/bench_replayer.py; not a test: it measures): the
    corpus's svara, replayed and exported by the service, several deals and about 40 events."""
    replay, exported, deals = await svara_hand()
    assert deals >= 3 and len(replay["steps"]) >= 36
    assert json.loads(exported)["hand"] == replay["hand"]


async def test_a_tournament_tables_hand_replays(redis_server: Server, chromium: Browser) -> None:
    """The second hand of a Sit & Go's table (tournament chips, dealt at the ante level the
    first one raised) played over the API: the replayer has its every event, the felt shows
    each step's view, and this browser's checks of it pass as the server's audit does."""
    async with aiohttp.ClientSession() as http:
        ana, boris = [await HttpPlayer.login(http, redis_server.url, new_user_id(), name)
                      for name in ("Ana", "Boris")]
        created = await ana.ok("POST", "/api/tournaments", {
            "seats": 2, "buy_in": 10, "stack": 200, "antes": [5, 10], "hands_per_level": 1,
            "turn_seconds": 60})
        tid = created["tournament_id"]
        for player in (ana, boris):
            tournament = await player.ok("POST", f"/api/tournaments/{tid}/register")
        table = tournament["table_id"]
        assert tournament["status"] == "running" and table, tournament
        await drive(table, [ana, boris], play_on(), until=lambda v: bool(v["hand"]) and (
            v["hand"]["number"], v["hand"]["phase"] == "settled") >= (2, True))
        replay = dict(await ana.ok("GET", f"/api/tables/{table}/hands/2/replay"))
        audit = dict(await ana.ok("GET", f"/api/tables/{table}/hands/2/audit"))
    assert audit["verified"], audit["checks"]
    steps = replay["steps"]
    assert steps[0]["view"]["tournament"]["tournament_id"] == tid
    assert {s["view"]["settings"]["ante"] for s in steps[1:]} == {10}
    contexts = Contexts(chromium)
    page = await telegram_page(contexts)
    try:
        init_data = await sign(DEV_TOKEN, {"id": ana.user_id, "first_name": "Ana"})
        await open_replay(page, redis_server.url, table, 2, fragment(init_data, theme=LIGHT))
        state = await screen_state(page)
        assert [(s["version"], s["hash"], s["type"]) for s in state["steps"]] == [
            (s["version"], s["hash"], s["event"]["type"]) for s in steps]
        assert not [s for s in state["steps"] if s["bad"]]
        assert state["checks"] == "true"
        for i, step in enumerate(steps):
            await page.fill("#replay-slider", str(i))
            state = await screen_state(page)
            assert state["index"] == i and on_screen(state) == shown(step["view"]), i
        assert state["result"]  # the settled hand's result on the felt
        assert not page.errors  # type: ignore[attr-defined]
    finally:
        for context in contexts.opened:
            await context.close()
