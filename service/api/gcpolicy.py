"""When `svara serve` lets the cyclic garbage collector walk its heap, and what that costs.

Python's own schedule collects the middle generation every 20 young collections and the whole
heap when it grew by a quarter. A reconnect storm allocates thousands of sockets' objects in a
second: they survive the young collections, so middle collections (walking everything that
survived since the last one: 70-310 ms with 2,000 new sockets on the development machines)
and a full one (200-560 ms) fell inside the storm, and every player's action waited for them
(docs/PERFORMANCE.md, "Reconnect storm").

`SVARA_GC_TUNING`:
- `1` (the default): at start, everything alive (modules, the app) is frozen out of the
  collector's sight, and young collections run every 10 000 allocations instead of 700 (a
  request allocates hundreds of short-lived, acyclic objects; collecting them every 700 cost
  a few percent of CPU); middle and full collections by Python's own schedule (every 20).
- `0`: Python's defaults.
- `calm`: as `1`, and no middle or full collection runs by itself. Once a second whatever
  survived the young collections is frozen too (`gc.freeze()`, which walks nothing):
  long-lived objects (open sockets, tables) stop costing anything. What is frozen is
  collected in full (unfreeze, collect, freeze) once it has grown by half since the last
  full collection, at a calm moment: the event loop has answered its
  ticks on time for the last few seconds. It is not calm during a storm, so that collection
  comes after it; past `FORCE_GROWTH` it runs whatever the loop is doing. Cyclic garbage
  among frozen objects (a closed socket's) waits for that collection: memory stays within
  the growth allowed, as with Python's own schedule. Not the default: on the loaded shared
  machine of its measurement a storm went no better with it (docs/PERFORMANCE.md,
  "Reconnect storm"), and a full collection walks what was frozen at start too.

`svara_gc_pause_seconds{generation}` times every collection (0 young, 1 middle, 2 full).
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
from typing import Any

from service import metrics

YOUNG = 10_000
NEVER = 1 << 30  # a middle or full collection by Python's own schedule
TICK = 0.5  # seconds between looks
CALM_LAG = 0.02  # a tick later than this means the loop is busy
CALM_TICKS = 4  # on-time ticks in a row that make a calm moment
FULL_GROWTH = 1.5  # frozen objects grown by this much since the last full collection
FORCE_GROWTH = 3.0  # ... or by this much: collect whatever the loop is doing
FREEZE_EVERY = 2  # ticks between freezes

_started: dict[int, float] = {}


def _time_collections(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _started[0] = time.perf_counter()
    elif 0 in _started:
        metrics.gc_pause(info["generation"], time.perf_counter() - _started.pop(0))


def install() -> asyncio.Task[None] | None:
    """Time every collection and tune the collector; with `calm`, take over its schedule (a
    task on the running loop, returned so its owner can keep it alive and cancel it)."""
    if _time_collections not in gc.callbacks:
        gc.callbacks.append(_time_collections)
    mode = os.environ.get("SVARA_GC_TUNING", "1").strip()
    if mode == "0":
        return None
    gc.collect()
    gc.freeze()
    if mode != "calm":
        gc.set_threshold(YOUNG, 20, 20)
        return None
    gc.set_threshold(YOUNG, NEVER, NEVER)
    return asyncio.get_running_loop().create_task(_schedule(), name="svara-gc")


async def _schedule() -> None:
    loop = asyncio.get_running_loop()
    base = max(1, gc.get_freeze_count())  # what a full collection measures growth against
    calm = ticks = 0
    while True:
        expected = loop.time() + TICK
        await asyncio.sleep(TICK)
        calm = calm + 1 if loop.time() - expected < CALM_LAG else 0
        ticks += 1
        if ticks % FREEZE_EVERY == 0:
            gc.freeze()  # the young collections' survivors: no collection walks them now
        grown = gc.get_freeze_count() / base
        if grown >= FORCE_GROWTH or (grown >= FULL_GROWTH and calm >= CALM_TICKS):
            gc.unfreeze()
            gc.collect()
            gc.freeze()
            base = max(1, gc.get_freeze_count())
            calm = 0
