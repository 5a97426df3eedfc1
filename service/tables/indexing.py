"""The upkeep of the lobby, wake and transfer indexes beside the streams.

Every append writes its own index changes atomically with its events (`changes`, the repo's
indexer); what this adds is for the indexes as a whole: building them once for what predates
them (`ensure`: the legacy directories, or the v1 lobby's unranked members), rebuilding them
from the streams (`rebuild`, for an index lost or damaged by hand), and writing one table's or
one wallet's entries from its state (`table`, `wallet`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from events.store.base import EventStore, IndexOp, StoreUnavailable
from events.wallet import decode_wallet_event
from service.game import wallet
from service.game.state import TableState
from service.tables import guards
from service.tables.bank import DirectoryReader
from service.tables.directory import TableListed, WalletOpened
from service.tables.driver import Driver
from service.tables.facade import ServiceError
from service.tables.index import full_changes, table_changes
from service.tables.lobby import unranked_tables
from service.tables.repo import TableRepo
from service.tables.streams import Streams
from service.tables.transfers import Transfers, transfer_mark

log = logging.getLogger(__name__)

INDEX_VERSION = "v2"  # the index layout this code writes (v2: ranked lobby members)


class Indexes:
    def __init__(
        self,
        store: EventStore,
        streams: Streams,
        repo: TableRepo,
        driver: Driver,
        transfers: Transfers,
        *,
        clock: Callable[[], float],
    ) -> None:
        self.store = store
        self.streams = streams
        self.repo = repo
        # what else is rebuilt with a table's index entries (the hands index beside it)
        self.also: list[Callable[[str], Awaitable[object]]] = []
        self.driver = driver
        self.clock = clock
        self.transfers = transfers

    def changes(
        self, table_id: str, before: TableState | None, after: TableState, version: int
    ) -> list[IndexOp]:
        """What an append to the table changes in the lobby and wake indexes (written with
        the events, atomically: `service.tables.index`)."""
        wake, changed = self.driver.wake_change(table_id, before, version, after)
        return table_changes(
            self.streams.lobby, self.streams.wake, table_id, before, after, wake,
            wake_changed=changed,
        )

    async def ready(self, stopping: asyncio.Event) -> None:
        """`ensure`, retried until the store answers (it must not hold up a start)."""
        while not stopping.is_set():
            try:
                await self.ensure()
                return
            except (ServiceError, StoreUnavailable) as error:  # down or busy: again shortly
                log.warning("building the table indexes failed (%s); retrying", error)
            except Exception:
                log.exception("building the table indexes failed; retrying")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(5.0):
                    await stopping.wait()

    async def ensure(self) -> int:
        """Once per namespace: index what was created before the indexes existed (the tables
        and wallets of the old directory streams), or, where the v1 indexes exist, rank the
        lobby entries they wrote. Every table created since is indexed by its own appends.
        Returns how many streams it indexed."""
        meta = self.streams.index_meta
        versions = {m for m, _ in await self.store.marked(meta)}
        if INDEX_VERSION in versions:
            return 0
        done = 0
        if "v1" in versions:  # the directories are indexed: only the lobby's members change
            for table_id in await unranked_tables(self.store, self.streams.lobby):
                done += await self.table(table_id)
        else:
            for entry in await DirectoryReader(self.store, self.streams.tables).refresh():
                if isinstance(entry, TableListed):
                    done += await self.table(entry.table_id)
            for entry in await DirectoryReader(self.store, self.streams.wallets).refresh():
                if isinstance(entry, WalletOpened):
                    done += await self.wallet(entry.user_id)
        await self.store.mark(meta, INDEX_VERSION, self.clock())
        if done:
            log.info("indexed %d tables and wallets from before the indexes", done)
        return done

    async def rebuild(self) -> int:
        """Rebuild every index entry from the streams themselves (a keyspace scan): for an
        index lost or damaged by hand. Safe while the service runs: each entry is written
        only if its stream is still at the version it was computed from (else recomputed)."""
        done = 0
        table_prefix = self.streams.table("")
        async for stream in self.store.stream_names(table_prefix):
            done += await self.table(stream[len(table_prefix) :])
        wallet_prefix = self.streams.wallet(0)[:-1]
        async for stream in self.store.stream_names(wallet_prefix):
            user = stream[len(wallet_prefix) :]
            if user.lstrip("-").isdigit():
                done += await self.wallet(int(user))
        await self.store.mark(self.streams.index_meta, INDEX_VERSION, self.clock())
        return done

    async def table(self, table_id: str) -> int:
        """Write the table's lobby and wake entries from its state (1 if it has any)."""
        if not guards.TABLE_ID.match(table_id):
            return 0
        stream = self.streams.table(table_id)
        if not self.store.indexable(stream):
            log.warning("table %s cannot be indexed on this Cluster (its slot)", table_id)
            return 0
        for _ in range(50):
            loaded = await self.repo.load(table_id)
            if loaded.state is None:
                return 0
            wake = self.driver.wake_for(table_id, loaded.version, loaded.state)
            changes = full_changes(
                self.streams.lobby, self.streams.wake, table_id, loaded.state, wake
            )
            if await self.store.set_index(
                stream, expected_version=loaded.version, changes=changes
            ):
                for rebuild in self.also:
                    await rebuild(table_id)
                return 1
        raise ServiceError(503, "busy", f"table {table_id} kept moving while it was indexed")

    async def wallet(self, user_id: int) -> int:
        """Mark the wallet's transfers in flight (1 if it has any)."""
        stored = await self.store.read(self.streams.wallet(user_id))
        state = wallet.fold(decode_wallet_event(e.data) for e in stored)
        pending = {
            **{t: r.expires_at - self.transfers.ttl for t, r in state.reserved.items()},
            **{t: p.requested_at for t, p in state.leaving.items()},
        }
        for transfer_id, since in pending.items():
            await self.store.mark(self.streams.transfers, transfer_mark(user_id, transfer_id),
                                  since)
        return 1 if pending else 0
