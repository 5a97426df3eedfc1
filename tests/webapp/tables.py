"""Tables for the browser tests: created over the API (any setting, e.g. no pause between
hands), the page's person sitting down by tapping, and hands driven over the API so a rare
moment (a svara, a bust, a timeout) comes in seconds."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

from tests.support.http_player import JSON, HttpPlayer, legal, seat_of
from tests.webapp.player import Player

Move = tuple[str, int | None] | None
Policy = Callable[[HttpPlayer, JSON], Move]


def new_user_id() -> int:
    """A dev-mode user nobody used yet (wallets live as long as the test server)."""
    return random.randrange(10**8, 10**9)


async def sit_down(player: Player, base: str, table: str, *, most: bool = False) -> None:
    """The page's person opens the table and sits down with the least (or most) it allows."""
    page = player.page
    await page.goto(f"{base}/?table={table}")
    await page.wait_for_selector(".action-bar [data-action=seat]")
    if most:
        await page.click(".action-bar .quick[data-quick=max]")
    await page.click(".action-bar [data-action=seat]")
    await page.wait_for_selector(".felt .seat.me")


async def drive(table: str, players: list[HttpPlayer], policy: Policy, *,
                until: Callable[[JSON], bool], limit: int = 600) -> JSON:
    """Act for whoever must (turns, and svara answers) until `until(view)` holds."""
    by_id = {p.user_id: p for p in players}
    watcher = players[0]
    for _ in range(limit):
        view = await watcher.view(table)
        if until(view):
            return view
        hand = view["hand"]
        movers: list[HttpPlayer] = []
        if hand and hand["phase"] == "svara_join":
            answered = set(hand["svara"]["answered"])
            movers = [by_id[s["user_id"]] for s in view["seats"] if s["seat"]
                      in hand["svara"]["eligible"] and s["seat"] not in answered
                      and s["user_id"] in by_id]
        elif hand and hand["phase"] in ("blind", "betting") and hand["turn"] is not None:
            user = next(s["user_id"] for s in view["seats"] if s["seat"] == hand["turn"])
            movers = [by_id[user]] if user in by_id else []
        if not movers:
            await asyncio.sleep(0.05)
            continue
        for mover in movers:
            own = await mover.view(table)
            move = policy(mover, own)
            if move is not None:
                await mover.act(table, move[0], move[1])
    raise AssertionError(f"not reached in {limit} steps")


def play_on(*, folder: int | None = None, skip_svara: bool = True) -> Policy:
    """Keep hands short and reaching showdown: pass the blinds, open with the least, call;
    `folder` (a user id) folds whenever it can."""

    def policy(player: HttpPlayer, view: JSON) -> Move:
        moves = legal(view)
        if "join_svara" in moves or "skip_svara" in moves:
            return ("skip_svara", None) if skip_svara else ("join_svara", None)
        if player.user_id == folder:
            for kind in ("pass", "fold"):
                if kind in moves:
                    return kind, None
        if "pass" in moves:
            return "pass", None
        if "call" in moves:
            return "call", None
        if "raise" in moves:
            return "raise", int(moves["raise"]["min"])
        return None

    return policy


def stack(view: JSON, user_id: int) -> int:
    seat = seat_of(view, user_id)
    assert seat is not None
    return int(seat["stack"])


def phase(view: JSON) -> Any:
    return view["hand"]["phase"] if view["hand"] else None


def settled(view: JSON) -> int:
    """How many hands of the table have settled, by its view."""
    hand = view["hand"]
    if not hand:
        return 0
    return int(hand["number"]) - (0 if hand["phase"] == "settled" else 1)


async def play_hands(table: str, players: list[HttpPlayer], count: int) -> JSON:
    """Until `count` hands of `table` have settled: the second player folds whenever it can,
    so each hand is a few moves."""
    return await drive(table, players, play_on(folder=players[1].user_id),
                       until=lambda view: settled(view) >= count)
