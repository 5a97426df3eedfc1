"""`evolve` for the table and its seats: creation, seeds drawn ahead of a deal, client seeds,
players sitting down, leaving, sitting out and returning, and the table's closing."""

from __future__ import annotations

from msgspec.structs import replace

from events import table as ev
from service.game.rebuild import handed_over, seat_at, with_seat
from service.game.state import Seat, TableState


def table_created(state: TableState | None, e: ev.TableCreated) -> TableState:
    assert state is None, "table already created"
    return TableState(
        table_id=e.table_id,
        settings=e.settings,
        created_by=e.created_by,
        seats=(None,) * e.settings.max_seats,
        next_commitment=e.next_commitment,
        empty_since=e.created_at,
        idle_close_seconds=e.idle_close_seconds,
        tournament_id=e.tournament_id,
        name=e.name,
        private=e.private,
    )


def seed_drawn(state: TableState, e: ev.SeedDrawn) -> TableState:
    return replace(state, next_commitment=e.commitment, next_seed=e.seed)


def client_seed_set(state: TableState, e: ev.ClientSeedSet) -> TableState:
    return with_seat(state, replace(seat_at(state, e.seat), client_seed=e.client_seed), e.seat)


def player_seated(state: TableState, e: ev.PlayerSeated) -> TableState:
    seat = Seat(
        seat=e.seat, user_id=e.user_id, name=e.name, stack=e.buy_in, order=state.seat_counter
    )
    return with_seat(
        state,
        seat,
        e.seat,
        seat_counter=state.seat_counter + 1,
        bought_in=state.bought_in + e.buy_in,
        empty_since=None,
    )


def player_left(state: TableState, e: ev.PlayerLeft) -> TableState:
    state = with_seat(state, None, e.seat, cashed_out=state.cashed_out + e.cashed_out)
    if all(s is None for s in state.seats):
        state = replace(state, empty_since=e.at)
    hand = state.hand
    if hand is not None and hand.phase == "svara_join":
        seat = e.seat
        hand = replace(
            hand,
            tied=tuple(x for x in hand.tied if x != seat),
            eligible=tuple(x for x in hand.eligible if x != seat),
            answered=tuple(x for x in hand.answered if x != seat),
            joined=tuple(x for x in hand.joined if x != seat),
        )
        state = replace(state, hand=hand)
    return state


def sat_out(state: TableState, e: ev.PlayerSatOut) -> TableState:
    return handed_over(with_seat(state, replace(seat_at(state, e.seat), sat_out=True), e.seat), e)


def returned(state: TableState, e: ev.PlayerReturned) -> TableState:
    return with_seat(state, replace(seat_at(state, e.seat), sat_out=False, timeouts=0), e.seat)


def closed(state: TableState, e: ev.TableClosed) -> TableState:
    return replace(state, closed=True)
