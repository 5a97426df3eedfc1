"""Per-user token buckets: a burst is fine, a flood gets 429 (and costs the server nothing)."""

from __future__ import annotations

import time
from collections.abc import Callable


class RateLimiter:
    """`rate` tokens per second, at most `burst` saved up, one bucket per user id.

    In-process on purpose: each replica limits what reaches it, which bounds any one user's
    load on Redis without a round trip per request.
    """

    def __init__(
        self, rate: float, burst: int, *, clock: Callable[[], float] = time.monotonic,
        max_users: int = 100_000,
    ) -> None:
        self.rate = rate
        self.burst = float(burst)
        self._clock = clock
        self._max_users = max_users
        self._buckets: dict[int, tuple[float, float]] = {}  # user -> (tokens, at)

    def allow(self, user_id: int) -> bool:
        """Take one token for this user; False when the bucket is empty."""
        now = self._clock()
        tokens, at = self._buckets.get(user_id, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        if tokens < 1.0:
            self._buckets[user_id] = (tokens, now)
            return False
        if len(self._buckets) >= self._max_users and user_id not in self._buckets:
            self._forget_full(now)
        self._buckets[user_id] = (tokens - 1.0, now)
        return True

    def retry_after(self, user_id: int) -> float:
        tokens, _ = self._buckets.get(user_id, (self.burst, 0.0))
        return max(0.0, (1.0 - tokens) / self.rate)

    def _forget_full(self, now: float) -> None:
        """Drop buckets that have refilled: they behave exactly like a new user's."""
        rate, burst = self.rate, self.burst
        full = [u for u, (t, at) in self._buckets.items() if t + (now - at) * rate >= burst]
        for user in full:
            del self._buckets[user]
