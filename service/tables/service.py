"""`TableService`: the application layer behind the API and the bot (`facade.Tables`).

A facade over small collaborators, each given what it needs: the one command path (`repo`),
wallets (`bank`), two-step transfers (`transfers`), the commands that move no chips
(`actions`), seats and rebuys (`seats`), practice bots (`practice`), reads (`reads`), the
indexes' upkeep (`indexing`) and the background workers with the reconciler (`lifecycle`,
`driver`). Every public method turns refusals into `ServiceError` and nothing else; each
checks its arguments with `guards` first.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from functools import partial

from events.store.base import EventStore
from events.store.kv import KeyValue, key_value_of
from service.game import wallet
from service.game.settings import TableSettings
from service.game.state import TableState
from service.tables import guards
from service.tables.accounts import me_answer
from service.tables.actions import Actions
from service.tables.bank import Bank
from service.tables.driver import Driver
from service.tables.errors import service_errors
from service.tables.facade import JSON, FeedSink, Tables, User
from service.tables.hand_records import HandRecords
from service.tables.indexing import Indexes
from service.tables.lifecycle import Workers
from service.tables.live import Feeds
from service.tables.lobby import LOBBY_PAGE, lobby_page
from service.tables.practice import PracticeBots
from service.tables.presence import Presence
from service.tables.profiles import (
    Profile,
    Profiles,
    block_bot,
    grant_writes,
    set_preferences,
    start_bot,
)
from service.tables.reads import Reads
from service.tables.repo import TableObserver, TableRepo
from service.tables.seats import Seats
from service.tables.social import Social, checked_name
from service.tables.stats.hub import Stats
from service.tables.streams import Streams
from service.tables.tombstones import archived_errors, tombstones_of
from service.tables.tournaments_service import Tournaments
from service.tables.transfers import Transfers


class TableService:
    def __init__(
        self,
        store: EventStore,
        *,
        clock: Callable[[], float] = time.time,
        seeds: Callable[[int], bytes] = secrets.token_bytes,
        starting_grant: int = 1000,
        daily_topup: int | None = None,
        namespace: str = "",
        think_seconds: float = 1.0,
        poll_seconds: float = 0.5,
        reconcile_seconds: float = 15.0,
        transfer_ttl: float = 60.0,
        transfer_grace: float = 60.0,
        snapshot_every: int = 200,
        bots_play_alone: bool = False,
        kv: KeyValue | None = None,
        presence_ttl: float = 60.0,
        idle_close_seconds: float = 0.0,  # a new table's idle limit (0: the rule's day)
    ) -> None:
        self.idle_close_seconds = idle_close_seconds
        self.store = store
        # Operational state beside the log (presence, the bot's dedup marks): never facts.
        self.kv = kv if kv is not None else key_value_of(store)
        self.presence = Presence(self.kv, namespace=namespace, ttl=presence_ttl, clock=clock)
        self.clock = clock
        self.streams = Streams(namespace)
        self._seeds = seeds
        self.repo = TableRepo(store, self.streams, snapshot_every=snapshot_every)
        self.bank = Bank(
            store,
            self.streams,
            clock=clock,
            starting_grant=starting_grant,
            daily_topup=starting_grant if daily_topup is None else daily_topup,
        )
        self.transfers = Transfers(
            self.repo,
            self.bank,
            clock=clock,
            seeds=self.seed,
            ttl=transfer_ttl,
            grace=transfer_grace,
        )
        self.profiles = Profiles(store, self.streams)
        self.actions = Actions(
            store, self.repo, clock=clock, seed=self.seed, idle_close_seconds=idle_close_seconds
        )
        self.seats = Seats(self.repo, self.bank, self.transfers)
        self.practice = PracticeBots(self.repo, self.bank, self.transfers, self.actions,
                                     clock=clock)
        self.driver = Driver(
            self.repo,
            store,
            clock=clock,
            seeds=self.seed,
            bot_act=self.practice.act,
            bot_rebuy=self.practice.rebuy,
            bots_play_alone=bots_play_alone,
            think_seconds=think_seconds,
            poll_seconds=poll_seconds,
        )
        self.indexes = Indexes(store, self.streams, self.repo, self.driver, self.transfers,
                               clock=clock)
        self.repo.hooks.append(lambda t, v, s: self.driver.notice(t, v, s))
        self.repo.indexer = self.indexes.changes
        self.tombstones = tombstones_of(store, namespace)  # archived tables (410, not 404)
        self._gone = partial(archived_errors, self.tombstones)
        self.records = HandRecords(store, self.streams, self.repo, self.profile, self.tombstones)
        self.repo.hand_indexer = self.records.batch_changes
        self.indexes.also.append(self.records.reindex)  # where each hand lies, who played it
        self.feeds = Feeds(store, self.repo, self.streams.table)
        self.tournaments = Tournaments(self, poll_seconds=poll_seconds)
        self.reads = Reads(store, self.streams, self.repo, self.feeds)
        self.stats = Stats(store, self.streams, clock=clock)  # docs/ARCHITECTURE.md
        self.repo.hooks.append(self.stats.changed)
        self.workers = Workers(
            store,
            self.streams,
            driver=self.driver,
            transfers=self.transfers,
            indexes=self.indexes,
            presence=self.presence,
            feeds=self.feeds,
            reconcile_seconds=reconcile_seconds,
            also=[self.tournaments.run, self.stats.projector.run],
        )
        self._state = partial(guards.state_of, self.repo)  # 404 for an unknown table
        self.social = Social(store, self.streams, self._state, clock, self.presence)
        self.repo.hooks.append(self.social.changed)

    def seed(self) -> bytes:
        return self._seeds(32)

    # -- lifecycle (`lifecycle.Workers`) and the indexes (`indexing.Indexes`) -----------------

    async def start(self) -> None:
        """Launch this process's timer/practice-bot worker and the transfer reconciler."""
        await self.workers.start()

    async def stop(self) -> None:
        """Stop the workers (a stop flag first, then cancellation: `Workers.stop`)."""
        await self.workers.stop()

    async def reconcile(self, *, until: asyncio.Event | None = None) -> int:
        """One reconciler pass over the wallets with transfers in flight (`Workers`)."""
        return await self.workers.reconcile(until=until)

    async def ensure_indexes(self) -> int:
        """Once per namespace, index what predates the indexes (`Indexes.ensure`)."""
        return await self.indexes.ensure()

    async def rebuild_indexes(self) -> int:
        """Rebuild every index entry from the streams (`Indexes.rebuild`)."""
        return await self.indexes.rebuild()

    # -- tables -------------------------------------------------------------------------------

    async def create_table(
        self, user: User, settings: TableSettings, *, practice_bots: int = 0,
        name: str | None = None, private: bool = False, group_chat_id: int | None = None,
    ) -> str:
        async with service_errors():
            table_id = await self.actions.create(
                user, settings, practice_bots=practice_bots, name=checked_name(name),
                private=bool(private), group_chat_id=group_chat_id,
            )
            for index in range(practice_bots):
                await self.add_practice_bot(table_id, index, settings)
            return table_id

    async def add_practice_bot(self, table_id: str, index: int, settings: TableSettings) -> int:
        """Seat practice bot `index`, funded through its own wallet. Returns its user id."""
        return await self.practice.add(table_id, index, settings)

    async def list_tables(self, *, limit: int = LOBBY_PAGE, cursor: str | None = None) -> JSON:
        """A page of the lobby (every table not closed), live tables first: the order and
        what paging guarantees are `service.tables.lobby`'s."""
        async with service_errors():
            page = await lobby_page(self.store, self.streams.lobby, limit=limit, cursor=cursor)
            return await self.social.with_photos(page)

    async def me(self, user: User) -> JSON:
        async with service_errors():
            state = await self.bank.open(user.id)
            profile = await self.profiles.get(user.id)
            return self._me(user, state, profile)

    def _me(self, user: User, state: wallet.WalletState, profile: Profile) -> JSON:
        return me_answer(user, state, profile, daily_topup=self.bank.daily_topup,
                         now=self.clock())

    async def set_preferences(
        self, user: User, *, language: str | None = None, pings: bool | None = None
    ) -> JSON:
        async with service_errors():
            profile = await self.profiles.update(
                user.id, lambda p: set_preferences(p, language=language, pings=pings)
            )
            state = await self.bank.open(user.id)
            return self._me(user, state, profile)

    async def profile(self, user_id: int) -> Profile:
        """A player's preferences (the bot reads them before it messages the player)."""
        async with service_errors():
            return await self.profiles.get(user_id)

    async def bot_started(self, user: User) -> Profile:
        """The player wrote to the bot in a private chat: the bot may write to them."""
        async with service_errors():
            return await self.profiles.update(
                user.id, lambda p: start_bot(p, user.language_code)
            )

    async def write_access(self, user: User, *, allowed: bool, explicit: bool) -> JSON:
        """Telegram said whether `user` lets the bot write to them; answers like `me`."""
        async with service_errors():
            profile = await self.profiles.update(
                user.id, lambda p: grant_writes(p, allowed=allowed, explicit=explicit)
            )
            return self._me(user, await self.bank.open(user.id), profile)

    async def bot_blocked(self, user_id: int) -> Profile:
        """Telegram says the player blocked the bot: write nothing until they start it."""
        async with service_errors():
            return await self.profiles.update(user_id, block_bot)

    # -- observing tables (the bot) -------------------------------------------------------------

    @property
    def observers(self) -> list[TableObserver]:
        """Callbacks told of every event this process appends or folds from a live feed, with
        the state after it (`TableRepo.observers`: synchronous, cheap, may repeat a version,
        other replicas may see the same event)."""
        return self.repo.observers

    async def state(self, table_id: str) -> tuple[int, TableState | None]:
        """A table's version and state, read through (the cache plus the store's tail)."""
        async with self._gone(table_id):
            return await self.reads.state(table_id)

    # -- a player's commands (`seats`, `actions`) ------------------------------------------------

    async def seat(
        self, user: User, table_id: str, buy_in: int, invite: str | None = None
    ) -> JSON:
        async with self._gone(table_id):
            await self.social.may_sit(user, table_id, await self._state(table_id), invite)
            await self.social.remember_photo(user)
            await self.seats.seat(user, table_id, buy_in)
            return await self.view(user, table_id, invite)

    async def rebuy(self, user: User, table_id: str, buy_in: int) -> JSON:
        """Buy in again at the same seat after losing the stack (below one ante): what is left
        goes back to the wallet and the new buy-in comes from it, in one request. Refused while
        the player is still in a hand, or still has chips to play with; a refused rebuy
        changes nothing (`Transfers.rebuy`)."""
        async with self._gone(table_id):
            await self.seats.rebuy(user, table_id, buy_in)
            return await self.view(user, table_id)

    async def set_client_seed(self, user: User, table_id: str, client_seed: str) -> JSON:
        """The caller's own seed for the deck (docs/FAIRNESS.md "Decks"): recorded as a
        public `client_seed_set` event, it counts from the next deal dealt after it. Answers
        the caller's view (which shows it)."""
        async with self._gone(table_id):
            await self.actions.set_client_seed(user, table_id, client_seed)
            return await self.view(user, table_id)

    async def leave(self, user: User, table_id: str) -> JSON:
        async with self._gone(table_id):
            _, state = await self.reads.state(table_id)
            if state is not None and state.tournament_id and state.seat_of(user.id) is not None:
                await self.tournaments.forfeit(user, table_id)  # tournament chips stay
            else:
                await self.seats.leave(user, table_id)
            return await self.view(user, table_id)

    async def act(
        self,
        user: User,
        table_id: str,
        *,
        action_id: str,
        type: str,
        amount: int | None = None,
        expected_version: int | None = None,
    ) -> int:
        # The hot path: `Actions.act` translates refusals itself (no context manager).
        return await self.actions.act(
            user, table_id, action_id=action_id, type=type, amount=amount,
            expected_version=expected_version,
        )

    # -- reading (`reads`) ------------------------------------------------------------------------

    async def version(self, table_id: str) -> int:
        """The table's version, for a socket's `ready`: what this process's live feed of the
        table has handed on when there is one (no read at all: a reconnect storm costs the
        store nothing for the tables the process follows), else one read of the stream's
        head. 404 for no such table."""
        async with self._gone(table_id):
            return await self.reads.version(table_id)

    async def view(self, user: User | None, table_id: str, invite: str | None = None) -> JSON:
        async with self._gone(table_id):
            await self.social.may_watch(user, table_id, await self._state(table_id), invite)
            return await self.reads.view(user, table_id)

    async def events(
        self, user: User | None, table_id: str, after: int, invite: str | None = None
    ) -> tuple[int, list[JSON]]:
        async with self._gone(table_id):
            guards.after(after)
            await self.social.may_watch(user, table_id, await self._state(table_id), invite)
            return await self.reads.events(user, table_id, after)

    async def watch(
        self,
        user: User | None,
        table_id: str,
        after: int,
        sink: FeedSink,
        *,
        views: bool = False,
        hold_limit: int = 1024,
        invite: str | None = None,
    ) -> None:
        """Projected events after `after`, then live ones, pushed: `sink.deliver(items)` gets
        consecutive `LiveEvent`s (catch-up pages, then every batch the process's feed reads), each
        projected, encoded and viewed once per process however many sockets watch the table.
        With `views`, the newest item of a delivery has its state when at hand. Runs until
        cancelled; raises what ends the feed (SubscriberTooSlow, ServiceError)."""
        async with self._gone(table_id):
            guards.after(after)
            # A followed table's cached state answers without a read (a reconnect storm costs
            # the store nothing); whether it is private never changes.
            cached = self.repo.cached(table_id) if self.feeds.position(table_id) else None
            state = (cached and cached.state) or await self._state(table_id)
            await self.social.may_watch(user, table_id, state, invite)
            await self.reads.watch(table_id, after, sink, views=views, hold_limit=hold_limit)

    async def hands(self, table_id: str, limit: int) -> list[JSON]:
        """The table's last `limit` (1-50) settled hands, newest first (`history`)."""
        async with self._gone(table_id):
            return await self.reads.hands(table_id, limit)

    async def audit(self, table_id: str, hand: int) -> JSON:
        async with self._gone(table_id):
            return await self.reads.audit(table_id, hand)

    async def export(self, table_id: str, hand: int) -> JSON:
        """A settled hand's file that `svara verify FILE` checks offline (`export`)."""
        async with self._gone(table_id):
            return await self.reads.export(table_id, hand)

    async def replay(self, user: User | None, table_id: str, hand: int) -> JSON:
        async with self._gone(table_id):
            return await self.records.replay(user, table_id, hand)

    async def transcript(
        self, user: User | None, table_id: str, hand: int, language: str | None = None
    ) -> str:
        async with self._gone(table_id):
            return await self.records.transcript(user, table_id, hand, language)

    async def my_hands(self, user: User, cursor: str | None, limit: int) -> JSON:
        async with service_errors():
            return await self.records.my_hands(user, cursor, limit)

    async def player_stats(self, user_id: int) -> JSON:
        async with service_errors():
            return await self.stats.reads.player(user_id)

    async def leaderboard(self, period: str, group: int | None, you: int | None) -> JSON:
        async with service_errors():
            return await self.stats.reads.board(period, group, you)


def _implements_the_facade(service: TableService) -> Tables:
    """Never called: makes mypy prove TableService satisfies the adapters' protocol."""
    return service
