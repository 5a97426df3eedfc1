"""A svara over HTTP against a real `svara serve` on the real Redis: what the two tied players
and a spectator are sent -- views at every step, and every projected event -- shows no card
it should not and no deal's seed (the svara deal's own included) before its hand is settled.

The server draws its seeds itself, so the players play hands (the cheapest way to a showdown:
pass, the minimum raise, call) until one ends in a tie. Two hands tie about one time in ten,
so 200 hands without a svara would happen less than once in 10^9 runs; a run usually
needs a few.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import aiohttp
import pytest

from tests.support.e2e_game import TOKEN, new_table, server_env, user_ids
from tests.support.http_player import (
    JSON,
    HttpPlayer,
    check_event_privacy,
    check_seed_privacy,
    check_view_privacy,
)
from tests.support.serve import Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]
MAX_HANDS = 200
PREFERENCE = ("call", "pass", "raise", "join_svara")  # to a showdown, as cheaply as possible


@pytest.fixture
async def server(redis_url: str) -> AsyncIterator[Server]:
    s = Server(server_env(redis_url)).start()
    yield s
    assert s.stop() == 0, s.output()[-3000:]


def move(view: JSON) -> tuple[str, int | None] | None:
    legal = {a["type"]: a for a in view["you"]["legal"]}
    for kind in PREFERENCE:
        if kind in legal:
            rule = legal[kind]
            return kind, (int(rule["min"]) if "min" in rule else None)
    return None


async def events_of(viewer: HttpPlayer, table: str) -> list[JSON]:
    return list((await viewer.ok("GET", f"/api/tables/{table}/events?after=0"))["events"])


async def test_a_svara_shows_its_deals_seed_to_nobody_before_the_settlement(
    server: Server,
) -> None:
    async with aiohttp.ClientSession() as session:
        ana, boris, spectator = (HttpPlayer(session, server.url, uid, TOKEN)
                                 for uid in user_ids(3))
        table = await new_table(ana, [ana, boris], buy_in=1000, ante=1, max_buy_in=1000,
                                next_hand_seconds=0)
        svara_hand: int | None = None
        while True:
            views = [await p.view(table) for p in (ana, boris, spectator)]
            for v in views:
                check_view_privacy(v)
            hand = views[0]["hand"]
            if svara_hand is not None and (
                hand["number"] > svara_hand or hand["phase"] == "settled"
            ):
                break  # the svara's hand is over
            assert hand["number"] <= MAX_HANDS, f"no svara in {MAX_HANDS} hands"
            if hand["deal"] > 1:
                svara_hand = hand["number"]
            chosen = [(p, m) for p, v in zip((ana, boris), views[:2], strict=True)
                      if (m := move(v)) is not None]
            assert chosen, views[0]  # with no pause between hands, someone always has a move
            player, (kind, amount) = chosen[0]
            status, body = await player.act(table, kind, amount,
                                            expected_version=views[0]["version"])
            assert status == 200, (kind, status, body)

        audits: dict[int, JSON] = {}
        for n in range(1, svara_hand + 1):
            status, audit = await ana.call("GET", f"/api/tables/{table}/hands/{n}/audit")
            assert status == 200 and audit["verified"], audit
            audits[n] = audit
        svara_seeds = [d["seed"].lower() for d in audits[svara_hand]["deals"] if d["deal"] > 1]
        assert svara_seeds  # the svara's deal is in the audit, with its own seed

        for viewer in (ana, boris, spectator):
            events = await events_of(viewer, table)
            seat = (await viewer.view(table))["you"]["seat"]
            check_event_privacy(events, -1 if seat is None else seat, audits)
            check_seed_privacy(events, audits)
            types = [e["type"] for e in events]
            settled = next(i for i, e in enumerate(events) if e["type"] == "hand_settled"
                           and e["data"]["number"] == svara_hand)
            svara_start = max(i for i, t in enumerate(types[:settled]) if t == "svara_started")
            assert {"svara_started", "seed_drawn", "svara_deal_started", "cards_dealt"} <= set(
                types[svara_start:settled])
            for e in events[:settled]:  # the svara deal's seed: in none of them
                text = json.dumps(e["data"]).lower()
                assert not any(s in text for s in svara_seeds), e
            revealed = {s["seed"].lower() for s in events[settled]["data"]["seeds"]}
            assert set(svara_seeds) <= revealed
