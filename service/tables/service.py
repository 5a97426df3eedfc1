"""`TableService`: the application layer behind the API and the bot (`facade.Tables`).

It composes the one command path (`repo`), wallets (`bank`), two-step transfers with their
reconciler (`transfers`), the timer and practice-bot worker (`driver`) and the audit. Every
public method turns refusals into `ServiceError` and nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
import time
import uuid
from collections.abc import Callable
from typing import Any

from events.codec import decode_table_event, event_type
from events.store.base import EventStore, IndexOp, StoredEvent, StoreUnavailable
from events.store.kv import KeyValue, key_value_of
from events.table import TableEvent
from events.wallet import decode_wallet_event
from service import metrics
from service.game import wallet
from service.game.commands import CreateTable, SetClientSeed, command_for_action
from service.game.legal import verify_rebuy, verify_sit_down
from service.game.settings import TableSettings, validated
from service.game.state import TableState
from service.game.view import project_event
from service.game.view import view as table_view
from service.tables import bots
from service.tables.audit import audit_hand, export_hand
from service.tables.bank import Bank, DirectoryReader
from service.tables.directory import TableListed, WalletOpened
from service.tables.driver import Driver
from service.tables.errors import (
    TRANSLATED,
    as_service_error,
    bad_request,
    not_found,
    service_errors,
)
from service.tables.facade import JSON, FeedSink, ServiceError, Tables, User
from service.tables.history import MAX_LIMIT as MAX_HISTORY
from service.tables.history import recent_hands
from service.tables.index import full_changes, table_changes
from service.tables.live import Feeds
from service.tables.lobby import LOBBY_PAGE, lobby_page, unranked_tables
from service.tables.presence import Presence
from service.tables.profiles import (
    Profile,
    Profiles,
    block_bot,
    effective_language,
    set_preferences,
    start_bot,
)
from service.tables.repo import Loaded, TableObserver, TableRepo
from service.tables.social import Social, checked_name
from service.tables.streams import Streams
from service.tables.transfers import Transfers, parse_mark, transfer_mark

log = logging.getLogger(__name__)

MAX_ACTION_ID = 128
TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
CLIENT_SEED = re.compile(r"[A-Za-z0-9_-]{1,64}")
INDEX_VERSION = "v2"  # the index layout this code writes (v2: ranked lobby members)


# The highest version a reader may name (JavaScript's exact integers, as the API's `after`):
# past it, Redis refuses the stream id.
MAX_VERSION = 2**53 - 1


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_after(after: int) -> None:
    if not _is_int(after) or not 0 <= after <= MAX_VERSION:
        raise bad_request(f"after must be a version: a whole number from 0 to {MAX_VERSION}")


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
        self.driver = Driver(
            self.repo,
            store,
            clock=clock,
            seeds=self.seed,
            bot_act=self._bot_act,
            bot_rebuy=self._bot_rebuy,
            bots_play_alone=bots_play_alone,
            think_seconds=think_seconds,
            poll_seconds=poll_seconds,
        )
        self.repo.hooks.append(lambda t, v, s: self.driver.notice(t, v, s))
        self.repo.indexer = self._index_changes
        self.feeds = Feeds(store, self.repo, self.streams.table)
        self.social = Social(store, self.streams, self._state_of, clock)
        self.repo.hooks.append(self.social.changed)
        self.reconcile_seconds = reconcile_seconds
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = asyncio.Event()

    def seed(self) -> bytes:
        return self._seeds(32)

    # -- lifecycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Launch this process's timer/practice-bot worker and the transfer reconciler."""
        if self._tasks:
            return
        self._stopping.clear()
        self.driver.restart()
        self._tasks = [
            asyncio.create_task(self.driver.run(), name="svara-driver"),
            asyncio.create_task(self._reconcile_forever(), name="svara-reconciler"),
            asyncio.create_task(self._indexes_ready(), name="svara-indexes"),
            asyncio.create_task(self.presence.run(self._stopping), name="svara-presence"),
        ]

    async def stop(self) -> None:
        """Stop the workers: a stop flag first, then cancellation.

        The flag is what guarantees it: a cancellation can be swallowed on its way down (on
        Python 3.11 `asyncio.wait_for` -- which fakeredis uses for every reply -- returns the
        result instead of raising when the cancel lands just as the reply is ready), and a
        worker that only obeyed cancellation then went back to sleep and was awaited forever.
        """
        tasks, self._tasks = self._tasks, []
        self._stopping.set()
        self.feeds.close()
        self.driver.stop()
        for task in tasks:
            task.cancel()
        # gather, not `suppress(CancelledError): await task`: that would also swallow a
        # cancellation of stop() itself (e.g. a caller's timeout).
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.driver.drain()

    async def _reconcile_forever(self) -> None:
        while not self._stopping.is_set():
            try:
                await self.reconcile(until=self._stopping)
            except Exception:
                log.exception("reconciler pass failed")
            # Sleep on the stop flag, not asyncio.sleep: stop() wakes it even if the
            # cancellation meant for this task was swallowed during the pass above.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.reconcile_seconds):
                    await self._stopping.wait()

    async def reconcile(self, *, until: asyncio.Event | None = None) -> int:
        """One reconciler pass over the wallets with a transfer marked in flight (never every
        wallet): finish half-done transfers, forget the marks of finished ones. Returns how
        many transfers it finished."""
        marks: dict[int, list[tuple[str, float]]] = {}
        for member, marked_at in await self.store.marked(self.streams.transfers):
            parsed = parse_mark(member)
            if parsed is not None:
                marks.setdefault(parsed[0], []).append((parsed[1], marked_at))
        finished = 0
        for user_id, transfers in sorted(marks.items()):
            if until is not None and until.is_set():
                break  # stopping: the next process's reconciler finishes the rest
            try:
                finished += await self.transfers.reconcile_wallet(user_id)
                await self.transfers.forget_finished(user_id, transfers)
            except Exception:
                log.exception("reconciling the wallet of %s failed", user_id)
        return finished

    # -- the indexes beside the streams ------------------------------------------------------

    def _index_changes(
        self, table_id: str, before: TableState | None, after: TableState, version: int
    ) -> list[IndexOp]:
        """What an append to the table changes in the lobby and wake indexes (written with
        the events, atomically: `service.tables.index`)."""
        wake, changed = self.driver.wake_change(table_id, before, version, after)
        return table_changes(
            self.streams.lobby, self.streams.wake, table_id, before, after, wake,
            wake_changed=changed,
        )

    async def _indexes_ready(self) -> None:
        """`ensure_indexes`, retried until the store answers (it must not hold up a start)."""
        while not self._stopping.is_set():
            try:
                await self.ensure_indexes()
                return
            except (ServiceError, StoreUnavailable) as error:  # down or busy: again shortly
                log.warning("building the table indexes failed (%s); retrying", error)
            except Exception:
                log.exception("building the table indexes failed; retrying")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(5.0):
                    await self._stopping.wait()

    async def ensure_indexes(self) -> int:
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
                done += await self.reindex_table(table_id)
        else:
            for entry in await DirectoryReader(self.store, self.streams.tables).refresh():
                if isinstance(entry, TableListed):
                    done += await self.reindex_table(entry.table_id)
            for entry in await DirectoryReader(self.store, self.streams.wallets).refresh():
                if isinstance(entry, WalletOpened):
                    done += await self.reindex_wallet(entry.user_id)
        await self.store.mark(meta, INDEX_VERSION, self.clock())
        if done:
            log.info("indexed %d tables and wallets from before the indexes", done)
        return done

    async def rebuild_indexes(self) -> int:
        """Rebuild every index entry from the streams themselves (a keyspace scan): for an
        index lost or damaged by hand. Safe while the service runs: each entry is written
        only if its stream is still at the version it was computed from (else recomputed)."""
        done = 0
        table_prefix = self.streams.table("")
        async for stream in self.store.stream_names(table_prefix):
            done += await self.reindex_table(stream[len(table_prefix) :])
        wallet_prefix = self.streams.wallet(0)[:-1]
        async for stream in self.store.stream_names(wallet_prefix):
            user = stream[len(wallet_prefix) :]
            if user.lstrip("-").isdigit():
                done += await self.reindex_wallet(int(user))
        await self.store.mark(self.streams.index_meta, INDEX_VERSION, self.clock())
        return done

    async def reindex_table(self, table_id: str) -> int:
        """Write the table's lobby and wake entries from its state (1 if it has any)."""
        if not TABLE_ID.match(table_id):
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
                return 1
        raise ServiceError(503, "busy", f"table {table_id} kept moving while it was indexed")

    async def reindex_wallet(self, user_id: int) -> int:
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

    # -- tables -------------------------------------------------------------------------------

    async def create_table(
        self, user: User, settings: TableSettings, *, practice_bots: int = 0,
        name: str | None = None, private: bool = False,
    ) -> str:
        async with service_errors():
            validated(settings)
            recorded = checked_name(name)
            if not _is_int(practice_bots) or not 0 <= practice_bots < settings.max_seats:
                raise bad_request(f"practice_bots must be between 0 and {settings.max_seats - 1}")
            table_id = self._new_table_id()
            await self.repo.execute(
                table_id,
                lambda: CreateTable(
                    table_id=table_id,
                    settings=settings,
                    created_by=user.id,
                    now=self.clock(),
                    seed=self.seed(),
                    idle_close_seconds=self.idle_close_seconds,
                    name=recorded,
                    private=bool(private),
                ),
                action_id=f"create:{table_id}",
            )
            for index in range(practice_bots):
                await self.add_practice_bot(table_id, index, settings)
            return table_id

    def _new_table_id(self) -> str:
        """A fresh id whose stream can carry index entries (on a Cluster, about one random id
        in 256 lands in an index slot: see `events.store.keys`). Creating a table touches
        nothing shared: no directory, no version-checked append but the table's own."""
        while True:
            table_id = uuid.uuid4().hex[:16]
            if self.store.indexable(self.streams.table(table_id)):
                return table_id

    async def add_practice_bot(self, table_id: str, index: int, settings: TableSettings) -> int:
        """Seat practice bot `index`, funded through its own wallet. Returns its user id."""
        bot = User(id=bots.bot_user_id(table_id, index), name=bots.bot_name(index))
        await self._fund_and_seat(bot, table_id, settings)
        return bot.id

    async def _seed_bot(self, bot: User, table_id: str) -> None:
        """A practice bot's fixed client seed, set whenever it sits down."""
        await self.repo.execute(
            table_id,
            lambda: SetClientSeed(
                user_id=bot.id, client_seed=bots.bot_client_seed(bot.id), now=self.clock()
            ),
        )

    async def _fund_and_seat(self, bot: User, table_id: str, settings: TableSettings) -> None:
        buy_in = bots.bot_buy_in(settings)
        state = await self.bank.open(bot.id, grant=max(self.bank.starting_grant, buy_in))
        if state.balance < buy_in:
            short = buy_in - state.balance
            now = self.clock()
            await self.bank.update(
                bot.id, lambda s: wallet.grant(s, reason="practice", amount=short, now=now)
            )
        await self.transfers.buy_in(bot, table_id, buy_in)
        await self._seed_bot(bot, table_id)

    async def _bot_rebuy(self, table_id: str, user_id: int, name: str) -> None:
        """A broke practice bot stands up (cashing out what is left) and buys in again."""
        async with service_errors():
            loaded = await self._existing(table_id)
            assert loaded.state is not None
            bot = User(id=user_id, name=name)
            await self.transfers.cash_out(bot, table_id)
            await self._fund_and_seat(bot, table_id, loaded.state.settings)

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
        return {
            "user": {"id": user.id, "name": user.name},
            "balance": state.balance,
            "tables": state.tables,
            "language": effective_language(profile, user.language_code),
            "settings": {"language": profile.language, "pings": profile.pings},
            # granted when the wallet is empty and its owner seated nowhere
            # (docs/ARCHITECTURE.md, "Tables service")
            "daily_topup": {
                "amount": self.bank.daily_topup,
                "next_at": wallet.next_topup_at(state, self.clock()),
            },
        }

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
        async with service_errors():
            loaded = await self.repo.load(table_id)
            return loaded.version, loaded.state

    async def seat(
        self, user: User, table_id: str, buy_in: int, invite: str | None = None
    ) -> JSON:
        async with service_errors():
            if not _is_int(buy_in) or buy_in <= 0:
                raise bad_request("buy_in must be a positive whole number of chips")
            loaded = await self._existing(table_id)
            assert loaded.state is not None
            await self.social.may_sit(user, table_id, loaded.state, invite)
            await self.social.remember_photo(user)
            # The seat rules are asked before the wallet is touched, so these refusals write
            # nothing anywhere; a table that fills up between here and the SitDown still
            # refuses it, and the reservation is released (transfers.seat).
            verify_sit_down(loaded.state, user.id, buy_in, None)
            await self.bank.open(user.id)
            await self.transfers.buy_in(user, table_id, buy_in)
            return await self.view(user, table_id)

    async def rebuy(self, user: User, table_id: str, buy_in: int) -> JSON:
        """Buy in again at the same seat after losing the stack (below one ante): what is left
        goes back to the wallet and the new buy-in comes from it, in one request. Refused while
        the player is still in a hand, or still has chips to play with; a refused rebuy
        changes nothing (`Transfers.rebuy`)."""
        async with service_errors():
            if not _is_int(buy_in) or buy_in <= 0:
                raise bad_request("buy_in must be a positive whole number of chips")
            loaded = await self._existing(table_id)
            assert loaded.state is not None
            # Asked here first for a quick answer; the stand-up asks the same rules again,
            # atomically with itself (so a refusal there changes nothing either).
            seat = verify_rebuy(loaded.state, user.id, buy_in)
            purse = (await self.bank.open(user.id)).balance + seat.stack
            if buy_in > purse:
                raise ServiceError(
                    422, "insufficient_funds", f"the buy-in is {buy_in} chips; you have {purse}"
                )
            await self.transfers.rebuy(user, table_id, buy_in, seat=seat.seat)
            return await self.view(user, table_id)

    async def set_client_seed(self, user: User, table_id: str, client_seed: str) -> JSON:
        """The caller's own seed for the deck (docs/FAIRNESS.md "Decks"): recorded as a
        public `client_seed_set` event, it counts from the next deal dealt after it. Answers
        the caller's view (which shows it)."""
        async with service_errors():
            if not isinstance(client_seed, str) or not CLIENT_SEED.fullmatch(client_seed):
                raise ServiceError(
                    400,
                    "invalid_client_seed",
                    "client_seed must be 1 to 64 characters of A-Z a-z 0-9 _ -",
                )
            await self._existing(table_id)
            await self.repo.execute(
                table_id,
                lambda: SetClientSeed(user_id=user.id, client_seed=client_seed, now=self.clock()),
            )
            return await self.view(user, table_id)

    async def leave(self, user: User, table_id: str) -> JSON:
        async with service_errors():
            loaded = await self._existing(table_id)
            assert loaded.state is not None
            if loaded.state.seat_of(user.id) is None:
                raise ServiceError(403, "not_seated", "you have no seat at this table")
            await self.transfers.cash_out(user, table_id)
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
        started = time.perf_counter()
        try:  # service_errors(), inline: this is the hot path
            if not isinstance(action_id, str) or not 0 < len(action_id) <= MAX_ACTION_ID:
                raise bad_request(f"action_id must be a string of 1 to {MAX_ACTION_ID} characters")
            if amount is not None and not _is_int(amount):
                raise bad_request("amount must be a whole number")
            if expected_version is not None and not _is_int(expected_version):
                raise bad_request("expected_version must be a whole number")
            if not isinstance(type, str):
                raise bad_request("type must be a string")
            if not isinstance(table_id, str) or not TABLE_ID.match(table_id):
                raise not_found(str(table_id))
            scoped = f"{user.id}:{action_id}"
            # A retried action_id needs no lookup here: the append answers `duplicate`, and
            # the repo looks it up whenever it would otherwise answer "nothing appended".
            command_for_action(type, user_id=user.id, amount=amount, now=0.0)  # validate early
            outcome = await self.repo.execute(
                table_id,
                lambda: command_for_action(
                    type, user_id=user.id, amount=amount, now=self.clock(), seed=self.seed()
                ),
                action_id=scoped,
                expected_version=expected_version,
            )
        except TRANSLATED as error:
            refusal = as_service_error(error)
            metrics.observe_action(type, metrics.outcome_of_status(refusal.status),
                                   time.perf_counter() - started)
            raise refusal from error
        except ServiceError as refusal:
            metrics.observe_action(type, metrics.outcome_of_status(refusal.status),
                                   time.perf_counter() - started)
            raise
        except Exception:
            metrics.observe_action(type, "error", time.perf_counter() - started)
            raise
        metrics.observe_action(type, outcome.status, time.perf_counter() - started)
        return outcome.version

    async def _bot_act(
        self, user_id: int, name: str, table_id: str, action_id: str, type: str, amount: int | None
    ) -> object:
        return await self.act(
            User(id=user_id, name=name), table_id, action_id=action_id, type=type, amount=amount
        )

    # -- reading ------------------------------------------------------------------------------

    async def _existing(self, table_id: str) -> Loaded:
        if not isinstance(table_id, str) or not TABLE_ID.match(table_id):
            raise not_found(str(table_id))
        loaded = await self.repo.load(table_id)
        if loaded.state is None:
            raise not_found(table_id)
        return loaded

    async def version(self, table_id: str) -> int:
        """The table's version, for a socket's `ready`: what this process's live feed of the
        table has handed on when there is one (no read at all: a reconnect storm costs the
        store nothing for the tables the process follows), else one read of the stream's
        head. 404 for no such table."""
        async with service_errors():
            if not isinstance(table_id, str) or not TABLE_ID.match(table_id):
                raise not_found(str(table_id))
            followed = self.feeds.position(table_id)
            if followed is not None:
                return followed
            version = await self.store.version(self.streams.table(table_id))
            if version == 0:
                raise not_found(table_id)
            return version

    async def _state_of(self, table_id: str) -> TableState:
        loaded = await self._existing(table_id)
        assert loaded.state is not None
        return loaded.state

    async def view(self, user: User | None, table_id: str, invite: str | None = None) -> JSON:
        async with service_errors():
            loaded = await self._existing(table_id)
            assert loaded.state is not None
            await self.social.may_watch(user, table_id, loaded.state, invite)
            return table_view(loaded.state, user.id if user else None, loaded.version)

    def _project(
        self, stored: StoredEvent, viewer: int | None, event: TableEvent | None = None
    ) -> JSON:
        if event is None:
            event = decode_table_event(stored.data)
        projected: dict[str, Any] = project_event(event, viewer)
        return {
            "version": stored.version,
            "type": projected.get("type", event_type(event)),
            "at": stored.at,
            "data": projected.get("data", {}),
            "hash": stored.hash,  # the chain hash: a player may pin it (docs/CHAIN.md)
        }

    async def events(
        self, user: User | None, table_id: str, after: int, invite: str | None = None
    ) -> tuple[int, list[JSON]]:
        async with service_errors():
            _check_after(after)
            if not isinstance(table_id, str) or not TABLE_ID.match(table_id):
                raise not_found(str(table_id))
            await self.social.may_watch(user, table_id, await self._state_of(table_id), invite)
            stream = self.streams.table(table_id)
            stored = await self.store.read(stream, after=after)
            version = stored[-1].version if stored else await self.store.version(stream)
            if version == 0:
                raise not_found(table_id)
            viewer = user.id if user else None
            return version, [self._project(e, viewer) for e in stored]

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
        async with service_errors():
            _check_after(after)
            # A followed table's cached state answers without a read (a reconnect storm costs
            # the store nothing); whether it is private never changes.
            cached = self.repo.cached(table_id) if self.feeds.position(table_id) else None
            state = cached.state if cached is not None else None
            await self.social.may_watch(user, table_id, state or await self._state_of(table_id),
                                        invite)
            await self.feeds.watch(table_id, after, sink, views=views, hold_limit=hold_limit)

    async def hands(self, table_id: str, limit: int) -> list[JSON]:
        """The table's last `limit` (1-50) settled hands, newest first (`history`)."""
        async with service_errors():
            if not _is_int(limit) or not 1 <= limit <= MAX_HISTORY:
                raise bad_request(f"limit must be between 1 and {MAX_HISTORY}")
            loaded = await self._existing(table_id)
            assert loaded.state is not None
            stream = self.streams.table(table_id)
            return await recent_hands(self.store, stream, loaded.state, loaded.version, limit)

    async def audit(self, table_id: str, hand: int) -> JSON:
        async with service_errors():
            self._check_hand_ref(table_id, hand)
            return await audit_hand(self.store, self.streams.table(table_id), table_id, hand)

    async def export(self, table_id: str, hand: int) -> JSON:
        """The self-contained file of a settled hand that `svara verify FILE` checks offline
        (service/tables/export.py)."""
        async with service_errors():
            self._check_hand_ref(table_id, hand)
            return await export_hand(self.store, self.streams.table(table_id), table_id, hand)

    @staticmethod
    def _check_hand_ref(table_id: str, hand: int) -> None:
        if not _is_int(hand) or hand < 1:
            raise ServiceError(404, "hand_not_found", "hands are numbered from 1")
        if not isinstance(table_id, str) or not TABLE_ID.match(table_id):
            raise not_found(str(table_id))


def _implements_the_facade(service: TableService) -> Tables:
    """Never called: makes mypy prove TableService satisfies the adapters' protocol."""
    return service
