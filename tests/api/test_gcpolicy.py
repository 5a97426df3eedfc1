"""The collector's `calm` schedule of `svara serve` (service/api/gcpolicy.py): a burst of long-lived
objects (a reconnect storm's sockets) sets off no middle or full collection while the loop is
busy; they are frozen instead, and collected in full once the loop is calm."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

from service.api import gcpolicy
from tests.support.waiting import eventually


class Node:
    """A socket's objects in miniature: a cycle, so only the collector can free it."""

    def __init__(self) -> None:
        self.me = self
        self.payload: list[Any] = [[], [], []]


@pytest.fixture
def collections(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    monkeypatch.setenv("SVARA_GC_TUNING", "calm")
    monkeypatch.setattr(gcpolicy, "TICK", 0.02)
    monkeypatch.setattr(gcpolicy, "CALM_LAG", 0.05)
    seen: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    threshold = gc.get_threshold()
    gc.callbacks.append(count)
    yield seen
    gc.callbacks.remove(count)
    if gcpolicy._time_collections in gc.callbacks:
        gc.callbacks.remove(gcpolicy._time_collections)
    gc.unfreeze()
    gc.set_threshold(*threshold)
    gc.collect()


def burst(growth: float, at_least: int = 0) -> list[Node]:
    """Enough nodes to grow the frozen heap by `growth` (and to make `at_least` objects)."""
    before = len(gc.get_objects())
    sample = [Node() for _ in range(1000)]
    each = (len(gc.get_objects()) - before - 1) / len(sample)
    n = int(max(growth * gc.get_freeze_count(), at_least) / each)
    return sample + [Node() for _ in range(n)]


async def test_a_burst_is_frozen_not_walked_and_collected_when_calm(
        collections: list[int]) -> None:
    task = gcpolicy.install()
    assert task is not None
    try:
        frozen = gc.get_freeze_count()
        collections.clear()
        # The storm: a quarter of a million objects that stay, made in one turn of the loop
        # (Python's own schedule ran middle collections over them, and a full one).
        kept = burst(0.8, at_least=400_000)  # 40 young collections' worth
        assert 0 in collections  # young collections still run by themselves
        assert 1 not in collections and 2 not in collections
        # frozen, not walked
        await eventually(lambda: gc.get_freeze_count() > 1.6 * frozen, 20, every=0.01)
        # The sockets close: their cycles are garbage that only a full collection frees,
        # which comes once the frozen heap has grown by half again and the loop is calm.
        closed = weakref.ref(kept[-1])
        del kept
        more = burst(0.8)
        await eventually(lambda: closed() is None, 20, every=0.01)
        assert 2 in collections and more
    finally:
        task.cancel()


async def test_a_busy_loop_defers_the_full_collection(collections: list[int]) -> None:
    task = gcpolicy.install()
    assert task is not None
    try:
        collections.clear()
        kept = burst(0.8)
        await asyncio.sleep(0)
        for _ in range(10):  # the loop busy: every tick late, so no full collection
            busy_until = asyncio.get_running_loop().time() + 0.1
            while asyncio.get_running_loop().time() < busy_until:
                pass
            await asyncio.sleep(0)
        assert 2 not in collections and 1 not in collections
        assert kept
    finally:
        task.cancel()
