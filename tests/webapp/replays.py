"""Hands for the replayer's browser tests, and the replayer as the page shows it.

The hands are played over the HTTP API (tests/webapp/tables.py) on a real server, as fast as it
answers: until a hand has a svara (about one hand in ten ties), with a look and a blind on
the way. The rarer kinds (a v1 deck, a split, a capped showdown, a timeout, a player leaving
mid-hand) come from docs/verifier-corpus, whose stored logs are written into Redis as the
store keeps them (`store_corpus_table`). `screen_state` reads the replayer's step
in one synchronous evaluation (the felt is drawn from the step's view in the same task).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from playwright.async_api import Page

from events.codec import encode_table_event
from events.store.base import StoredEvent
from events.store.chain import at_text, link_of
from events.store.redis_store import RedisEventStore
from events.table import PlayerLeft, TableClosed, TableEvent
from tests.support.corpus import corpus_case, read_log
from tests.support.http_player import JSON, HttpPlayer, legal
from tests.support.redis import REDIS_TEST_URL
from tests.support.serve import APP_ENV, DEV_TOKEN, REPO, Server
from tests.support.tamper import tamper
from tests.webapp.tables import Move, drive

CORPUS = REPO / "docs" / "verifier-corpus"


@contextlib.contextmanager
def own_namespace(prefix: str) -> Iterator[str]:
    """A namespace of the caller's own on the test Redis, deleted afterwards."""
    name = f"{prefix}-{uuid.uuid4().hex[:10]}"
    client = redis.Redis.from_url(REDIS_TEST_URL)
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.fail(f"Redis is required at {REDIS_TEST_URL} ({exc})")
    try:
        yield name
    finally:
        for key in client.scan_iter(match=f"*{name}*", count=500):
            client.delete(key)
        client.close()


@contextlib.contextmanager
def serving(namespace: str, log: Path) -> Iterator[Server]:
    """`svara serve` in dev mode on the test Redis, in `namespace`, signing with DEV_TOKEN."""
    srv = Server({**APP_ENV, "REDIS_URL": REDIS_TEST_URL, "SVARA_NAMESPACE": namespace,
                  "DEV_TOKEN": DEV_TOKEN}, log=log).spawn()
    try:
        srv.wait_ready()
        yield srv
    finally:
        srv.stop()


async def store_corpus_table(store: RedisEventStore, namespace: str, name: str) -> dict[str, Any]:
    """The whole stored log of corpus table `name` written into `namespace`, as the store
    keeps it: the server then reads that table like any other. The case, with its table id
    and hand."""
    case = corpus_case(name)
    table = case["export"]["table_id"]
    stored = read_log(case["entries"])
    await tamper(store, f"{namespace}:table:{table}", lambda _events: stored)
    return case


async def close_table(store: RedisEventStore, namespace: str, table: str,
                      seats: list[JSON]) -> None:
    """Everyone at `table` (`seats` as a view lists them) leaves with their stack and the
    table closes, appended to its stored log with their chain hashes, as the live path would."""
    stream = f"{namespace}:table:{table}"
    stored = await store.read(stream)
    last = stored[-1]
    events: list[TableEvent] = [
        PlayerLeft(user_id=s["user_id"], seat=s["seat"], cashed_out=s["stack"],
                   transfer_id=f"leave-{table}-{s['seat']}", at=last.at + 1) for s in seats]
    events.append(TableClosed(idle_seconds=600.0))
    added, prev = [], last.hash
    for i, event in enumerate(events):
        data, at = encode_table_event(event), last.at + 1 + i
        prev = link_of(2, prev, at_text(at), data)
        added.append(StoredEvent(last.version + 1 + i, data, at, prev, chain=2))
    await tamper(store, stream, lambda old: [*old, *added])


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


def shown(view: dict[str, Any]) -> dict[str, Any]:
    """What the felt must show for `view`: each seat's stack, turn and face-up cards, the pot."""
    hv = view["hand"]
    live = hv is not None and hv["phase"] != "settled"
    return {
        "seats": sorted((s["seat"], s["stack"], live and hv["turn"] == s["seat"],
                         tuple(s["cards"] or ())) for s in view["seats"]),
        "pot": hv["pot"] if hv and not (hv["phase"] == "settled" and hv.get("result")) else None,
    }


def on_screen(state: dict[str, Any]) -> dict[str, Any]:
    return {"seats": sorted((s["seat"], s["stack"], s["turn"], tuple(s["faces"]))
                            for s in state["seats"]), "pot": state["pot"]}


async def screen_state(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = await page.evaluate(STATE_JS)
    return found


async def open_replay(page: Page, base: str, table: str, hand: int, fragment: str = "") -> None:
    await page.goto(f"{base}/?table={table}&screen=replay&hand={hand}{fragment}")
    await page.wait_for_selector("#replay #steps .step.current")


def varied(*, looker: int) -> Any:
    """A policy that makes hands of many kinds: the first to act in a hand bets blind,
    `looker` looks at its cards, everyone passes or calls the least (to a showdown) and joins
    every svara."""
    blinded: set[int] = set()

    def policy(player: HttpPlayer, view: JSON) -> Move:
        moves = legal(view)
        if "join_svara" in moves:
            return "join_svara", None
        hand = view["hand"]
        if "blind" in moves and hand and hand["number"] not in blinded:
            blinded.add(hand["number"])
            rule = moves["blind"]
            return "blind", int(rule["min"]) if "min" in rule else None
        if player.user_id == looker and "look" in moves:
            return "look", None
        for kind in ("pass", "call"):
            if kind in moves:
                return kind, None
        if "raise" in moves:
            return "raise", int(moves["raise"]["min"])
        return None

    return policy


async def play_to_svara(table: str, players: list[HttpPlayer], *, looker: int,
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


async def replay_of(api: HttpPlayer, table: str, hand: int) -> JSON:
    return dict(await api.ok("GET", f"/api/tables/{table}/hands/{hand}/replay"))


async def audit_of(api: HttpPlayer, table: str, hand: int) -> JSON:
    return dict(await api.ok("GET", f"/api/tables/{table}/hands/{hand}/audit"))
