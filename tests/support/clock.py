"""A clock the test moves by hand, for TableServices and everything else that takes `clock`."""

from __future__ import annotations

START = 1_800_000_000.0


class FakeClock:
    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
