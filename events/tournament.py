"""Tournament events: one stream per Sit & Go (`tournament:<id>`, its own hash tag).

A tournament is its own aggregate beside the table it runs: registrations move play chips
from wallets into its prize pool, its table plays with tournament chips (a separate
currency: the starting stack, the same for everyone, worth nothing outside), and the
process manager records each settled hand of that table here, keyed by the table version
it reacts to (`table_version`), so a hand is recorded once however many replicas react.
Past-tense names; explicit tags; new fields must get defaults so old events still decode.
"""

from __future__ import annotations

import msgspec


class TournamentSettings(msgspec.Struct, frozen=True, kw_only=True):
    seats: int  # 2..10, one table; it starts when full
    buy_in: int  # play chips from the wallet into the prize pool
    stack: int  # tournament chips each player starts with
    antes: tuple[int, ...]  # the ante of level 1, 2, ...
    # Exactly one schedule governs: every `hands_per_level` hands, or (when
    # `minutes_per_level` > 0, and then `hands_per_level` is 0) every that many minutes
    # from the start. Defaults, so streams older than the time schedule decode unchanged.
    hands_per_level: int = 0
    minutes_per_level: int = 0
    prizes: tuple[int, ...] = ()  # percent of the pool by place; () : the default table
    fill_seconds: int = 600  # not full by then: cancelled, every buy-in refunded
    name: str = ""
    turn_seconds: int = 15


class TournamentEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every tournament event (`type` is the tag)."""


class TournamentCreated(TournamentEvent, frozen=True, kw_only=True, tag="tournament_created"):
    tournament_id: str
    settings: TournamentSettings
    created_by: int
    created_at: float
    # The Telegram group it was opened in (the bot's /tournament), where its final standings
    # are posted; None: opened elsewhere (the API). Optional, so older streams still decode.
    group_chat_id: int | None = None


class PlayerRegistered(TournamentEvent, frozen=True, kw_only=True, tag="player_registered"):
    user_id: int
    name: str
    transfer_id: str  # the wallet reservation whose chips join the pool
    amount: int


class PlayerUnregistered(TournamentEvent, frozen=True, kw_only=True, tag="player_unregistered"):
    user_id: int
    refund_id: str  # the wallet credit of the refund
    amount: int


class TournamentStarted(TournamentEvent, frozen=True, kw_only=True, tag="tournament_started"):
    table_id: str
    players: tuple[int, ...]
    started_at: float


class HandRecorded(TournamentEvent, frozen=True, kw_only=True, tag="hand_recorded"):
    """The table settled hand `hand` at `table_version`; `stacks` after it, by user;
    `settled_at` the time the table's store gave its `hand_settled` (0.0: older streams)."""

    table_version: int
    hand: int
    stacks: dict[int, int]
    settled_at: float = 0.0


class PlayerEliminated(TournamentEvent, frozen=True, kw_only=True, tag="player_eliminated"):
    user_id: int
    place: int
    hand: int
    table_version: int


class LevelRaised(TournamentEvent, frozen=True, kw_only=True, tag="level_raised"):
    """One per level reached (several time boundaries passed in one hand: one each, in
    order, after the same hand), so a stream's levels run 2, 3, ... without a gap."""

    level: int  # 1-based
    ante: int
    after_hands: int


class TournamentFinished(TournamentEvent, frozen=True, kw_only=True, tag="tournament_finished"):
    winner: int
    prizes: dict[int, int]  # user -> play chips won (every player, 0 included)
    table_version: int


class PrizesPaid(TournamentEvent, frozen=True, kw_only=True, tag="prizes_paid"):
    """Every prize (and every 0) is credited to its wallet: the pool is empty."""

    total: int


class TournamentCancelled(TournamentEvent, frozen=True, kw_only=True, tag="tournament_cancelled"):
    reason: str
    refunds: dict[int, int]  # user -> buy-in refunded


AnyTournamentEvent = (
    TournamentCreated
    | PlayerRegistered
    | PlayerUnregistered
    | TournamentStarted
    | HandRecorded
    | PlayerEliminated
    | LevelRaised
    | TournamentFinished
    | PrizesPaid
    | TournamentCancelled
)

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(AnyTournamentEvent)


def encode_tournament_event(event: AnyTournamentEvent) -> bytes:
    return _encoder.encode(event)


def decode_tournament_event(data: bytes) -> AnyTournamentEvent:
    """Decode stored bytes; raises msgspec errors on bytes that are not a tournament event."""
    return _decoder.decode(data)
