"""The result of a hand against the real server: a page opened after the hand began shows the
winner and the amount once it settles, on the felt and in the result card; a winner who saw
the whole hand is told what they gained (the pot less their own stake) and the pot."""

from __future__ import annotations

import re
from pathlib import Path

import aiohttp
import pytest

from tests.support.browser import Contexts, snap
from tests.support.http_player import HttpPlayer
from tests.support.serve import Server
from tests.webapp.player import Player
from tests.webapp.tables import drive, new_user_id, phase, play_on, sit_down, stack

# The browser (a session fixture) lives in the session's event loop.
pytestmark = pytest.mark.asyncio(loop_scope="session")


def chips(text: str) -> list[int]:
    return [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", text)]


async def test_a_page_opened_mid_hand_shows_the_winner_and_amount(
    server: Server, browser: Contexts, shots: Path
) -> None:
    dora = await Player.open(browser, server.url, "Dora Late")
    page = dora.page
    async with aiohttp.ClientSession() as http:
        boris = await HttpPlayer.login(http, server.url, new_user_id(), "Boris")
        cleo = await HttpPlayer.login(http, server.url, new_user_id(), "Cleo")
        # a long pause after the hand: the result must stay until the next one starts
        table = await boris.create(ante=10, max_seats=3, next_hand_seconds=60, turn_seconds=60)
        await boris.seat(table, 500)
        await cleo.seat(table, 500)
        view = await boris.view(table)
        assert view["hand"]["number"] == 1 and phase(view) != "settled"
        await page.goto(f"{server.url}/?table={table}")  # the hand is under way
        await page.wait_for_selector(".felt .seat")
        await page.wait_for_function("document.body.dataset.connection === 'live'")
        settled = await drive(table, [boris, cleo], play_on(folder=cleo.user_id),
                              until=lambda v: phase(v) == "settled")
        result = settled["hand"]["result"]
        won = sum(result["amounts"].values())
        assert result["winner_seats"] == [next(
            s["seat"] for s in settled["seats"] if s["user_id"] == boris.user_id)]
        await page.wait_for_selector("#result[data-hand='1']")
        assert f"Boris wins {won} chips" in await page.inner_text("#result")
        await page.wait_for_selector("#pot.felt-result[data-hand='1']")
        text = await page.inner_text("#pot.felt-result")
        assert "Boris" in text and won in chips(text), text
        await dora.look()
        await snap(page, shots, "result-mid-hand", dark=False)


async def test_a_winner_is_told_the_gain_and_the_pot(
    server: Server, browser: Contexts, shots: Path
) -> None:
    ana = await Player.open(browser, server.url, "Ana Gain")
    page = ana.page
    async with aiohttp.ClientSession() as http:
        boris = await HttpPlayer.login(http, server.url, new_user_id(), "Boris")
        me = await HttpPlayer.login(http, server.url, ana.user_id, "Ana Gain")
        table = await boris.create(ante=10, max_seats=2, next_hand_seconds=60, turn_seconds=60)
        await boris.seat(table, 500)
        await sit_down(ana, server.url, table)  # the least: 100 chips; the hand starts now
        bought = 100
        # Boris folds as soon as he may: Ana wins the pot, her own ante and bets included.
        settled = await drive(table, [boris, me], play_on(folder=boris.user_id),
                              until=lambda v: phase(v) == "settled")
        pot = sum(settled["hand"]["result"]["amounts"].values())
        gain = stack(settled, ana.user_id) - bought
        assert 0 < gain < pot
        await page.wait_for_selector("#result[data-hand='1']")
        assert await page.inner_text("#result .headline") == f"You win {gain} chips!"
        assert await page.inner_text("#result .pot-line") == (
            f"Pot {pot} chips, your stake {pot - gain} chips")
        await page.wait_for_selector("#pot.felt-result.mine[data-hand='1']")
        on_felt = await page.inner_text("#pot.felt-result")
        assert f"You win {gain} chips!" in on_felt, on_felt
        assert f"Pot {pot} chips, your stake {pot - gain} chips" in on_felt, on_felt
        await ana.look()
        await snap(page, shots, "result-gain", dark=False)
