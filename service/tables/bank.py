"""Wallet streams: load (cached fold + tail), decide a command with the pure wallet decider
(`service.game.wallet`), append with the expected version, and open a wallet (the starting
grant) on first sight. No shared stream is
written on the way: the reconciler finds wallets through their transfer marks."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from events.store.base import EventStore
from events.wallet import AnyWalletEvent, decode_wallet_event, encode_wallet_event
from service.game import wallet
from service.tables.directory import AnyEntry, decode_entry
from service.tables.facade import ServiceError
from service.tables.streams import Streams

WalletDecision = Callable[[wallet.WalletState], list[AnyWalletEvent]]


class DirectoryReader:
    """Reads a directory stream incrementally (a cursor), remembering every entry seen. The
    directories are no longer written (the indexes replaced them); this reads what a
    deployment from before them holds, once, to index it (`TableService.ensure_indexes`)."""

    def __init__(self, store: EventStore, stream: str) -> None:
        self.store = store
        self.stream = stream
        self.cursor = 0
        self.entries: list[AnyEntry] = []

    async def refresh(self) -> list[AnyEntry]:
        stored = await self.store.read(self.stream, after=self.cursor)
        for item in stored:
            entry = decode_entry(item.data)
            if entry is not None:
                self.entries.append(entry)
            self.cursor = item.version
        return self.entries


class Bank:
    def __init__(
        self,
        store: EventStore,
        streams: Streams,
        *,
        clock: Callable[[], float],
        starting_grant: int,
        daily_topup: int,
        cache_size: int = 16384,
    ) -> None:
        self.store = store
        self.streams = streams
        self.clock = clock
        self.starting_grant = starting_grant
        self.daily_topup = daily_topup
        self.cache_size = cache_size
        self._cache: OrderedDict[int, tuple[int, wallet.WalletState]] = OrderedDict()

    async def load(self, user_id: int) -> tuple[int, wallet.WalletState]:
        version, state = self._cache.get(user_id, (0, wallet.EMPTY))
        tail = await self.store.read(self.streams.wallet(user_id), after=version)
        if tail:
            state = wallet.fold((decode_wallet_event(e.data) for e in tail), state)
            version = tail[-1].version
            self._remember(user_id, version, state)
        return version, state

    def _remember(self, user_id: int, version: int, state: wallet.WalletState) -> None:
        current = self._cache.get(user_id)
        if current is None or current[0] <= version:
            self._cache[user_id] = (version, state)
        self._cache.move_to_end(user_id)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    async def update(self, user_id: int, decision: WalletDecision) -> wallet.WalletState:
        """Apply `decision` to the latest wallet state; retry on a concurrent change.

        GameError from the decision propagates; no events means nothing to do."""
        stream = self.streams.wallet(user_id)
        for _ in range(50):
            version, state = await self.load(user_id)
            events = decision(state)
            if not events:
                return state
            result = await self.store.append(
                stream,
                [encode_wallet_event(e) for e in events],
                expected_version=version,
                at=self.clock(),
            )
            if result.status == "appended":
                state = wallet.fold(events, state)
                self._remember(user_id, result.version, state)
                return state
        raise ServiceError(503, "busy", "the wallet is too busy right now; try again")

    async def execute(self, user_id: int, command: wallet.AnyWalletCommand) -> wallet.WalletState:
        """Load, decide `command` (`service.game.wallet.decide`), append; as `update`."""
        return await self.update(user_id, lambda s: wallet.decide(s, command))

    async def open(self, user_id: int, *, grant: int | None = None) -> wallet.WalletState:
        """The wallet, granted its start on first sight and topped up once a day when dry."""
        _, state = await self.load(user_id)
        now = self.clock()
        if not state.opened:
            amount = self.starting_grant if grant is None else grant
            state = await self.execute(
                user_id, wallet.GrantChips(reason="start", amount=amount, now=now)
            )
        return await self.execute(
            user_id, wallet.GrantChips(reason="daily_topup", amount=self.daily_topup, now=now)
        )
