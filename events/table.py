"""Everything that can happen at a Svara table, as immutable msgspec events.

Each event is a tagged Struct (`{"type": "player_seated", ...}` in JSON); tags are explicit,
snake_case and past tense, and never change. New fields always get defaults, so events already
stored keep decoding. Raw events hold secrets (dealt cards, deck seeds): they never leave the
server unprojected (see `service.game.view.project_event`).

Fairness (docs/FAIRNESS.md "Decks"): a deal's server seed is drawn, and its
commitment published, one step ahead -- `next_commitment` in `table_created` and `hand_settled`
(the next hand's first deal) and in `svara_started` (the svara deal) -- with the seed itself in
the `seed_drawn` event right after, hidden from every projection until its hand settles.
Keeping the secret out of the publishing event keeps it out of the settled hand's record (the
audit and the export of hand n end with its `hand_settled`, which publishes hand n+1's
commitment). Logs written before this (v1 hands: the seed drawn by the dealing command) keep
decoding and folding unchanged: every new field has a default, left out of the JSON when it
holds it, so an old event re-encodes to its stored bytes.

Seats are numbered 0 .. max_seats-1. "Participants" lists are always in playing order:
clockwise starting left of the dealer, the dealer last (when dealt in).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from events.settings import TableSettings

Phase = Literal["blind", "betting"]
TimeoutAction = Literal["pass", "fold", "skip_svara"]
SettleReason = Literal["last_player", "showdown", "split", "svara_walkover"]


class TableEventBase(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Common base: `type` is the tag; no shared fields (the store records the time)."""


class TurnHandover(TableEventBase, frozen=True, kw_only=True, omit_defaults=True):
    """Base of the events that may also hand the turn on, saving a separate
    `turn_deadline_set` after most actions. When `turn` is set, the event also means what
    `turn_deadline_set` would: `turn`'s move in round `phase` until `deadline`. Unset fields are
    left out of the JSON (and default fields of the subclasses with them)."""

    turn: int | None = None
    deadline: float | None = None
    phase: Phase | None = None


class TableCreated(
    TableEventBase, frozen=True, kw_only=True, tag="table_created", omit_defaults=True
):
    table_id: str
    settings: TableSettings
    created_by: int
    created_at: float = 0.0
    next_commitment: str = ""  # sha256 of hand 1's server seed (v2); "" in older logs
    # How long the table may stay with nobody seated before a Tick closes it, as the
    # deployment set it when the table was created (0.0: not recorded, as in older logs:
    # the rule's day, `service.game.state.IDLE_CLOSE_SECONDS`).
    idle_close_seconds: float = 0.0
    # The Sit & Go this table plays for ("" : a cash table). A tournament table deals in
    # every seat with chips, sat out or not, and takes a short stack's all as its ante.
    tournament_id: str = ""
    # The name its creator gave it ("": none; each app then says "<host>'s table" in its
    # viewer's language) and whether it is private: kept out of the lobby, joined by an
    # invite whose token is never in an event (`service.tables.private`).
    name: str = ""
    private: bool = False
    # The Telegram group it was opened in with /newtable (None: anywhere else): its hands
    # count for that group's leaderboard (`service.tables.stats`).
    group_chat_id: int | None = None


class SeedDrawn(TableEventBase, frozen=True, kw_only=True, tag="seed_drawn"):
    """The server seed behind the `next_commitment` just published (in the event before this
    one). Secret: projections drop `seed`; `hand_settled` reveals it once its hand is over."""

    commitment: str
    seed: str


class ClientSeedSet(TableEventBase, frozen=True, kw_only=True, tag="client_seed_set"):
    """A seated player's own seed for v2 decks (public); it counts from the next deal dealt
    after this event."""

    seat: int
    user_id: int
    client_seed: str


class PlayerSeated(TableEventBase, frozen=True, kw_only=True, tag="player_seated"):
    user_id: int
    name: str
    seat: int
    buy_in: int
    transfer_id: str


class PlayerLeft(
    TableEventBase, frozen=True, kw_only=True, tag="player_left", omit_defaults=True
):
    user_id: int
    seat: int
    cashed_out: int  # the whole stack, back to the wallet under transfer_id
    transfer_id: str
    at: float = 0.0  # when (the command's clock): the last one out starts the idle time


class HandStarted(TableEventBase, frozen=True, kw_only=True, tag="hand_started"):
    number: int
    dealer: int
    participants: tuple[int, ...]
    commitment: str  # sha256(seed) hex (v2: restating the one published in advance)
    seed: str  # the secret seed (hex); projections hide it until the hand is settled
    algorithm: str = "hmac-sha256-fy-v1"  # of the first deal (each deal: `cards_dealt`)


class AntesPaid(TableEventBase, frozen=True, kw_only=True, tag="antes_paid", omit_defaults=True):
    ante: int
    seats: tuple[int, ...]
    pot: int  # the pot afterwards
    # Tournament tables: seats whose whole stack was below the ante paid that stack instead.
    short: dict[int, int] | None = None


class CardsDealt(TurnHandover, frozen=True, kw_only=True, tag="cards_dealt"):
    deal: int
    cards: dict[int, tuple[str, str, str]]  # seat -> its three cards (secret)
    # How the deck was made, so a verifier needs nothing else: v2 names the players' seeds
    # that counted (seat -> client seed, of the players dealt in; {} when none had one) and
    # their `mix`. Left out of the JSON for v1 (the defaults), so older events keep their bytes.
    algorithm: str = "hmac-sha256-fy-v1"
    client_seeds: dict[int, str] | None = None
    mix: str = ""


class BlindPlaced(TurnHandover, frozen=True, kw_only=True, tag="blind_placed"):
    seat: int
    user_id: int
    amount: int  # the blind's size: chips paid, and the new level


class Passed(TurnHandover, frozen=True, kw_only=True, tag="passed"):
    seat: int
    user_id: int


class Looked(TurnHandover, frozen=True, kw_only=True, tag="looked"):
    seat: int
    user_id: int
    cards: tuple[str, str, str]  # shown to that player only


class Called(TurnHandover, frozen=True, kw_only=True, tag="called"):
    seat: int
    user_id: int
    amount: int  # chips paid
    level: int


class Raised(TurnHandover, frozen=True, kw_only=True, tag="raised"):
    seat: int
    user_id: int
    amount: int  # chips paid
    level: int  # the new level ("raise to")


class Folded(TurnHandover, frozen=True, kw_only=True, tag="folded"):
    seat: int
    user_id: int
    left: bool = False  # folded because the player stood up


class TurnDeadlineSet(TableEventBase, frozen=True, kw_only=True, tag="turn_deadline_set"):
    """Whose turn it is, in which round, and until when (the timer acts after `deadline`).
    Only when the event before it cannot carry the turn (see `TurnHandover`); logs written
    before 2026-11-29 have one after every action."""

    seat: int
    deadline: float
    phase: Phase = "betting"


class TimedOut(TurnHandover, frozen=True, kw_only=True, tag="timed_out"):
    """The server acted for a player whose deadline passed; `action` is what it did."""

    seat: int
    user_id: int
    action: TimeoutAction


class ShownHand(msgspec.Struct, frozen=True, kw_only=True):
    cards: tuple[str, str, str]
    score: int


class ShowdownHappened(
    TableEventBase, frozen=True, kw_only=True, tag="showdown", omit_defaults=True
):
    deal: int
    hands: dict[int, ShownHand]  # seat -> cards and score, for every player still in
    # The betting ended because nobody still in could put in more (docs/RULES.md step 5), rather
    # than after a full round. Left out of the JSON when false (older events lack it).
    capped: bool = False


class SvaraStarted(
    TableEventBase, frozen=True, kw_only=True, tag="svara_started", omit_defaults=True
):
    tied: tuple[int, ...]
    fee: int
    eligible: tuple[int, ...]  # seats that may join (pay `fee`) before `join_deadline`
    join_deadline: float
    pot: int
    next_commitment: str = ""  # sha256 of the svara deal's server seed (v2)


class SvaraJoined(TableEventBase, frozen=True, kw_only=True, tag="svara_joined"):
    seat: int
    user_id: int
    fee: int


class SvaraSkipped(TableEventBase, frozen=True, kw_only=True, tag="svara_skipped"):
    seat: int
    user_id: int


class SvaraDealStarted(TableEventBase, frozen=True, kw_only=True, tag="svara_deal_started"):
    deal: int
    participants: tuple[int, ...]
    commitment: str
    seed: str  # secret until the hand is settled


class DealSeed(msgspec.Struct, frozen=True, kw_only=True):
    deal: int
    commitment: str
    seed: str


class HandSettled(
    TableEventBase, frozen=True, kw_only=True, tag="hand_settled", omit_defaults=True
):
    number: int
    winners: tuple[int, ...]
    amounts: dict[int, int]  # seat -> chips won (after rake)
    pot: int
    rake: int
    reason: SettleReason
    seeds: tuple[DealSeed, ...]  # every deal's seed, revealed for the audit
    next_hand_at: float
    next_dealer: int  # the seat the next hand's dealer is sought from (clockwise)
    next_commitment: str = ""  # sha256 of the next hand's first server seed (v2)


class PlayerSatOut(TurnHandover, frozen=True, kw_only=True, tag="sat_out"):
    seat: int
    user_id: int
    reason: Literal["timeouts", "left"] = "timeouts"  # left: a tournament player forfeits


class PlayerReturned(TableEventBase, frozen=True, kw_only=True, tag="returned"):
    seat: int
    user_id: int


class TableClosed(TableEventBase, frozen=True, kw_only=True, tag="table_closed"):
    """The table is over: nobody was seated for `idle_seconds` (see `TableState.deadline`).
    A closed table refuses seats and needs no timer; its history stays readable."""

    reason: Literal["idle"] = "idle"
    idle_seconds: float = 0.0


class AnteChanged(TableEventBase, frozen=True, kw_only=True, tag="ante_changed"):
    """A tournament's next level: the ante (and a bet unit that follows it) from the next
    hand dealt on; `level` keys it, so a level is applied once."""

    ante: int
    level: int


TableEvent = (
    TableCreated
    | PlayerSeated
    | PlayerLeft
    | HandStarted
    | AntesPaid
    | CardsDealt
    | BlindPlaced
    | Passed
    | Looked
    | Called
    | Raised
    | Folded
    | TurnDeadlineSet
    | TimedOut
    | ShowdownHappened
    | SvaraStarted
    | SvaraJoined
    | SvaraSkipped
    | SvaraDealStarted
    | HandSettled
    | PlayerSatOut
    | PlayerReturned
    | SeedDrawn
    | ClientSeedSet
    | TableClosed
    | AnteChanged
)

EVENT_TYPES: tuple[type[TableEventBase], ...] = (
    TableCreated,
    PlayerSeated,
    PlayerLeft,
    HandStarted,
    AntesPaid,
    CardsDealt,
    BlindPlaced,
    Passed,
    Looked,
    Called,
    Raised,
    Folded,
    TurnDeadlineSet,
    TimedOut,
    ShowdownHappened,
    SvaraStarted,
    SvaraJoined,
    SvaraSkipped,
    SvaraDealStarted,
    HandSettled,
    PlayerSatOut,
    PlayerReturned,
    SeedDrawn,
    ClientSeedSet,
    TableClosed,
    AnteChanged,
)
