"""What the page keeps of a table while it plays (service/api/static/js/pins.js), run in
Chromium as the app serves it: which deal each commitment belongs to, the first one seen
winning; the newest hash and the hashes inside hands; the player's own cards per user; the
pins handed to fair.js for one hand; and the bounds (the last 30 hands of a table, the last 20
tables), also when the storage is full."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page

from tests.support.browser import Contexts
from tests.support.serve import Server

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def blank(browser: Contexts, server: Server) -> Page:
    """A page of the app's origin (its own localStorage) where the modules can be imported."""
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto(f"{server.url}/?screen=rules")
    await page.evaluate("localStorage.clear()")
    return page


async def js(page: Page, body: str, arg: Any = None) -> Any:
    return await page.evaluate(
        f"async (arg) => {{ const pins = await import('/js/pins.js'); {body} }}", arg)


def hand(number: int, deal: int, phase: str, commitment: str) -> dict[str, Any]:
    return {"number": number, "deal": deal, "phase": phase, "commitment": commitment}


async def test_commitments_hashes_and_cards_land_where_they_belong(
    server: Server, browser: Contexts
) -> None:
    page = await blank(browser, server)
    views = [
        # before the first hand: the published commitment is hand 1's first deal's
        {"hand": None, "next_commitment": "c1"},
        # hand 1 being played: its own commitment is already kept; the cards are Ana's (7)
        {"hand": hand(1, 1, "betting", "c1-restated"), "next_commitment": None,
         "you": {"seat": 2, "cards": ["7c", "8d", "Ah"]}},
        # a svara declared: the next commitment is this hand's deal 2
        {"hand": hand(1, 1, "svara_join", "c1"), "next_commitment": "s2"},
        {"hand": hand(1, 2, "betting", "s2"), "next_commitment": None,
         "you": {"seat": 2, "cards": ["Kd", "Ks", "9h"]}},
        # settled: the next commitment is hand 2's
        {"hand": hand(1, 2, "settled", "s2"), "next_commitment": "c2"},
    ]
    events = [{"version": 40, "type": "hand_started", "hash": "h40"},
              {"version": 41, "type": "looked", "hash": "h41"},
              {"version": 44, "type": "hand_settled", "hash": "h44"},
              {"version": 42, "type": "cards_dealt", "hash": "h42"},  # late: not the newest
              {"version": 45, "type": "seed_drawn"}]  # no hash: ignored
    got = await js(page, """
        for (const v of arg.views) pins.keepView('t1', v, 7);
        for (const e of arg.events) pins.keepEvent('t1', e);
        return {kept: pins.kept('t1'), pins1: pins.pinsFor('t1', 1), pins2: pins.pinsFor('t1', 2),
                none: pins.pinsFor('other', 1), ana: pins.cardsSeen('t1', 1, 7),
                bob: pins.cardsSeen('t1', 1, 8)};""", {"views": views, "events": events})
    kept = got["kept"]
    # the first commitment seen for a deal stays (the one published before it)
    assert kept["commitments"] == {"1:1": "c1", "1:2": "s2", "2:1": "c2"}
    assert kept["newest"] == {"version": 44, "hash": "h44"}
    assert kept["hashes"] == {"40": "h40", "42": "h42", "44": "h44"}  # not `looked`
    assert kept["cards"] == {"1:1": {"user": 7, "seat": 2, "cards": ["7c", "8d", "Ah"]},
                             "1:2": {"user": 7, "seat": 2, "cards": ["Kd", "Ks", "9h"]}}
    assert got["pins1"] == {"hashes": kept["hashes"], "commitments": {"1:1": "c1", "1:2": "s2"},
                            "newestHash": {"version": 44, "hash": "h44"}}
    assert got["pins2"]["commitments"] == {"2:1": "c2"}
    assert got["none"] is None
    assert got["ana"] == {"1": {"user": 7, "seat": 2, "cards": ["7c", "8d", "Ah"]},
                          "2": {"user": 7, "seat": 2, "cards": ["Kd", "Ks", "9h"]}}
    assert got["bob"] == {}  # another player on this device saw other cards


async def test_bounded_to_the_last_hands_and_tables_even_when_storage_is_full(
    server: Server, browser: Contexts
) -> None:
    page = await blank(browser, server)
    got = await js(page, """
        for (let n = 1; n <= 45; n++) {
          const you = {seat: 0, cards: ['7c', '8c', '9c']};
          const hand = {number: n, deal: 1, phase: 'settled', commitment: `c${n}`};
          pins.keepView('big', {hand, next_commitment: `c${n + 1}`, you}, 1);
          for (let k = 0; k < 5; k++) {
            pins.keepEvent('big', {version: 10 * n + k, type: 'hand_started', hash: `h${n}.${k}`});
          }
        }
        const big = pins.kept('big');
        const one = {version: 1, type: 'hand_settled', hash: 'x'};
        const now = Date.now;
        Date.now = () => 1e12;  // all within one millisecond: the order still says which is newest
        for (let i = 0; i < 25; i++) pins.keepEvent(`t${i}`, one);
        Date.now = now;
        const tables = Object.keys(JSON.parse(localStorage['svara:pins']));
        const stored = Object.keys(localStorage).filter((k) => k.startsWith('svara:pins:'));
        const handOf = (k) => Number(k.split(':')[0]);
        return {hands: [...new Set(Object.keys(big.commitments).map(handOf))],
                cards: Object.keys(big.cards).length, hashes: Object.keys(big.hashes).map(Number),
                tables, stored};""")
    assert got["hands"] == list(range(17, 47))  # the last 30 hands (46 is the next one's)
    assert got["cards"] == 29  # hands 17-45 (cards kept only while within the last 30)
    # the hashes of the latest 120 versions (4 a hand): hands 22-45's five each
    assert sorted(got["hashes"]) == [10 * n + k for n in range(22, 46) for k in range(5)]
    assert len(got["tables"]) == 20 and "t24" in got["tables"] and "t0" not in got["tables"]
    assert len(got["stored"]) == 20 and "svara:pins:t0" not in got["stored"]

    # Storage full: the least recently played tables go until the new record fits.
    full = await js(page, """
        localStorage.clear();
        const one = {version: 1, type: 'hand_settled', hash: 'x'};
        for (let i = 0; i < 5; i++) pins.keepEvent(`old${i}`, one);
        const real = Storage.prototype.setItem;
        Storage.prototype.setItem = function (key, value) {
          const others = Object.keys(localStorage)
            .filter((k) => k.startsWith('svara:pins:') && k !== key);
          if (key === 'svara:pins:new' && others.length > 2) {
            throw new DOMException('full', 'QuotaExceededError');
          }
          return real.call(this, key, value);
        };
        try {
          pins.keepEvent('new', {version: 9, type: 'hand_settled', hash: 'n9'});
        } finally { Storage.prototype.setItem = real; }
        return {stored: Object.keys(localStorage).filter((k) => k.startsWith('svara:pins:')).sort(),
                kept: JSON.parse(localStorage['svara:pins:new'])};""")
    assert full["kept"]["newest"] == {"version": 9, "hash": "n9"}
    assert full["stored"] == ["svara:pins:new", "svara:pins:old3", "svara:pins:old4"]


async def test_two_tabs_of_one_table_keep_each_others_pins(
    server: Server, browser: Contexts
) -> None:
    """Each page keeps its parsed records in memory; another tab's write (the `storage` event)
    makes it read again, so neither tab drops what the other kept."""
    context = await browser.new_context()
    first, second = await context.new_page(), await context.new_page()
    for page in (first, second):
        await page.goto(f"{server.url}/?screen=rules")
    await first.evaluate("localStorage.clear()")
    await js(first, "pins.keepEvent('t', {version: 1, type: 'hand_started', hash: 'a'});")
    # (pins.js listens since its import above: its listener runs before this one)
    await first.evaluate("addEventListener('storage', () => { window.told = true; })")
    await js(second, "pins.keepEvent('t', {version: 2, type: 'cards_dealt', hash: 'b'});")
    await first.wait_for_function("window.told === true")
    kept = await js(first, """
        pins.keepEvent('t', {version: 3, type: 'hand_settled', hash: 'c'});
        return JSON.parse(localStorage['svara:pins:t']);""")
    assert kept["hashes"] == {"1": "a", "2": "b", "3": "c"}
    assert kept["newest"] == {"version": 3, "hash": "c"}
