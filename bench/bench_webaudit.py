"""What the web app's own check of a hand costs on the device, in headless Chromium:

    python3 bench/bench_webaudit.py [--rounds 2000] [--hands 3]

- pins.js per live frame: `keepEvent` + `keepView` (what the table screen runs for each
  WebSocket frame) with a table's record already full (30 hands kept), microseconds each;
- fair.js `verifyExport` on real exports (a table of three on the embedded store, players'
  seeds set, hands played through the service), milliseconds per hand, with the number of
  events and deals checked.
Runs the modules the app serves (service/api/static/js), in Debian's /usr/bin/chromium. Not a
test: it measures (about 10 s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from events.store import open_store  # noqa: E402
from service.tables.service import TableService  # noqa: E402
from tests.support.clock import FakeClock  # noqa: E402
from tests.support.fair_page import fair_page  # noqa: E402
from tests.support.service_play import make_users, play_hands, seated_table  # noqa: E402

FRAMES_JS = """async (rounds) => {
  const pins = await import('/js/pins.js');
  localStorage.clear();
  const you = {seat: 1, cards: ['7c', 'Ah', 'Kd']};
  for (let n = 1; n <= 30; n++) {           // a table with 30 hands kept
    const hand = {number: n, deal: 1, phase: 'settled', commitment: 'c'.repeat(64)};
    pins.keepView('bench', {hand, next_commitment: 'd'.repeat(64), you}, 7);
    for (let k = 0; k < 4; k++) {
      pins.keepEvent('bench', {version: 40 * n + k, type: 'hand_started', hash: 'e'.repeat(64)});
    }
  }
  const view = {hand: {number: 31, deal: 1, phase: 'betting', commitment: 'f'.repeat(64)},
                next_commitment: null, you};
  const start = performance.now();
  for (let i = 0; i < rounds; i++) {
    pins.keepEvent('bench', {version: 2000 + i, type: i % 10 ? 'called' : 'cards_dealt',
                             hash: (i % 16).toString(16).repeat(64)});
    pins.keepView('bench', view, 7);
  }
  const perFrame = (performance.now() - start) / rounds * 1000;
  return {perFrame, bytes: localStorage['svara:pins:bench'].length};
}"""

VERIFY_JS = """async (docs) => {
  const fair = await import('/js/fair.js');
  const out = [];
  for (const doc of docs) {
    const start = performance.now();
    const result = await fair.verifyExport(doc);
    out.push({ms: performance.now() - start, ok: result.ok, deals: result.deals.length,
              events: doc.events.length});
  }
  return out;
}"""


async def exports(hands: int) -> list[dict[str, Any]]:
    clock = FakeClock()
    service = TableService(open_store(None), clock=clock, namespace="bench:",
                           think_seconds=0.0, poll_seconds=0.01, rescan_seconds=0.05)
    users = make_users(3)
    table_id = await seated_table(service, users)
    await service.set_client_seed(users[0], table_id, "alice-seed")
    await service.set_client_seed(users[2], table_id, "7f3a")
    await play_hands(service, clock, table_id, users, hands=hands + 1, rng=random.Random(1))
    out = [await service.export(table_id, n) for n in range(1, hands + 1)]
    await service.stop()
    return out


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--hands", type=int, default=3)
    args = parser.parse_args()
    docs = await exports(args.hands)
    async with fair_page("bench", timeout_ms=120_000) as page:
        frames = await page.evaluate(FRAMES_JS, args.rounds)
        checks = await page.evaluate(VERIFY_JS, json.loads(json.dumps(docs)))
    print(f"pins.js per frame (keepEvent + keepView, 30 hands kept, {frames['bytes']} bytes "
          f"stored): {frames['perFrame']:.0f} us over {args.rounds} frames")
    for c in checks:
        print(f"verifyExport: {c['ms']:.1f} ms for {c['events']} events, {c['deals']} deal(s), "
              f"ok={c['ok']}")
    print(f"verifyExport median: {statistics.median(c['ms'] for c in checks):.1f} ms")


if __name__ == "__main__":
    asyncio.run(main())
