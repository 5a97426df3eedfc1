"""Hand lines and a table's run of hands for the stats counters' tests (`Counters.apply`
called directly, as the projector would)."""

from __future__ import annotations

from service.game.stats import WIN_UNIT, HandLine
from service.tables.stats.counters import Counters


def line(user: int, net: int, *, won: bool = False, best: int = 0) -> HandLine:
    return HandLine(user_id=user, name=f"P{user}", won=WIN_UNIT if won else 0, net=net,
                    pot=max(net, 0) if won else 0, svaras=0, svaras_won=0, best=best)


class Table:
    """Hands of one table, applied in order (the checkpoint each expects is the last one)."""

    def __init__(self, counters: Counters, table_id: str = "t1") -> None:
        self.counters, self.table_id, self.hand = counters, table_id, 0

    async def hand_of(self, at: float, *lines: HandLine, group: int | None = None,
                      chips: bool = True) -> int:  # fmt: skip
        cp = (self.hand * 10, self.hand) if self.hand else (0, 0)
        self.hand += 1
        return await self.counters.apply("0", self.table_id, cp, (self.hand * 10, self.hand),
                                         lines, at=at, group=group, chips=chips)
