"""Hands for the replayer's browser tests, and the replayer as the page shows it.

The hands are played over the HTTP API (tests/webapp/tables.py) on a real server, as fast as it
answers: until a hand has a svara (about one hand in ten ties), with a look, a blind and a
player leaving in the middle of a hand on the way. `screen_state` reads the replayer's step
in one synchronous evaluation (the felt is drawn from the step's view in the same task).
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Page

from tests.webapp.api import JSON, ApiPlayer, legal
from tests.webapp.tables import Move, drive

STATE_JS = """() => {
  const root = document.querySelector('#replay');
  const all = (sel, el = document) => [...el.querySelectorAll(sel)];
  const felt = document.querySelector('#felt');
  return {
    index: Number(root.dataset.index), version: Number(root.dataset.version),
    mode: root.dataset.mode,
    steps: all('#steps .step').map((li) => ({version: Number(li.dataset.version),
      hash: li.dataset.hash, type: li.dataset.type, bad: li.dataset.bad === 'true',
      broke: li.dataset.broke || '', text: li.querySelector('.step-text').textContent})),
    current: all('#steps .step.current').map((li) => Number(li.dataset.index)),
    seats: all('.seat[data-seat]', felt).map((s) => ({seat: Number(s.dataset.seat),
      stack: Number(s.querySelector('.stack').dataset.stack), turn: s.classList.contains('turn'),
      faces: all('.card:not(.back)', s).map((c) => c.dataset.card),
      backs: all('.card.back', s).length})),
    pot: felt.querySelector('[data-pot]') ? Number(felt.querySelector('[data-pot]').dataset.pot)
      : null,
    result: Boolean(felt.querySelector('.felt-result')),
    dealJumps: all('#deal-jumps .deal-jump').map((b) => Number(b.dataset.deal)),
    checks: document.querySelector('#replay-checks')?.dataset.verified ?? null,
    dir: document.documentElement.dir, lang: document.documentElement.lang,
  };
}"""


async def screen_state(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = await page.evaluate(STATE_JS)
    return found


async def open_replay(page: Page, base: str, table: str, hand: int, fragment: str = "") -> None:
    await page.goto(f"{base}/?table={table}&screen=replay&hand={hand}{fragment}")
    await page.wait_for_selector("#replay #steps .step.current")


def varied(*, looker: int, leaver: int | None = None) -> Any:
    """A policy that makes hands of every kind: `looker` looks at its cards first, the first
    to act may go blind once, everyone passes or calls the least (to a showdown), joins
    every svara; `leaver` (a user id) is left to the test (it leaves mid-hand)."""
    blinded: set[int] = set()

    def policy(player: ApiPlayer, view: JSON) -> Move:
        moves = legal(view)
        if player.user_id == leaver:
            return None
        if "join_svara" in moves:
            return "join_svara", None
        if player.user_id == looker and "look" in moves:
            return "look", None
        hand = view["hand"]
        if "blind" in moves and hand and hand["number"] not in blinded:
            blinded.add(hand["number"])
            rule = moves["blind"]
            return "blind", int(rule["min"]) if "min" in rule else None
        for kind in ("pass", "call"):
            if kind in moves:
                return kind, None
        if "raise" in moves:
            return "raise", int(moves["raise"]["min"])
        return None

    return policy


async def play_to_svara(table: str, players: list[ApiPlayer], *, looker: int,
                        most: int = 300) -> int:
    """Play hands until one with a svara is settled; its number."""
    seen: dict[str, int] = {}

    def done(view: JSON) -> bool:
        hand = view["hand"]
        if not hand:
            return False
        if hand["deal"] > 1:
            seen.setdefault("svara", hand["number"])
        svara = seen.get("svara")
        return svara is not None and (hand["number"] > svara or hand["phase"] == "settled")

    await drive(table, players, varied(looker=looker), until=done, limit=most * 20)
    return seen["svara"]


async def replay_of(api: ApiPlayer, table: str, hand: int) -> JSON:
    return dict(await api.ok("GET", f"/api/tables/{table}/hands/{hand}/replay"))


async def audit_of(api: ApiPlayer, table: str, hand: int) -> JSON:
    return dict(await api.ok("GET", f"/api/tables/{table}/hands/{hand}/audit"))
