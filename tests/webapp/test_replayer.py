"""The hand replayer in the browser (js/replay.js), inside Telegram's real script, against the
real `svara serve` on the real Redis.

Three players play over the API until a hand has a svara (looks, blinds, a showdown and its
tie on the way). The replayer then has one step per event of the hand, in order, with each
event's version and chain hash; at every step the felt shows exactly what the server's view at
that version says (stacks, pot, turn, the cards the viewer could see); the open-cards mode
shows the cards this browser rebuilt from the revealed seeds, the same as the audit's deals;
the svara's deals can be jumped to; the step list reads in Russian and, right to left, in
Arabic; and an event whose stored bytes are changed in Redis is marked at its own step.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
import redis
from playwright.async_api import Browser

from events.store.redis_store import RedisEventStore
from tests.support.browser import Contexts, snap
from tests.support.http_player import HttpPlayer
from tests.support.redis import REDIS_TEST_URL
from tests.support.serve import APP_ENV, DEV_TOKEN, Server
from tests.support.tamper import edit, tamper
from tests.support.telegram import (
    DARK,
    LIGHT,
    fragment,
    receive,
    sent,
    sign,
    snap_as_is,
    telegram_page,
    wait_sent,
)
from tests.webapp.replays import (
    audit_of,
    on_screen,
    open_replay,
    play_to_svara,
    replay_of,
    screen_state,
    shown,
)
from tests.webapp.tables import new_user_id

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.redis]


@pytest.fixture(scope="module")
def namespace() -> Iterator[str]:
    name = f"webreplay-{uuid.uuid4().hex[:10]}"
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
    srv = Server({**APP_ENV, "REDIS_URL": REDIS_TEST_URL, "SVARA_NAMESPACE": namespace,
                  "DEV_TOKEN": DEV_TOKEN},
                 log=tmp_path_factory.mktemp("serve-replay") / "serve.log").spawn()
    try:
        srv.wait_ready()
        yield srv
    finally:
        srv.stop()


class Hands:
    """The table, its svara hand, and the players (Ana is the one whose page replays)."""

    def __init__(self, table: str, svara: int, ana: HttpPlayer, stream: str) -> None:
        self.table, self.svara, self.ana, self.stream = table, svara, ana, stream


@pytest_asyncio.fixture(loop_scope="session", scope="module")
async def hands(redis_server: Server, namespace: str) -> AsyncIterator[Hands]:
    async with aiohttp.ClientSession() as http:
        ana = await HttpPlayer.login(http, redis_server.url, new_user_id(), "Ana")
        boris = await HttpPlayer.login(http, redis_server.url, new_user_id(), "Boris")
        cleo = await HttpPlayer.login(http, redis_server.url, new_user_id(), "Cleo")
        table = await ana.create(ante=10, max_seats=3, next_hand_seconds=0, turn_seconds=60,
                                 svara_join_seconds=60)
        await ana.seat(table, 1000)
        # Ana's own seed cuts her decks (v2 with a player's seed)
        await ana.ok("POST", f"/api/tables/{table}/seed", {"client_seed": "a1" * 16})
        for p in (boris, cleo):
            await p.seat(table, 1000)
        svara = await play_to_svara(table, [ana, boris, cleo], looker=ana.user_id)
        yield Hands(table, svara, ana, f"{namespace}:table:{table}")


async def ana_page(chromium: Browser, hands: Hands, *, language: str = "en",
                   dark: bool = False) -> Any:
    """Ana's page inside Telegram (its real script), in `language`, with Telegram's light or
    dark theme; `page.fragment` is the launch fragment to append to a URL."""
    contexts = Contexts(chromium)
    await hands.ana.ok("POST", "/api/me/settings", {"language": language})
    init_data = await sign(DEV_TOKEN, {"id": hands.ana.user_id, "first_name": "Ana",
                                       "language_code": language})
    page = await telegram_page(contexts, theme=DARK if dark else None)
    page.contexts = contexts  # type: ignore[attr-defined]
    page.fragment = fragment(init_data, theme=DARK if dark else LIGHT)  # type: ignore[attr-defined]
    return page


async def close(page: Any) -> None:
    for context in page.contexts.opened:
        await context.close()


async def test_each_step_is_an_event_and_the_felt_shows_its_view(
    redis_server: Server, chromium: Browser, hands: Hands, shots: Path
) -> None:
    page = await ana_page(chromium, hands)
    try:
        await open_replay(page, redis_server.url, hands.table, hands.svara, page.fragment)
        replay = await replay_of(hands.ana, hands.table, hands.svara)
        audit = await audit_of(hands.ana, hands.table, hands.svara)
        steps = replay["steps"]
        state = await screen_state(page)
        # one step per event of the hand, in order, with its version and chain hash
        assert [(s["version"], s["hash"], s["type"]) for s in state["steps"]] == [
            (s["version"], s["hash"], s["event"]["type"]) for s in steps]
        assert [(e["version"], e["hash"]) for e in audit["events"]] == [
            (s["version"], s["hash"]) for s in steps]
        assert {"looked", "blind_placed", "showdown", "svara_started", "svara_deal_started",
                "hand_settled"} <= {s["event"]["type"] for s in steps}
        # this browser's own replay agrees at every step, and every check of the file holds
        assert not [s for s in state["steps"] if s["bad"]]
        assert state["checks"] == "true"
        # the felt at every step is that version's view: right arrow by right arrow
        for i, step in enumerate(steps):
            state = await screen_state(page)
            assert state["index"] == i and state["version"] == step["version"]
            assert state["current"] == [i]
            assert on_screen(state) == shown(step["view"]), (i, step["event"]["type"])
            if i == len(steps) // 2:
                await snap(page, shots, "replayer-mid-en")
            await page.keyboard.press("ArrowRight")
        # back a step with the button, to a step with the slider, and play at 2x to the end
        await page.click("#replay-bar [data-action=prev]")
        assert (await screen_state(page))["index"] == len(steps) - 2
        await page.fill("#replay-slider", "3")
        assert (await screen_state(page))["index"] == 3
        await page.click("#replay-bar [data-action=speed]")
        await page.keyboard.press("Space")
        await page.wait_for_function("document.querySelector('#replay').dataset.index"
                                     f" === '{len(steps) - 1}'", timeout=len(steps) * 1000)
        assert await page.get_attribute("[data-action=play]", "data-playing") == "false"
        assert await page.get_attribute("[data-action=speed]", "data-speed") == "2"
        assert not page.errors  # type: ignore[attr-defined]
    finally:
        await close(page)


async def test_open_cards_are_the_decks_this_browser_rebuilt(
    redis_server: Server, chromium: Browser, hands: Hands, shots: Path
) -> None:
    page = await ana_page(chromium, hands, language="ru")
    try:
        await open_replay(page, redis_server.url, hands.table, hands.svara, page.fragment)
        steps = (await replay_of(hands.ana, hands.table, hands.svara))["steps"]
        deals = {d["deal"]: d["cards"] for d in
                 (await audit_of(hands.ana, hands.table, hands.svara))["deals"]}
        await page.click("[data-mode=open]")
        assert (await screen_state(page))["mode"] == "open"
        for i, step in enumerate(steps):
            if step["event"]["type"] != "cards_dealt":
                continue
            await page.fill("#replay-slider", str(i))
            state = await screen_state(page)
            deal = step["event"]["data"]["deal"]
            faces = {str(s["seat"]): s["faces"] for s in state["seats"] if s["faces"]}
            assert faces == deals[deal], (deal, faces, deals[deal])
            if deal == 1:
                await snap(page, shots, "replayer-open-ru")
        # as she saw it, the others' cards are face down again at the first deal
        first = next(i for i, s in enumerate(steps) if s["event"]["type"] == "cards_dealt")
        await page.click("[data-mode=seen]")
        await page.fill("#replay-slider", str(first))
        state = await screen_state(page)
        assert on_screen(state) == shown(steps[first]["view"])
    finally:
        await close(page)


async def test_a_svara_has_a_jump_to_each_deal(
    redis_server: Server, chromium: Browser, hands: Hands, shots: Path
) -> None:
    page = await ana_page(chromium, hands, dark=True)
    try:
        await open_replay(page, redis_server.url, hands.table, hands.svara, page.fragment)
        steps = (await replay_of(hands.ana, hands.table, hands.svara))["steps"]
        starts = {1: 0} | {s["event"]["data"]["deal"]: i for i, s in enumerate(steps)
                           if s["event"]["type"] == "svara_deal_started"}
        state = await screen_state(page)
        assert state["dealJumps"] == sorted(starts) and len(starts) >= 2
        for deal, index in sorted(starts.items(), reverse=True):
            await page.click(f"#deal-jumps [data-deal='{deal}']")
            state = await screen_state(page)
            assert state["index"] == index
            assert on_screen(state) == shown(steps[index]["view"])
            assert await page.get_attribute(f"#deal-jumps [data-deal='{deal}']",
                                            "aria-pressed") == "true"
        await page.click(f"#deal-jumps [data-deal='{max(starts)}']")
        await page.keyboard.press("ArrowRight")
        await page.keyboard.press("ArrowRight")
        await snap(page, shots, "replayer-svara-en")
    finally:
        await close(page)


LATIN = re.compile(r"[A-Za-z]{2,}")


@pytest.mark.parametrize("lang", ["ru", "ar"])
async def test_the_step_list_reads_in_russian_and_arabic(
    redis_server: Server, chromium: Browser, hands: Hands, shots: Path, lang: str
) -> None:
    for dark in (False, True):
        page = await ana_page(chromium, hands, language=lang, dark=dark)
        try:
            await open_replay(page, redis_server.url, hands.table, hands.svara, page.fragment)
            state = await screen_state(page)
            assert state["lang"] == lang
            assert state["dir"] == ("rtl" if lang == "ar" else "ltr")
            text = " ".join(s["text"] for s in state["steps"]) + await page.inner_text(
                "#replay-bar") + await page.inner_text(".replay-modes")
            words = set(LATIN.findall(text)) - {"Ana", "Boris", "Cleo"}
            assert not words, words  # no English left, no raw key
            # the arrows point the way the steps go: in Arabic "next" is on the left, "‹"
            arrows = await page.evaluate("""() => Object.fromEntries(['prev', 'next'].map((a) => {
              const b = document.querySelector(`#replay-bar [data-action=${a}]`);
              return [a, [b.textContent, b.getBoundingClientRect().left]]; }))""")
            rtl = lang == "ar"
            assert arrows["next"][0] == ("‹" if rtl else "›")
            assert (arrows["next"][1] < arrows["prev"][1]) == rtl, arrows
            script = "\u0400-\u04FF" if lang == "ru" else "\u0600-\u06FF"
            assert re.search(f"[{script}]{{4}}", text)
            scheme = "dark" if dark else "light"
            count = len(state["steps"])
            await page.fill("#replay-slider", str(count // 2))
            await snap_as_is(page, shots, f"replayer-mid-{lang}-{scheme}")
            svara = next(i for i, s in enumerate(state["steps"])
                         if s["type"] == "svara_started")
            await page.fill("#replay-slider", str(svara))
            await snap_as_is(page, shots, f"replayer-svara-{lang}-{scheme}")
            await page.click("[data-mode=open]")
            await page.fill("#replay-slider", str(svara - 2))
            await snap_as_is(page, shots, f"replayer-open-{lang}-{scheme}")
            assert not page.errors  # type: ignore[attr-defined]
        finally:
            await close(page)


async def test_telegrams_back_button_returns_to_the_history(
    redis_server: Server, chromium: Browser, hands: Hands
) -> None:
    page = await ana_page(chromium, hands)
    try:
        await page.goto(f"{redis_server.url}/?table={hands.table}&screen=history"
                        + page.fragment)
        await page.click(f".result[data-hand='{hands.svara}'] [data-action=replay]")
        await page.wait_for_selector("#replay #steps .step.current")
        assert await page.evaluate("document.body.dataset.screen") == "replay"
        await wait_sent(page, "web_app_setup_back_button", {"is_visible": True})
        await receive(page, "back_button_pressed")
        await page.wait_for_function("document.body.dataset.screen === 'history'")
        # from the audit screen, and back to it
        await page.goto(f"{redis_server.url}/?table={hands.table}&screen=audit&hand="
                        f"{hands.svara}" + page.fragment)
        await page.click("#screen [data-action=replay]")
        await page.wait_for_selector("#replay #steps .step.current")
        await receive(page, "back_button_pressed")
        await page.wait_for_function("document.body.dataset.screen === 'audit'")
        # a replayer opened first (a link) goes back to the place its `from` names
        await page.goto(f"{redis_server.url}/?table={hands.table}&screen=replay&hand="
                        f"{hands.svara}&from=history" + page.fragment)
        await page.wait_for_selector("#replay #steps .step.current")
        await receive(page, "back_button_pressed")
        await page.wait_for_function("document.body.dataset.screen === 'history'")
        assert await sent(page, "web_app_setup_back_button")
    finally:
        await close(page)


def _bump(data: dict[str, Any]) -> None:
    data["amount"] = int(data["amount"]) + 5


async def test_an_event_changed_in_redis_is_marked_at_its_step(
    redis_server: Server, chromium: Browser, hands: Hands, store: RedisEventStore
) -> None:
    steps = (await replay_of(hands.ana, hands.table, hands.svara))["steps"]
    bet = next(s["version"] for s in steps if s["event"]["type"] == "called")
    original = await store.read(hands.stream)
    page = await ana_page(chromium, hands)
    try:
        await tamper(store, hands.stream, edit(bet, _bump, rehash=False))
        await open_replay(page, redis_server.url, hands.table, hands.svara, page.fragment)
        state = await screen_state(page)
        marked = [s for s in state["steps"] if s["bad"]]
        assert marked and marked[0]["version"] == bet, marked
        assert "chain" in marked[0]["broke"].split()
        assert state["checks"] == "false"
        await page.click("#replay-checks [data-check=chain] button")
        state = await screen_state(page)
        assert state["version"] == bet
        assert await page.is_visible("#now-bad")
    finally:
        await tamper(store, hands.stream, lambda _events: list(original))
        await close(page)


async def test_a_hand_in_progress_and_an_unknown_hand_say_so(
    redis_server: Server, chromium: Browser, hands: Hands
) -> None:
    view = await hands.ana.view(hands.table)
    page = await ana_page(chromium, hands)
    try:
        cases = [(view["hand"]["number"] + 5, "unknown_hand")]
        if view["hand"]["phase"] != "settled":  # the drive stopped in the middle of a hand
            cases.append((view["hand"]["number"], "hand_in_progress"))
        for hand, code in cases:
            await page.goto(f"{redis_server.url}/?table={hands.table}&screen=replay&hand={hand}"
                            + page.fragment)
            await page.wait_for_selector("#replay-error")
            assert await page.get_attribute("#replay-error", "data-code") == code
    finally:
        await close(page)


async def test_a_server_picture_that_differs_from_the_events_is_marked(
    redis_server: Server, chromium: Browser, hands: Hands
) -> None:
    """A replay answer whose views lie (a pot, a stack, a turn) while the stored events are
    honest: this browser's own replay of the export marks exactly those steps."""
    steps = (await replay_of(hands.ana, hands.table, hands.svara))["steps"]
    live = [i for i, s in enumerate(steps)
            if s["view"]["hand"] and s["view"]["hand"]["phase"] == "betting"
            and s["view"]["hand"]["turn"] is not None]
    pot_at, stack_at, turn_at = live[0], live[1], live[2]
    page = await ana_page(chromium, hands)

    async def lying(route: Any) -> None:
        response = await route.fetch()
        body = await response.json()
        views = [s["view"] for s in body["steps"]]
        views[pot_at]["hand"]["pot"] += 7
        views[stack_at]["seats"][0]["stack"] -= 5
        hv = views[turn_at]["hand"]
        others = [s["seat"] for s in views[turn_at]["seats"] if s["seat"] != hv["turn"]]
        hv["turn"] = others[0]
        await route.fulfill(response=response, json=body)

    try:
        await page.route(f"**/hands/{hands.svara}/replay", lying)
        await open_replay(page, redis_server.url, hands.table, hands.svara, page.fragment)
        state = await screen_state(page)
        assert [i for i, s in enumerate(state["steps"]) if s["bad"]] == sorted(
            {pot_at, stack_at, turn_at})
        kinds = await page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
          '#steps .step.bad')].map((li) => [li.dataset.index,
          [...li.querySelectorAll('.diff')].map((d) => d.dataset.diff)]))""")
        assert kinds == {str(pot_at): ["pot"], str(stack_at): ["stack"], str(turn_at): ["turn"]}
        assert state["checks"] == "false"  # the file verifies; the server's picture does not
        await page.fill("#replay-slider", str(pot_at))
        assert await page.is_visible("#now-bad")
    finally:
        await close(page)
