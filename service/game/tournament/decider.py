"""The tournament decider: commands (imperative) -> events (past tense).

Every command is safe to repeat: a hand already recorded (its `table_version` is not past
the last one recorded), prizes already paid or a cancellation already made yield no events,
so racing replicas and the catch-up after a crash write each fact once. Refusals raise
GameError with a stable code (`tournament_started`, `already_registered`, `tournament_full`,
`not_registered`, `not_due`, `invalid_settings`, ...).
"""

from __future__ import annotations

import msgspec

from events.tournament import (
    AnyTournamentEvent,
    HandRecorded,
    LevelRaised,
    PlayerEliminated,
    PlayerRegistered,
    PlayerUnregistered,
    PrizesPaid,
    TournamentCancelled,
    TournamentCreated,
    TournamentFinished,
    TournamentSettings,
    TournamentStarted,
)
from service.game.errors import GameError
from service.game.settings import MAX_ANTE, MAX_CHIPS
from service.game.tournament.levels import levels_due
from service.game.tournament.state import TournamentState, prize_amounts, prize_table


class TournamentCommand(msgspec.Struct, frozen=True, kw_only=True):
    now: float


class CreateTournament(TournamentCommand, frozen=True, kw_only=True):
    tournament_id: str
    settings: TournamentSettings
    created_by: int
    group_chat_id: int | None = None


class Register(TournamentCommand, frozen=True, kw_only=True):
    user_id: int
    name: str
    transfer_id: str
    amount: int


class Unregister(TournamentCommand, frozen=True, kw_only=True):
    user_id: int


class Start(TournamentCommand, frozen=True, kw_only=True):
    table_id: str


class RecordHand(TournamentCommand, frozen=True, kw_only=True):
    """The table settled `hand` at `table_version`: every player's stack after it and at
    its start (who busts in one hand with the bigger starting stack places higher), and
    when the table's store recorded its `hand_settled` (what a time schedule counts by)."""

    table_version: int
    hand: int
    stacks: dict[int, int]
    start_stacks: dict[int, int]
    settled_at: float = 0.0


class Cancel(TournamentCommand, frozen=True, kw_only=True):
    reason: str = "not_filled"


class PayPrizes(TournamentCommand, frozen=True, kw_only=True):
    pass


AnyTournamentCommand = (
    CreateTournament | Register | Unregister | Start | RecordHand | Cancel | PayPrizes
)

# the ante schedule: exactly one of them, within its bounds
SCHEDULES: dict[str, tuple[int, int]] = {
    "hands_per_level": (1, 10_000),
    "minutes_per_level": (1, 240),
}
# field -> (least, most)
LIMITS: dict[str, tuple[int, int]] = {
    "seats": (2, 10),
    "buy_in": (1, MAX_CHIPS),
    "stack": (1, MAX_CHIPS // 10),
    "fill_seconds": (10, 7 * 86_400),
    "turn_seconds": (5, 600),
}


def validated(s: TournamentSettings) -> TournamentSettings:
    """`s`, or GameError(`invalid_settings`) naming the first bad field."""
    def bad(message: str) -> GameError:
        return GameError("invalid_settings", message)

    for name, (least, most) in LIMITS.items():
        value = getattr(s, name)
        if type(value) is not int or not least <= value <= most:
            raise bad(f"{name} must be a whole number from {least} to {most}")
    given = [name for name in SCHEDULES if getattr(s, name) != 0]
    if len(given) != 1:
        raise bad("give exactly one of hands_per_level or minutes_per_level")
    least, most = SCHEDULES[given[0]]
    value = getattr(s, given[0])
    if type(value) is not int or not least <= value <= most:
        raise bad(f"{given[0]} must be a whole number from {least} to {most}")
    if not 1 <= len(s.antes) <= 50:
        raise bad("antes must list 1 to 50 levels")
    for ante in s.antes:
        if type(ante) is not int or not 1 <= ante <= min(MAX_ANTE, s.stack):
            raise bad("every ante must be a whole number from 1 to the starting stack")
    if s.prizes:
        if len(s.prizes) > s.seats:
            raise bad("prizes may not list more places than seats")
        if any(type(p) is not int or not 1 <= p <= 100 for p in s.prizes):
            raise bad("every prize is a whole percent from 1 to 100")
        if sum(s.prizes) != 100:
            raise bad("prizes must sum to 100 percent")
    if len(s.name) > 64:
        raise bad("name is at most 64 characters")
    return s


# -- verifiers (raise a precise GameError) and their yes/no questions ----------------------


def verify_register(state: TournamentState | None, user_id: int) -> TournamentState:
    if state is None:
        raise GameError("tournament_not_found", "no such tournament")
    if state.status == "cancelled":
        raise GameError("tournament_cancelled", "this tournament was cancelled")
    if state.status != "registering":
        raise GameError("tournament_started", "this tournament has started")
    if user_id in state.entries:
        raise GameError("already_registered", "you are registered already")
    if state.full:
        raise GameError("tournament_full", "every seat of this tournament is taken")
    return state


def can_register(state: TournamentState | None, user_id: int) -> bool:
    try:
        verify_register(state, user_id)
    except GameError:
        return False
    return True


def verify_unregister(state: TournamentState | None, user_id: int) -> TournamentState:
    if state is None:
        raise GameError("tournament_not_found", "no such tournament")
    if state.status != "registering":
        raise GameError("tournament_started", "a tournament cannot be left after its start")
    if user_id not in state.entries:
        raise GameError("not_registered", "you are not registered")
    return state


def verify_cancel(state: TournamentState, now: float) -> None:
    if state.status != "registering":
        raise GameError("tournament_started", "only a tournament still filling is cancelled")
    if now < state.fill_deadline:
        raise GameError("not_due", "the tournament still has time to fill")


def refund_id(tournament_id: str, transfer_id: str) -> str:
    return f"refund:{tournament_id}:{transfer_id}"


def prize_id(tournament_id: str, user_id: int) -> str:
    return f"prize:{tournament_id}:{user_id}"


# -- the decider ----------------------------------------------------------------------------


def decide(state: TournamentState | None, c: AnyTournamentCommand) -> list[AnyTournamentEvent]:
    if isinstance(c, CreateTournament):
        if state is not None:
            raise GameError("tournament_exists", "this tournament exists already")
        return [
            TournamentCreated(
                tournament_id=c.tournament_id, settings=validated(c.settings),
                created_by=c.created_by, created_at=c.now, group_chat_id=c.group_chat_id,
            )
        ]
    if state is None:
        raise GameError("tournament_not_found", "no such tournament")
    match c:
        case Register():
            if state.entries.get(c.user_id, None) is not None and (
                state.entries[c.user_id].transfer_id == c.transfer_id
            ):
                return []  # a retry of the same registration
            verify_register(state, c.user_id)
            if c.amount != state.settings.buy_in:
                raise GameError("invalid_amount", "the buy-in is fixed by the tournament")
            name = c.name.strip()[:64] or f"player {c.user_id}"
            return [PlayerRegistered(
                user_id=c.user_id, name=name, transfer_id=c.transfer_id, amount=c.amount
            )]
        case Unregister():
            entry = verify_unregister(state, c.user_id).entries[c.user_id]
            rid = refund_id(state.tournament_id, entry.transfer_id)
            return [PlayerUnregistered(user_id=c.user_id, refund_id=rid, amount=entry.amount)]
        case Start():
            if state.status != "registering":
                return []
            if not state.full:
                raise GameError("not_full", "a tournament starts when every seat is taken")
            players = tuple(state.entries)
            return [TournamentStarted(table_id=c.table_id, players=players, started_at=c.now)]
        case RecordHand():
            return _record_hand(state, c)
        case Cancel():
            if state.status == "cancelled":
                return []
            verify_cancel(state, c.now)
            refunds = {u: e.amount for u, e in state.entries.items()}
            return [TournamentCancelled(reason=c.reason, refunds=refunds)]
        case PayPrizes():
            if state.status not in ("finished", "cancelled") or state.paid:
                return []
            return [PrizesPaid(total=state.pool)]
    raise GameError("unknown_command", f"unknown command {type(c).__name__}")


def _record_hand(state: TournamentState, c: RecordHand) -> list[AnyTournamentEvent]:
    if state.status != "running" or c.table_version <= state.table_version:
        return []  # recorded already (or over): exactly once, whoever asks again
    if set(c.stacks) != set(state.players):
        raise GameError("unknown_players", "the hand's stacks name other players")
    total = state.settings.stack * len(state.players)
    if sum(c.stacks.values()) != total or min(c.stacks.values()) < 0:
        raise GameError("chips_not_conserved", f"the stacks must sum to {total}")
    out: list[AnyTournamentEvent] = [
        HandRecorded(
            table_version=c.table_version, hand=c.hand, stacks=dict(c.stacks),
            settled_at=c.settled_at,
        )
    ]
    left = state.left_in()
    busted = [u for u in left if c.stacks[u] == 0]
    # the bigger stack at the hand's start places higher; then the lower user id
    busted.sort(key=lambda u: (-c.start_stacks.get(u, 0), u))
    place = len(left)
    for u in reversed(busted):
        out.append(PlayerEliminated(
            user_id=u, place=place, hand=c.hand, table_version=c.table_version
        ))
        place -= 1
    survivors = [u for u in left if c.stacks[u] > 0]
    if len(survivors) == 1:
        places = {**state.places, **{e.user_id: e.place for e in out
                                      if isinstance(e, PlayerEliminated)}}
        places[survivors[0]] = 1
        percents = prize_table(state.settings, len(state.players))
        prizes = prize_amounts(state.pool, percents, places)
        out.append(TournamentFinished(
            winner=survivors[0], prizes=prizes, table_version=c.table_version
        ))
        return out
    hands = state.hands + 1
    due = levels_due(
        state.settings, level=state.level, hands=hands, started_at=state.started_at,
        settled_at=c.settled_at,
    )
    out.extend(
        LevelRaised(level=level, ante=state.settings.antes[level - 1], after_hands=hands)
        for level in due
    )
    return out
