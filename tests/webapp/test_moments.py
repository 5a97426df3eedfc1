"""The moments the game exists for, live against the real server (other players driven over
the HTTP API so a rare moment comes in seconds): a svara with its tied hands and fee, a player
who lost every chip buying in again, a timeout and sitting out explained, the betting ended
because nobody could put in more, a reload that keeps the last result. The phone layout is
checked on each, and each is photographed, light and dark."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest

from tests.support.browser import Contexts, check_layout, snap
from tests.support.http_player import HttpPlayer, legal, seat_of
from tests.support.serve import Server
from tests.webapp.player import Player
from tests.webapp.tables import drive, new_user_id, phase, play_on, sit_down, stack

# The browser (a session fixture) lives in the session's event loop.
pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_a_svara_shows_the_tied_hands_the_fee_and_who_is_in_free(
    server: Server, browser: Contexts, shots: Path
) -> None:
    ana = await Player.open(browser, server.url, "Ana Svara")
    async with aiohttp.ClientSession() as http:
        boris = await HttpPlayer.login(http, server.url, new_user_id(), "Boris")
        cleo = await HttpPlayer.login(http, server.url, new_user_id(), "Cleo")
        me = await HttpPlayer.login(http, server.url, ana.user_id, "Ana Svara")
        table = await boris.create(ante=10, max_seats=3, next_hand_seconds=0, turn_seconds=60,
                                   svara_join_seconds=120)
        await boris.seat(table, 1000)
        await cleo.seat(table, 1000)
        await sit_down(ana, server.url, table, most=True)
        # Ana folds every hand; Boris and Cleo go to the showdown until they tie.
        view = await drive(table, [boris, cleo, me], play_on(folder=ana.user_id),
                           until=lambda v: phase(v) == "svara_join")
        page = ana.page
        panel = await page.wait_for_selector("#svara")
        sv = view["hand"]["svara"]
        assert ana.user_id in {s["user_id"] for s in view["seats"] if s["seat"] in sv["eligible"]}
        text = await panel.inner_text()
        assert "Svara!" in text, text
        assert ("In for free: Boris and Cleo." in text) != ("In for free: Cleo and Boris." in text)
        assert f"join for {sv['fee']:,} chips" in text, text
        tied = page.locator("#svara .tied")
        assert await tied.count() == 2
        scores = {s["seat"]: s["score"] for s in view["seats"]}
        for i in range(2):  # each tied hand: three faces and its score, side by side
            one = tied.nth(i)
            assert await one.locator(".card:not(.back)").count() == 3
            seat = int(await one.get_attribute("data-seat") or -1)
            assert seat in sv["tied"] and await one.locator(".score").inner_text() == str(
                scores[seat])
        assert int(await page.get_attribute("#svara .clock", "data-left") or 0) > 100
        assert sorted(await page.locator(".action-bar .buttons [data-action]").evaluate_all(
            "els => els.map(e => e.dataset.action)")) == ["join_svara", "skip_svara"]
        await ana.look()
        await check_layout(page)
        await snap(page, shots, "svara")

        await page.click("[data-action=join_svara]")  # Ana buys into the svara
        await page.wait_for_function("!document.querySelector('#svara')")
        number = view["hand"]["number"]
        await drive(table, [boris, cleo, me], play_on(folder=ana.user_id),
                    until=lambda v: v["hand"]["number"] > number)
        result = await page.wait_for_selector(f"#result[data-hand='{number}']")
        text = await result.inner_text()
        assert "tied; Ana Svara joined for" in text and "Svara: " in text, text
        assert await page.locator("#result .showdown").count() >= 2  # the tie and the svara
        await ana.look()
        await check_layout(page)
        await snap(page, shots, "svara-result")


@pytest.mark.parametrize(("width", "height"), [(390, 844), (360, 740)])
async def test_a_busted_player_buys_in_again_bounded_by_the_wallet(
    server: Server, browser: Contexts, shots: Path, width: int, height: int
) -> None:
    ana = await Player.open(browser, server.url, f"Ana {width}", width=width, height=height)
    page = ana.page
    async with aiohttp.ClientSession() as http:
        boris = await HttpPlayer.login(http, server.url, new_user_id(), "Boris")
        me = await HttpPlayer.login(http, server.url, ana.user_id, f"Ana {width}")
        table = await boris.create(ante=10, min_buy_in=10, max_buy_in=5000, max_seats=2,
                                   next_hand_seconds=0)
        await boris.seat(table, 1000)
        await sit_down(ana, server.url, table)  # 10 chips: all in with the ante
        first = await page.wait_for_selector("#result")
        # Nobody could put in more than the ante: the hand went straight to the showdown.
        assert "nobody could put in more" in await first.inner_text()

        def all_in(player: HttpPlayer, view: dict[str, object]) -> tuple[str, int | None] | None:
            moves = legal(view)  # type: ignore[arg-type]
            if player is me and "raise" in moves:
                return "raise", int(moves["raise"]["max"])
            for kind in ("call", "pass", "raise"):
                if kind in moves:
                    return kind, (int(moves[kind]["min"]) if kind == "raise" else None)
            return None

        await drive(table, [boris, me], all_in, until=lambda v: stack(v, ana.user_id) < 10
                    and phase(v) != "blind" and phase(v) != "betting")
        rebuy = await page.wait_for_selector("#rebuy")
        wallet = (await me.me())["balance"]
        assert wallet == 990
        # The bar can first draw the panel from the wallet as it was before the seat (a hand
        # lost at once ends before the app has asked for it again); then the wallet bounds it.
        await page.wait_for_function(
            "document.querySelector('#rebuy input[data-amount=buy_in]')?.max === '990'")
        box = page.locator("#rebuy input[data-amount=buy_in]")
        assert (await box.get_attribute("min"), await box.get_attribute("max")) == ("10", "990")
        assert "Buy in again" in await rebuy.inner_text()
        notice = await page.wait_for_selector(".action-bar #notice[data-why=busted]")
        assert await notice.inner_text() == (
            "You have no chips left at this table (the ante is 10 chips).")
        await ana.look()
        await check_layout(page)
        await snap(page, shots, f"busted-{width}")

        await page.click("#rebuy .quick[data-quick=max]")
        async with page.expect_response(lambda r: r.url.endswith("/rebuy")) as answer:
            await page.click("#rebuy [data-action=seat]")  # "Buy in again"
        assert (await answer.value).ok
        await page.wait_for_function("!document.querySelector('#rebuy')")
        await page.wait_for_selector(".felt .seat.me")
        view = await me.view(table)
        assert stack(view, ana.user_id) + (seat_of(view, ana.user_id) or {}).get(
            "put_in", 0) in (990, 980)  # 980: the next hand took its ante
        assert (await me.me())["balance"] == 0
        await ana.look()
        # The wallet is empty: the lobby says how free chips come (leave your tables first).
        await page.click("#back")
        topup = await page.wait_for_selector("#topup")
        assert "Leave your tables to get 1,000 chips free" in await topup.inner_text()


async def test_a_timeout_is_explained_and_sitting_out_offers_sit_in(
    server: Server, browser: Contexts, shots: Path
) -> None:
    ana = await Player.open(browser, server.url, "Ana Slow")
    page = ana.page
    async with aiohttp.ClientSession() as http:
        boris = await HttpPlayer.login(http, server.url, new_user_id(), "Boris")
        me = await HttpPlayer.login(http, server.url, ana.user_id, "Ana Slow")
        table = await boris.create(ante=10, max_seats=2, turn_seconds=5, next_hand_seconds=1)
        await boris.seat(table, 500)
        await sit_down(ana, server.url, table)
        # Hand 1: Boris deals, Ana acts first. She passes herself, then lets the clock run out.
        await me.act(table, "pass")
        notice = await page.wait_for_selector("#notice[data-why=timed_out]", timeout=9_000)
        assert "Your time ran out, so the game folded for you." in await notice.inner_text()
        assert await page.inner_text(".felt .seat.me .tag.warn") == "Time ran out"
        result = await page.wait_for_selector("#result[data-hand='1']")
        assert "Ana Slow: time ran out, folded." in await result.inner_text()
        await ana.look()
        await snap(page, shots, "timeout")
        # A reload lands in the same place, with the last result still shown.
        await page.wait_for_function("window.svara.current?.view?.hand?.number === 2")
        await page.reload()
        await page.wait_for_selector("#result[data-hand='1']")
        # Hand 2: Boris won and deals, Ana acts first again: her second missed turn in a row.
        sat_out = await page.wait_for_selector("#notice[data-why=sat_out]", timeout=9_000)
        why = await sat_out.inner_text()
        assert "You are sitting out: your time ran out twice in a row." in why
        assert await page.locator(".action-bar [data-action=sit_in]").is_visible()
        await ana.look()
        await check_layout(page)
        await snap(page, shots, "sat-out")
        await page.click(".action-bar [data-action=sit_in]")
        await page.wait_for_function("!document.querySelector('#notice[data-why=sat_out]')")
        assert not (seat_of(await me.view(table), ana.user_id) or {}).get("sat_out")
