"""The event-loop lag probe records a loop held by a blocking call as that call's length."""

from __future__ import annotations

import asyncio
import time

from service import metrics
from service.api import looplag


def _lag(name: str) -> float:
    value = metrics.REGISTRY.get_sample_value(f"svara_event_loop_lag_seconds_{name}")
    return value or 0.0


async def test_a_blocked_loop_shows_as_lag() -> None:
    before_sum = _lag("sum")
    task = asyncio.create_task(looplag.measure(period=0.02))
    try:
        await asyncio.sleep(0.05)  # the probe is asleep, due 0.02 s after it asked
        time.sleep(0.3)  # noqa: ASYNC251  (holds the loop: the probe cannot wake meanwhile)
        await asyncio.sleep(0.05)  # it wakes now, late
    finally:
        task.cancel()
    assert _lag("sum") - before_sum >= 0.25
    slow = metrics.REGISTRY.get_sample_value("svara_event_loop_lag_seconds_bucket", {"le": "0.1"})
    assert slow is not None and _lag("count") - slow >= 1  # one wake-up was 0.1 s late or more
