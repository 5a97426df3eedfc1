"""Waiting on a condition instead of sleeping a fixed time: checked every `every` seconds, up
to `seconds / every` times, failing the test with what was last seen."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any


async def eventually(check: Callable[[], Awaitable[Any] | Any], seconds: float = 10.0, *,
                     every: float = 0.02) -> Any:
    """Call `check` (sync or async) until it returns something truthy, and return that."""
    value: Any = None
    for _ in range(max(1, int(seconds / every))):
        value = check()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        await asyncio.sleep(every)
    raise AssertionError(f"condition not reached within {seconds} s (last {value!r}): {check}")
