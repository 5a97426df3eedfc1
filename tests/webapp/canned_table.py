"""Canned views of a full table (any number of seats, any phase) for the layout tests: the real
page and server, with the one table's API answers replaced through the browser's routing."""

from __future__ import annotations

import json
from typing import Any

from playwright.async_api import Page, Route, WebSocketRoute

from tests.support.browser import Contexts
from tests.support.serve import Server
from tests.webapp.player import Player

TABLE = "layout01"
NAMES = ["Ana", "Boris", "Cleo", "Dimitar", "Elena", "Filip", "Galya", "Hristo", "Iva", "Yordan"]
HANDS = [["7c", "Kh", "Kd"], ["Ah", "Ad", "Tc"], ["9h", "Th", "8c"], ["Qs", "Js", "9s"],
         ["8d", "8h", "Kc"], ["Ts", "9d", "7h"], ["Jh", "Jd", "Qc"], ["Ks", "Qh", "8s"],
         ["Ac", "9c", "Td"], ["7d", "Qd", "Jc"]]
SCORES = [31, 31, 19, 30, 16, 10, 20, 21, 30, 21]
ME = 2  # the page's person sits in seat 2 (Cleo)
# The browser locale that picks each of the six languages.
LOCALES = {"en": "en-US", "ru": "ru-RU", "bg": "bg", "tr": "tr-TR", "de": "de-DE", "ar": "ar"}


def seat(n: int, **extra: Any) -> dict[str, Any]:
    base = {"seat": n, "user_id": 900 + n, "name": NAMES[n], "stack": 300 + 10 * n,
            "sat_out": False, "in_hand": True, "folded": False, "blind": False, "looked": True,
            "put_in": 20, "timed_out": False, "cards": None, "score": None}
    return base | extra


def table_view(seats: int, phase: str, *, legal: list[dict[str, Any]] | None = None,
               shown: bool | set[int] = False, **hand: Any) -> dict[str, Any]:
    """A table of `seats` seats, all taken, Cleo (seat 2) watching her own cards. `shown`: every
    hand face up (a showdown, or a svara's tied hands)."""
    def face(n: int) -> bool:
        return n in shown if isinstance(shown, set) else shown

    rows = [seat(n, cards=HANDS[n] if face(n) or n == ME else None,
                 score=SCORES[n] if face(n) or n == ME else None) for n in range(seats)]
    return {
        "table_id": TABLE, "version": 40, "host": "Ana",
        "settings": {"ante": 10, "max_seats": seats, "bet_unit": None},
        "hand": {"number": 7, "deal": 1, "phase": phase, "dealer": 0, "pot": 60 * seats,
                 "level": 20, "turn": ME if phase == "betting" else None,
                 "deadline": None, "commitment": "ab" * 32, "last_blind": 0,
                 "last_blind_seat": None, "must_double": False, "capped": False} | hand,
        "seats": rows,
        "you": {"seat": ME, "cards": HANDS[ME], "score": SCORES[ME], "legal": legal or []},
    }


def betting(seats: int, **hand: Any) -> dict[str, Any]:
    """Cleo's turn: call, raise (a range) or fold."""
    return table_view(seats, "betting", legal=[
        {"type": "call"}, {"type": "raise", "min": 40, "max": 180}, {"type": "fold"}], **hand)


def unlooked(view: dict[str, Any]) -> dict[str, Any]:
    """`view` with Cleo not having looked at her cards yet (she may `look`)."""
    view["you"] |= {"cards": None, "score": None}
    view["seats"][ME] |= {"cards": None, "score": None, "looked": False}
    return view


def first_blind(seats: int, **hand: Any) -> dict[str, Any]:
    """Cleo first to act, her cards unseen: a blind (a range), pass, or look."""
    return unlooked(table_view(seats, "blind", legal=[
        {"type": "blind", "min": 10, "max": 160}, {"type": "pass"}, {"type": "look"}],
        level=0, turn=ME, **hand))


def blind_betting(seats: int, **hand: Any) -> dict[str, Any]:
    """Cleo went blind and is reached again in the betting round: look, call, raise, fold."""
    view = unlooked(betting(seats, **hand))
    view["you"]["legal"].append({"type": "look"})
    return view


def svara(seats: int) -> dict[str, Any]:
    """Ana and Boris tied at 31; Cleo may join for 30."""
    view = table_view(seats, "svara_join", legal=[{"type": "join_svara", "amount": 30},
                                                  {"type": "skip_svara"}], shown={0, 1},
                      svara={"tied": [0, 1], "fee": 30, "eligible": [ME], "answered": [],
                             "joined": [], "deadline": None})
    return view


def settled(seats: int, winner: int = 1, **hand: Any) -> dict[str, Any]:
    pot = 60 * seats
    return table_view(seats, "settled", shown=True, result={
        "winner_seats": [winner], "amounts": {str(winner): pot}, "pot": pot, "rake": 0,
        "reason": "showdown"}, **hand)


def last_hand(view: dict[str, Any]) -> dict[str, Any]:
    """GET /hands's entry for a settled canned view."""
    result = view["hand"]["result"]
    return {"number": view["hand"]["number"], "dealer": 0,
            "names": {str(s["seat"]): s["name"] for s in view["seats"]},
            "winners": result["winner_seats"], "amounts": result["amounts"], "pot": result["pot"],
            "rake": 0, "reason": result["reason"],
            "showdowns": [{"deal": 1, "capped": False, "hands": {
                str(s["seat"]): {"cards": s["cards"], "score": s["score"]}
                for s in view["seats"] if s["cards"]}}],
            "svaras": [], "timeouts": []}


async def route_canned(page: Page, server: Server, view: dict[str, Any],
                       hands: list[dict[str, Any]] | None = None) -> None:
    """The canned table's answers on `page`: its view, its hands, a live feed that says nothing."""
    async def answer_view(route: Route) -> None:
        await route.fulfill(status=200, content_type="application/json", body=json.dumps(view))

    async def answer_hands(route: Route) -> None:
        await route.fulfill(status=200, content_type="application/json",
                            body=json.dumps({"hands": hands or []}))

    def feed(ws: WebSocketRoute) -> None:
        # A live feed that says nothing: ready after the login, a pong for each ping.
        def answer(message: str | bytes) -> None:
            kind = json.loads(message).get("type")
            if kind in ("auth", "ping"):
                ws.send(json.dumps({"type": "ready" if kind == "auth" else "pong"}))
        ws.on_message(answer)

    await page.route_web_socket(f"ws://127.0.0.1:{server.port}/api/tables/{TABLE}/ws", feed)
    await page.route(f"{server.url}/api/tables/{TABLE}", answer_view)
    await page.route(f"{server.url}/api/tables/{TABLE}/hands?limit=*", answer_hands)


async def shown_live(page: Page) -> None:
    """Until the canned table is drawn, with your seat, and its feed is live."""
    await page.wait_for_selector(".felt .seat.me")
    await page.wait_for_function("document.body.dataset.connection === 'live'")


async def open_table(browser: Contexts, server: Server, view: dict[str, Any], *,
                     hands: list[dict[str, Any]] | None = None, **options: Any) -> Player:
    """Cleo opens the canned table (`options`: the context's, e.g. width, height, locale)."""
    player = await Player.signed_in(browser, "Cleo", 900 + ME, **options)
    await route_canned(player.page, server, view, hands)
    await player.page.goto(f"{server.url}/?table={TABLE}")
    await shown_live(player.page)
    return player
