"""What the adapters (API, bot) may ask of the application layer. One path for every command.

`service.tables.service.TableService` implements this; the API and the bot depend only on
this protocol, so they can be tested against the real service on any store.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from service.game.settings import TableSettings

JSON = dict[str, Any]


class User(msgspec.Struct, frozen=True):
    id: int
    name: str
    # The Telegram client's language (IETF tag, e.g. "ru-RU") from the signed initData or the
    # bot update; it picks the language until the player chooses one (service.tables.profiles).
    language_code: str | None = None
    photo_url: str | None = None  # the signed initData's `user.photo_url` (https only)


class ServiceError(Exception):
    """A refused request with its HTTP status and error code (docs/API.md "Errors")."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra  # e.g. {"version": 7} for version_conflict


class FeedItem(Protocol):
    """One event as a live feed hands it to a socket: already projected and encoded per
    viewer, with the viewer's view at its version when that state is at hand."""

    @property
    def version(self) -> int: ...

    def event_json(self, viewer: int | None) -> bytes:
        """`{"version","type","at","data","hash"}` as `viewer` may see it, JSON-encoded."""
        ...

    def view_json(self, viewer: int | None) -> bytes | None:
        """The viewer's view at `version`, JSON-encoded, or None when not at hand."""
        ...


class FeedSink(Protocol):
    """Where a pushed feed goes (`TableService.watch`): the API's socket writer."""

    def deliver(self, items: Sequence[FeedItem]) -> None:
        """Consecutive new events, in order, called synchronously by the feed."""
        ...

    async def drained(self) -> None:
        """Wait until what was delivered has left (paces a catch-up; may raise)."""
        ...


class PresenceBook(Protocol):
    """Who has a table open, across every replica (`service.tables.presence.Presence`)."""

    async def opened(self, table_id: str, user_id: int) -> str:
        """A socket of `user_id` to `table_id` is open; the token to close it with."""
        ...

    async def closed(self, token: str) -> None: ...

    async def away(self, token: str, away: bool) -> None:
        """The socket's app was minimised (True) or brought back: away counts as absent."""
        ...

    async def watching(self, table_id: str, user_id: int) -> bool:
        """Has `user_id` a socket open to `table_id` on any replica?"""
        ...


class ChatDesk(Protocol):
    """A table's quick chat, as the API uses it (`service.tables.chat.Chat`)."""

    async def post(self, user: User, table_id: str, *, phrase: str | None = None,
                   reaction: str | None = None, invite: str | None = None) -> int:
        """Send a phrase or a reaction; its seq."""
        ...

    async def messages(self, user: User | None, table_id: str, after: int,
                       invite: str | None = None) -> JSON:
        """`{"seq": newest, "messages": [...]}` after `after`."""
        ...

    def follow(self, user: User | None, table_id: str, after: int | None,
               invite: str | None = None) -> AsyncIterator[list[JSON]]:
        """The messages after `after` (None: from now on), then live ones, as batches."""
        ...


class AwayDesk(Protocol):
    """Who is away at a table, as a socket follows it (`service.tables.away_feed.AwayFeed`)."""

    def follow(self, user: User | None, table_id: str,
               invite: str | None = None) -> AsyncIterator[list[JSON]]:
        """Every seated player's `away` now, then each change, as batches."""
        ...


class SocialDesk(Protocol):
    """Quick chat, private tables' invites and who is away, as the API uses them
    (`service.tables.social.Social`)."""

    @property
    def chat(self) -> ChatDesk: ...

    @property
    def away(self) -> AwayDesk: ...

    async def issue_invite(self, user: User | None, table_id: str) -> str:
        """A new invite for a private table (its creator only)."""
        ...

    async def with_invite(self, user: User | None, answer: JSON) -> JSON:
        """A private table's view with its current `invite`, for its creator only."""
        ...

    async def shared_invite(self, user: User, table_id: str, given: str | None) -> str:
        """The invite a shared card of a private table links with."""
        ...

    async def with_away(self, table_id: str, presence: PresenceBook, view: JSON) -> JSON:
        """`view` with each seat's `away`."""
        ...


if TYPE_CHECKING:
    from service.tables.tournaments_service import Tournaments


class Tables(Protocol):
    @property
    def presence(self) -> PresenceBook:
        """Where a socket counts as its user having the table open, from `ready` to close."""
        ...

    @property
    def tournaments(self) -> Tournaments | None:
        """The Sit & Go tournaments this service runs, or None where it runs none."""
        ...

    @property
    def social(self) -> SocialDesk:
        """Quick chat and private tables' invites (`service.tables.social`)."""
        ...

    async def create_table(
        self, user: User, settings: TableSettings, *, practice_bots: int = 0,
        name: str | None = None, private: bool = False, group_chat_id: int | None = None,
    ) -> str: ...

    async def list_tables(self, *, limit: int = 50, cursor: str | None = None) -> JSON:
        """A page of open tables: {"tables": [...], "next": cursor of the next page | None}."""
        ...

    async def me(self, user: User) -> JSON: ...

    async def set_preferences(
        self, user: User, *, language: str | None = None, pings: bool | None = None
    ) -> JSON:
        """Record the player's choices (None: unchanged); answers like `me`."""
        ...

    async def write_access(self, user: User, *, allowed: bool, explicit: bool) -> JSON:
        """Record whether Telegram says `user` lets the bot write to them (`explicit`: they
        just granted it); answers like `me`."""
        ...

    async def seat(
        self, user: User, table_id: str, buy_in: int, invite: str | None = None
    ) -> JSON: ...

    async def leave(self, user: User, table_id: str) -> JSON: ...

    async def rebuy(self, user: User, table_id: str, buy_in: int) -> JSON:
        """Buy in again at the same seat after losing the stack; the caller's view."""
        ...

    async def hands(self, table_id: str, limit: int) -> list[JSON]:
        """The last `limit` settled hands, newest first (public facts only)."""
        ...

    async def set_client_seed(self, user: User, table_id: str, client_seed: str) -> JSON:
        """Record the caller's own seed for the deck; answers the caller's view."""
        ...

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
        """Apply a player action; the table's version after it. Retried action_id: same answer."""
        ...

    async def version(self, table_id: str) -> int:
        """The table's version now (a socket's `ready`); 404 for no such table."""
        ...

    async def view(self, user: User | None, table_id: str, invite: str | None = None) -> JSON: ...

    async def events(
        self, user: User | None, table_id: str, after: int, invite: str | None = None
    ) -> tuple[int, list[JSON]]: ...

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
        """Push the projected events after `after`, then the live ones, to `sink`: consecutive
        `FeedItem`s, never a repeat, the catch-up paced by `sink.drained()`. With `views`, the
        newest item of a delivery has the caller's view when at hand. Runs until cancelled;
        raises what ends the feed (`SubscriberTooSlow`, `ServiceError`: 404 for no table)."""
        ...

    async def audit(self, table_id: str, hand: int) -> JSON: ...

    async def export(self, table_id: str, hand: int) -> JSON:
        """A settled hand as the self-contained file `svara verify FILE` checks offline."""
        ...

    async def replay(self, user: User | None, table_id: str, hand: int) -> JSON:
        """Settled hand `hand` step by step: each event in the caller's projection with the
        caller's view at its version (409 `hand_in_progress` until it is settled)."""
        ...

    async def transcript(
        self, user: User | None, table_id: str, hand: int, language: str | None = None
    ) -> str:
        """The readable history of settled hand `hand` (default: the caller's language)."""
        ...

    async def my_hands(self, user: User, cursor: str | None, limit: int) -> JSON:
        """A page of the caller's settled hands, newest first: {"hands": [...], "next"}."""
        ...

    async def player_stats(self, user_id: int) -> JSON:
        """A player's figures, all time and this ISO week (404 `unknown_player`)."""
        ...

    async def leaderboard(self, period: str, group: int | None, you: int | None) -> JSON:
        """A board's top 50 by net chips and `you`'s rank (docs/API.md)."""
        ...
