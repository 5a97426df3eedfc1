"""A table's state: the fold of its events. Immutable msgspec Structs with structural sharing.

`evolve` never mutates: it rebuilds only the structs an event touches (a seat, a player, the
hand) and shares the rest, so a step costs a few small allocations. Seats are a tuple indexed
by seat number (None = empty) for O(1) lookup; a hand's players are a tuple in playing order
(clockwise from the dealer's left). Snapshots are msgpack (`encode_state` / `decode_state`).
The state is a tree (no reference cycles), so its structs opt out of GC tracking (`gc=False`).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from events.table import DealSeed, ShownHand
from service.game.settings import TableSettings

HandPhase = Literal["blind", "betting", "svara_join", "settled"]
TablePhase = Literal["waiting", "blind", "betting", "svara_join", "settled", "closed"]

# A table with nobody seated for this long is closed by the next Tick (`table_closed`), so
# forgotten tables leave the lobby and the timers for good. This is the limit of a table whose
# `table_created` records none (older logs, callers that set none); a deployment records its
# own (`TableState.idle_close_seconds`, the server's IDLE_CLOSE_SECONDS setting).
IDLE_CLOSE_SECONDS = 86_400.0


class Seat(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    seat: int
    user_id: int
    name: str
    stack: int
    order: int  # seating order at this table: the lowest present is "the first seated player"
    sat_out: bool = False
    timeouts: int = 0  # consecutive turn timeouts; any own action resets it
    client_seed: str = ""  # the player's own seed for v2 decks ("" : none set)


class Player(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One participant of the current deal."""

    seat: int
    user_id: int
    cards: tuple[str, str, str] | None = None  # secret: shown via Looked / showdown only
    folded: bool = False
    blind: bool = False  # went blind in this deal
    looked: bool = False
    put_in: int = 0  # chips put in this deal beyond the ante
    raises: int = 0  # raises this deal (blinds do not count)
    acted: bool = False  # has acted since the last raise


class HandResult(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    winners: tuple[int, ...]
    amounts: dict[int, int]
    pot: int
    rake: int
    reason: str


class Hand(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    number: int
    deal: int
    dealer: int
    phase: HandPhase
    players: tuple[Player, ...]
    dealt_in: tuple[int, ...] = ()  # user ids dealt into the hand's first deal
    pot: int = 0
    level: int = 0
    turn: int | None = None  # seat whose turn it is (blind / betting)
    turn_deadline: float | None = None
    commitment: str = ""
    seeds: tuple[DealSeed, ...] = ()  # every deal's (secret) seed, current deal last
    last_blind: int = 0  # size of the last blind this deal (0: none)
    last_blind_seat: int | None = None
    must_double: bool = False  # no raise yet after blinds: non-blind players may not call
    # svara join window
    tied: tuple[int, ...] = ()
    svara_fee: int = 0
    eligible: tuple[int, ...] = ()
    answered: tuple[int, ...] = ()
    joined: tuple[int, ...] = ()
    join_deadline: float | None = None
    # the last showdown of this hand (public once it happened) and the result
    shown: dict[int, ShownHand] = msgspec.field(default_factory=dict)
    result: HandResult | None = None

    def player(self, seat: int) -> Player | None:
        for p in self.players:
            if p.seat == seat:
                return p
        return None

    def index_of(self, seat: int) -> int:
        for i, p in enumerate(self.players):
            if p.seat == seat:
                return i
        return -1

    @property
    def active(self) -> bool:
        """Cards are out and the hand is being played (blind or betting round)."""
        return self.phase == "blind" or self.phase == "betting"


class TableState(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    table_id: str
    settings: TableSettings
    created_by: int
    seats: tuple[Seat | None, ...]
    hand: Hand | None = None
    hand_number: int = 0
    rake_total: int = 0
    next_dealer: int | None = None  # seat to seek the next dealer from; None: first seated
    next_hand_at: float | None = None
    seat_counter: int = 0
    bought_in: int = 0  # sum of all buy-ins ever (chip conservation checks)
    cashed_out: int = 0  # sum of all cash-outs ever
    # The server seed of the next deal (the next hand's first, or a declared svara's), drawn
    # and committed to in advance (v2); "" when none is pending (then a deal is v1).
    next_commitment: str = ""
    next_seed: str = ""  # secret until its hand settles
    # Since when nobody has been seated (None while someone is): the idle clock. 0.0 when a
    # log written before it existed does not say (such a table closes at the next Tick).
    empty_since: float | None = None
    closed: bool = False
    idle_close_seconds: float = 0.0  # as `table_created` recorded it (0.0: none recorded)
    tournament_id: str = ""  # a tournament table (see `eligible_seats`)
    ante_level: int = 1  # a tournament table's level (`ante_changed`)
    pending_ante: int = 0  # the ante from the next hand on (0: no change pending)
    name: str = ""  # as its creator named it ("": unnamed)
    private: bool = False  # not in the lobby; seated and watched by invite

    @property
    def idle_limit(self) -> float:
        """How long the table may stay with nobody seated before it closes."""
        return self.idle_close_seconds or IDLE_CLOSE_SECONDS

    @property
    def phase(self) -> TablePhase:
        if self.closed:
            return "closed"
        return "waiting" if self.hand is None else self.hand.phase

    def seated(self) -> int:
        seats = self.seats
        return len(seats) - seats.count(None)

    def seat_of(self, user_id: int) -> int | None:
        for s in self.seats:
            if s is not None and s.user_id == user_id:
                return s.seat
        return None

    def seat_by_user(self, user_id: int) -> Seat | None:
        for s in self.seats:
            if s is not None and s.user_id == user_id:
                return s
        return None

    def eligible_seats(self) -> list[Seat]:
        """Seated players who would be dealt in: not sat out and able to pay the ante."""
        if self.tournament_id:  # sitting out protects no stack: everyone with chips plays
            return [s for s in self.seats if s is not None and s.stack > 0]
        ante = self.settings.ante
        return [s for s in self.seats if s is not None and not s.sat_out and s.stack >= ante]

    def can_start_hand(self) -> bool:
        hand = self.hand
        if hand is not None and hand.phase != "settled":
            return False
        return len(self.eligible_seats()) >= 2

    @property
    def deadline(self) -> float | None:
        """The earliest time at which a Tick would do something (None: no timer needed)."""
        hand = self.hand
        if hand is not None:
            phase = hand.phase
            if phase == "blind" or phase == "betting":
                return hand.turn_deadline
            if phase == "svara_join":
                return hand.join_deadline
        if self.can_start_hand():
            return self.next_hand_at if self.next_hand_at is not None else 0.0
        if self.closed:
            return None
        if all(s is None for s in self.seats):  # (no hand is in play: nobody is seated)
            since = self.empty_since if self.empty_since is not None else 0.0
            return since + self.idle_limit
        return None

    def chips_in_play(self) -> int:
        """Stacks + pot + rake: always equals bought_in - cashed_out."""
        total = self.rake_total + (self.hand.pot if self.hand is not None else 0)
        for s in self.seats:
            if s is not None:
                total += s.stack
        return total


_state_encoder = msgspec.msgpack.Encoder()
_state_decoder: msgspec.msgpack.Decoder[TableState] = msgspec.msgpack.Decoder(TableState)


def encode_state(state: TableState) -> bytes:
    return _state_encoder.encode(state)


def decode_state(data: bytes) -> TableState:
    """Decode a snapshot; raises msgspec errors on bad bytes (callers then ignore it)."""
    return _state_decoder.decode(data)
