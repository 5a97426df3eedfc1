"""A person at the web app, driven through the page like a real one: clicks and typing.

`look()` reads the page's state in one synchronous evaluation (the DOM is rendered from the
view in the same task, so the two agree) and checks the invariants every screen must keep,
on the screen and in what reached the browser (the view and every WebSocket frame).
"""

from __future__ import annotations

import json
from typing import Any

from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from tests.webapp.browser import Contexts

STATE_JS = """() => {
  const screen = window.svara && window.svara.current;
  const v = screen && screen.view;
  const all = (sel) => [...document.querySelectorAll(sel)];
  const controls = all('.actions [data-action]').filter((b) => b.dataset.action !== 'seat');
  return {
    hand: v && v.hand ? {number: v.hand.number, phase: v.hand.phase, turn: v.hand.turn} : null,
    seat: v && v.you ? v.you.seat : null,
    youCards: v && v.you ? v.you.cards : null,
    legal: v && v.you ? v.you.legal : [],
    buttons: controls.map((b) => b.dataset.action),
    enabled: controls.filter((b) => !b.disabled).map((b) => b.dataset.action),
    inputs: all('.actions input[data-amount]').map((i) => ({
      type: i.dataset.amount, min: Number(i.min), max: Number(i.max), value: Number(i.value)})),
    otherFaces: all('.felt .seat:not(.me) .card:not(.back)').map((c) => c.dataset.card),
    myFaces: all('#my-cards .card:not(.back)').map((c) => c.dataset.card),
    othersInView: v ? v.seats.filter((x) => x.seat !== (v.you && v.you.seat) && x.cards)
      .map((x) => x.cards) : [],
    result: (document.querySelector('#result') || {}).innerText || null,
    live: (document.querySelector('.live') || {dataset: {}}).dataset.status || null,
  };
}"""

# What a test player prefers to do, first available wins: look, then keep the hand moving.
PREFERENCE = ["look", "call", "pass", "skip_svara", "raise", "blind", "fold", "sit_in"]


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
        cls, browser: Contexts, base_url: str, name: str, *, init_script: str | None = None
    ) -> Player:
        context = await browser.new_context(viewport={"width": 390, "height": 844})
        if init_script:
            await context.add_init_script(init_script)
        page = await context.new_page()
        page.set_default_timeout(10_000)
        player = cls(page, name)
        page.on("pageerror", lambda exc: player.errors.append(str(exc)))
        page.on("websocket", lambda ws: ws.on(
            "framereceived", lambda payload: player.frames.append(json.loads(payload))))
        await page.goto(base_url + "/")
        await page.fill("input[name=name]", name)
        await page.click("[data-action=login]")
        await page.wait_for_selector("#balance")
        player.user_id = await page.evaluate("JSON.parse(localStorage['svara.devUser']).id")
        return player

    async def look(self) -> dict[str, Any]:
        """The page's state, after checking what every state must satisfy."""
        state: dict[str, Any] = await self.page.evaluate(STATE_JS)
        hand = state["hand"]
        if hand and hand["phase"] not in ("settled", "svara_join"):
            assert not state["otherFaces"], f"{self.name} sees others' cards: {state}"
            assert not state["othersInView"], f"{self.name} was sent others' cards: {state}"
        self.check_frames()
        if state["youCards"] is None:
            assert not state["myFaces"], f"{self.name} sees own cards before looking: {state}"
        else:
            assert sorted(state["myFaces"]) == sorted(state["youCards"])
        if state["seat"] is not None:  # the buttons are exactly the legal actions
            assert sorted(state["buttons"]) == sorted(a["type"] for a in state["legal"]), state
            bounds = {a["type"]: (a.get("min"), a.get("max")) for a in state["legal"]}
            for box in state["inputs"]:
                assert (box["min"], box["max"]) == bounds[box["type"]], state
                assert box["min"] <= box["value"] <= box["max"]
        assert not self.errors, self.errors
        self.checks += 1
        return state

    def check_frames(self) -> None:
        """No event sent to this page carries a hidden card or an unrevealed seed."""
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
            await self.page.click(f".actions [data-action={choice}]:enabled", timeout=2_000)
        except PlaywrightTimeout:
            return None
        return choice

    def finished_a_hand(self, state: dict[str, Any]) -> bool:
        """True once the result banner reports a hand this player acted in."""
        result = state["result"] or ""
        return any(result.startswith(f"Hand {n}:") for n in self.hands_played)
