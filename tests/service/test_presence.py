"""`Presence` writes what arrives together in one batch (a reconnect storm's opens and closes
are a few pipelines), and each caller still returns only once its own change is stored."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence

from events.store.base import StoreUnavailable
from events.store.factory import open_store
from events.store.kv import KeyValue, key_value_of
from service.tables.presence import Presence


class Recorded:
    """The embedded key-value store, recording each batch and failing on demand."""

    def __init__(self, kv: KeyValue) -> None:
        self.kv = kv
        self.batches: list[tuple[int, int]] = []
        self.fail_next = False

    async def change_members(
        self, adds: Sequence[tuple[str, str, float]], removes: Sequence[tuple[str, str]],
        *, now: float | None = None,
    ) -> None:
        self.batches.append((len(adds), len(removes)))
        await asyncio.sleep(0.01)  # a round trip: what arrives meanwhile makes the next batch
        if self.fail_next:
            self.fail_next = False
            raise StoreUnavailable("key-value store unreachable: test")
        await self.kv.change_members(adds, removes, now=now)

    def __getattr__(self, name: str) -> object:
        return getattr(self.kv, name)


async def test_opens_and_closes_that_arrive_together_are_written_together() -> None:
    store = open_store(None)
    kv = Recorded(key_value_of(store))
    presence = Presence(kv, namespace="p:")  # type: ignore[arg-type]
    looking = Presence(key_value_of(store), namespace="p:")
    try:
        tokens = await asyncio.gather(*(presence.opened("t1", u) for u in range(500)))
        assert len(set(tokens)) == 500
        assert sum(a for a, _ in kv.batches) == 500 and len(kv.batches) <= 3
        for user in (0, 250, 499):  # stored when `opened` returned
            assert await looking.watching("t1", user)
        kv.batches.clear()
        await asyncio.gather(*(presence.closed(t) for t in tokens[:400]),
                             presence.opened("t2", 7))
        assert sum(r for _, r in kv.batches) == 400 and len(kv.batches) <= 3
        assert not await looking.watching("t1", 0) and await looking.watching("t1", 400)
        assert await looking.watching("t2", 7)

        # A failed batch fails each of its callers; the next batch is written as usual.
        kv.fail_next = True
        failed = await asyncio.gather(*(presence.opened("t3", u) for u in range(3)),
                                      return_exceptions=True)
        assert all(isinstance(f, StoreUnavailable) for f in failed)
        assert await presence.opened("t3", 9) and await looking.watching("t3", 9)
        assert not any(await asyncio.gather(*(looking.watching("t3", u) for u in range(3))))

        # A caller cancelled while it waits leaves the batch to the others.
        waiting = [asyncio.create_task(presence.opened("t4", u)) for u in range(5)]
        await asyncio.sleep(0)
        waiting[0].cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
        assert all(await asyncio.gather(*(looking.watching("t4", u) for u in range(1, 5))))
        await presence.closed(await presence.opened("t5", 1))  # a batch after the take-back
        assert not await looking.watching("t4", 0)  # nobody holds that token: taken back
        assert len(presence._open) == 100 + 1 + 1 + 4  # t1, t2, t3 and t4 still open

        # The refresh moves every open socket's expiry in batches too.
        kv.batches.clear()
        await presence.refresh(batch=300)
        assert [a for a, _ in kv.batches] == [106]
        kv.batches.clear()
        await presence.refresh(batch=50)
        assert [a for a, _ in kv.batches] == [50, 50, 6]
    finally:
        await store.close()


async def test_a_member_without_expiry_is_kept_until_removed() -> None:
    store = open_store(None)
    kv = key_value_of(store)
    try:
        await kv.change_members([("p:forever", "m", math.inf)], [])
        assert await kv.members("p:forever", 10**12) == ["m"]
        await kv.change_members([], [("p:forever", "m")])
        assert await kv.members("p:forever", 0) == []
    finally:
        await store.close()
