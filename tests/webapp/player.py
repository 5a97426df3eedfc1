"""A person at the web app, driven through the page like a real one: clicks and typing.

`look()` reads the page's state in one synchronous evaluation (the DOM is rendered from the
view in the same task, so the two agree) and checks the invariants every screen must keep,
on the screen and in what reached the browser (the view and every WebSocket frame).

Privacy is checked for the cards and for everything derived from them: a score (or anything
else computed from a hand) is as secret as the hand, so a score may reach a viewer, or show
on the screen, only beside cards that viewer may see.
"""

from __future__ import annotations

import json
from typing import Any

from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from tests.support.browser import Contexts

STATE_JS = """() => {
  const screen = window.svara && window.svara.current;
  const v = screen && screen.view;
  const all = (sel) => [...document.querySelectorAll(sel)];
  const controls = all('.action-bar button.act');
  const mySeat = v && v.you ? v.you.seat : null;
  // Every score shown must stand in the same seat's box as that seat's face-up cards (or be
  // your own, beside your own cards in the action bar).
  const lonelyScores = all('[data-score-seat]').filter((el) => {
    const box = el.closest('[data-seat]');
    const face = '.card:not(.back)';
    if (box) return box.dataset.seat !== el.dataset.scoreSeat || !box.querySelector(face);
    return String(mySeat) !== el.dataset.scoreSeat
      || !document.querySelector(`#my-cards ${face}`);
  }).map((el) => el.dataset.scoreSeat);
  return {
    hand: v && v.hand ? {number: v.hand.number, phase: v.hand.phase, turn: v.hand.turn} : null,
    view: v || null,
    seat: mySeat,
    youCards: v && v.you ? v.you.cards : null,
    legal: v && v.you ? v.you.legal : [],
    buttons: controls.map((b) => b.dataset.action),
    enabled: controls.filter((b) => !b.disabled).map((b) => b.dataset.action),
    inputs: all('.action-bar .bar-actions:not(.rebuy) input[data-amount]:not([data-amount=buy_in])')
      .map((i) => ({type: i.dataset.amount, min: Number(i.min), max: Number(i.max),
        value: Number(i.value)})),
    otherFaces: all('.felt .seat:not(.me) .card:not(.back)').map((c) => c.dataset.card),
    myFaces: all('#my-cards .card:not(.back)').map((c) => c.dataset.card),
    scoresShown: all('[data-score-seat]').map((el) => el.dataset.scoreSeat),
    lonelyScores,
    result: (document.querySelector('#result') || {}).innerText || null,
    resultHand: Number((document.querySelector('#result') || {dataset: {}}).dataset.hand || 0),
    connection: document.body.dataset.connection,
  };
}"""

# What a test player prefers to do, first available wins: look, then keep the hand moving.
PREFERENCE = ["look", "call", "pass", "skip_svara", "raise", "blind", "fold", "sit_in"]


def check_view(view: dict[str, Any], viewer: int | None) -> None:
    """What a view may hold for `viewer`: others' cards (and scores) only once shown, your own
    only after looking, no score without its cards, no deck seed before the hand is over."""
    hand = view.get("hand")
    phase = hand["phase"] if hand else None
    shown_phase = phase in ("settled", "svara_join")
    you = view.get("you") or {}
    for seat in view.get("seats", []):
        mine = viewer is not None and seat["user_id"] == viewer
        if seat.get("cards") is None:
            assert seat.get("score") is None, f"a score without its cards reached {viewer}: {seat}"
        elif not mine:
            assert shown_phase, f"another player's cards reached {viewer} mid-hand: {seat}"
        if mine and seat.get("cards") is not None and not shown_phase:
            assert seat.get("looked"), f"own cards before looking: {seat}"
    if you.get("cards") is None:
        assert you.get("score") is None, f"your score without your cards: {you}"
    if hand and phase != "settled":
        assert "seeds" not in hand, f"deck seeds before the hand is over: {hand}"


class Player:
    def __init__(self, page: Page, name: str) -> None:
        self.page = page
        self.name = name
        self.hands_played: set[int] = set()
        self.checks = 0
        self.errors: list[str] = []
        self.user_id = 0
        self.frames: list[dict[str, Any]] = []  # every WebSocket frame the page received
        self.frames_checked = 0

    @classmethod
    async def open(
        cls, browser: Contexts, base_url: str, name: str, *, init_script: str | None = None,
        width: int = 390, height: int = 844, **options: Any,
    ) -> Player:
        player = await cls._on_new_page(browser, name, init_script, width, height, options)
        page = player.page
        await page.goto(base_url + "/")
        await page.fill("input[name=name]", name)
        await page.click("[data-action=login]")
        await page.wait_for_selector("#balance")
        player.user_id = await page.evaluate("JSON.parse(localStorage['svara.devUser']).id")
        return player

    @classmethod
    async def signed_in(
        cls, browser: Contexts, name: str, user_id: int, *, width: int = 390, height: int = 844,
        **options: Any,
    ) -> Player:
        """A player whose page starts as the dev login leaves it (`svara.devUser` in its
        storage), without loading the lobby first: for pages that open a table straight away
        (the canned tables)."""
        user = json.dumps({"id": user_id, "name": name})
        player = await cls._on_new_page(
            browser, name, f"localStorage.setItem('svara.devUser', {json.dumps(user)})",
            width, height, options)
        player.user_id = user_id
        return player

    @classmethod
    async def _on_new_page(cls, browser: Contexts, name: str, init_script: str | None,
                           width: int, height: int, options: dict[str, Any]) -> Player:
        """A player on a page of a new context of that size, its errors and frames watched."""
        context = await browser.new_context(viewport={"width": width, "height": height}, **options)
        if init_script:
            await context.add_init_script(init_script)
        page = await context.new_page()
        page.set_default_timeout(10_000)
        player = cls(page, name)
        player.watch(page)
        return player

    def watch(self, page: Page) -> None:
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.on("websocket", lambda ws: ws.on(
            "framereceived", lambda payload: self.frames.append(json.loads(payload))))

    async def look(self) -> dict[str, Any]:
        """The page's state, after checking what every state must satisfy."""
        state: dict[str, Any] = await self.page.evaluate(STATE_JS)
        hand = state["hand"]
        if state["view"] is not None:
            check_view(state["view"], self.user_id)
        if hand and hand["phase"] not in ("settled", "svara_join"):
            assert not state["otherFaces"], f"{self.name} sees others' cards: {state}"
        # A score on the screen stands beside its cards, face up, on the screen.
        assert not state["lonelyScores"], (
            f"{self.name} sees the score of hidden cards (seats {state['lonelyScores']})")
        self.check_frames()
        if state["youCards"] is None:
            assert not state["myFaces"], f"{self.name} sees own cards before looking: {state}"
        elif state["myFaces"]:  # (the row is left out while buying in again)
            assert sorted(state["myFaces"]) == sorted(state["youCards"])
        if state["seat"] is not None and state["buttons"]:  # exactly the legal actions
            assert sorted(state["buttons"]) == sorted(a["type"] for a in state["legal"]), state
            bounds = {a["type"]: (a.get("min"), a.get("max")) for a in state["legal"]}
            for box in state["inputs"]:
                assert (box["min"], box["max"]) == bounds[box["type"]], state
                assert box["min"] <= box["value"] <= box["max"]
        assert not self.errors, self.errors
        self.checks += 1
        return state

    def check_frames(self) -> None:
        """No frame sent to this page carries a hidden card, a score of hidden cards or an
        unrevealed seed."""
        for frame in self.frames[self.frames_checked:]:
            if frame.get("type") != "event":
                continue
            event = frame["event"]
            data = event.get("data") or {}
            if event["type"] == "cards_dealt":
                assert all(c is None for c in data["cards"].values()), frame
            elif event["type"] == "looked" and data.get("user_id") != self.user_id:
                assert data.get("cards") is None, frame
            elif event["type"] in ("hand_started", "svara_deal_started"):
                assert "seed" not in data, frame
            if frame.get("view") is not None:
                check_view(frame["view"], self.user_id)
        self.frames_checked = len(self.frames)

    async def step(self) -> str | None:
        """Click one legal action if there is one; the action's type."""
        state = await self.look()
        choice = next((a for a in PREFERENCE if a in state["enabled"]), None)
        if choice is None:
            return None
        if state["hand"]:
            self.hands_played.add(state["hand"]["number"])
        try:  # the table may move on between reading and clicking: then nothing happens
            await self.page.click(f".action-bar [data-action={choice}]:enabled", timeout=2_000)
        except PlaywrightTimeout:
            return None
        return choice

    def finished_a_hand(self, state: dict[str, Any]) -> bool:
        """True once the result panel reports a hand this player acted in."""
        return state["resultHand"] in self.hands_played
