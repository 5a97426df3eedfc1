"""Tournament tables in the game core: all seated at once, every stack with chips dealt in
(sat out or not), a short stack's all as its ante, a new ante from the next hand, leaving
forfeits; cash tables and logs written before are unchanged."""

from __future__ import annotations

import msgspec
import pytest

from events import table as ev
from events.codec import decode_table_event, encode_table_event
from service.game import commands as cmd
from service.game.decider import fold, step
from service.game.errors import GameError
from service.game.settings import TableSettings
from service.game.state import TableState

T0 = 1_000.0
SEED = bytes(range(32))
SETTINGS = TableSettings(ante=5, max_seats=3, min_buy_in=20, max_buy_in=20, next_hand_seconds=1)


def _table(tournament_id: str = "t1") -> tuple[list[ev.TableEvent], TableState]:
    events, state = step(None, cmd.CreateTable(
        table_id="x", settings=SETTINGS, created_by=1, now=T0, seed=SEED,
        tournament_id=tournament_id,
    ))
    more, state = step(state, cmd.SeatPlayers(
        players=((1, "a"), (2, "b"), (3, "c")), stack=20, now=T0, seed=SEED
    ))
    return events + more, state


def test_seat_players_seats_everyone_and_deals_them_all() -> None:
    events, state = _table()
    assert state.tournament_id == "t1" and state.seated() == 3
    assert state.hand is not None and len(state.hand.players) == 3
    antes = next(e for e in events if isinstance(e, ev.AntesPaid))
    assert antes.pot == 15 and antes.short is None
    _, again = step(state, cmd.SeatPlayers(players=((9, "z"),), stack=20, now=T0, seed=SEED))
    assert again == state  # repeated: nothing happens


def test_seat_players_is_refused_on_a_cash_table() -> None:
    _, state = step(None, cmd.CreateTable(
        table_id="x", settings=SETTINGS, created_by=1, now=T0, seed=SEED
    ))
    with pytest.raises(GameError) as refused:
        step(state, cmd.SeatPlayers(players=((1, "a"), (2, "b")), stack=20, now=T0))
    assert refused.value.code == "not_a_tournament"


def _between_hands(state: TableState, **stacks: int) -> TableState:
    """The state with the hand settled and these seats' stacks (seat<n>=chips)."""
    seats = list(state.seats)
    for key, chips in stacks.items():
        s = seats[int(key[4:])]
        assert s is not None
        seats[int(key[4:])] = msgspec.structs.replace(s, stack=chips)
    hand = msgspec.structs.replace(state.hand, phase="settled") if state.hand else None
    return msgspec.structs.replace(state, seats=tuple(seats), hand=hand, next_hand_at=T0)


def test_sat_out_and_short_stacks_are_dealt_in_paying_what_they_have() -> None:
    _, state = _table()
    state = _between_hands(state, seat0=3, seat1=20, seat2=37)
    s1 = state.seats[1]
    assert s1 is not None
    seats = list(state.seats)
    seats[1] = msgspec.structs.replace(s1, sat_out=True)
    state = msgspec.structs.replace(state, seats=tuple(seats))
    events, after = step(state, cmd.Tick(now=T0 + 5, seed=SEED))
    antes = next(e for e in events if isinstance(e, ev.AntesPaid))
    assert sorted(antes.seats) == [0, 1, 2]  # the sat-out seat pays too
    assert antes.short == {0: 3} and antes.pot == 3 + 5 + 5
    # all in for 3: nobody still in can match more, so the hand goes to showdown at once
    assert any(isinstance(e, ev.ShowdownHappened) and e.capped for e in events)
    assert after.chips_in_play() == 60


def test_a_cash_table_still_skips_sat_out_and_short_stacks() -> None:
    _, state = step(None, cmd.CreateTable(
        table_id="x", settings=SETTINGS, created_by=1, now=T0, seed=SEED
    ))
    for user in (1, 2, 3):
        _, state = step(state, cmd.SitDown(
            user_id=user, name="p", buy_in=20, transfer_id=f"t{user}", now=T0, seed=SEED
        ))
    state = _between_hands(state, seat0=3)
    s1 = state.seats[1]
    assert s1 is not None
    seats = list(state.seats)
    seats[1] = msgspec.structs.replace(s1, sat_out=True)
    state = msgspec.structs.replace(state, seats=tuple(seats))
    assert state.eligible_seats() == [state.seats[2]]  # nobody to play with: no hand


def test_ante_changed_counts_from_the_next_hand() -> None:
    _, state = _table()
    events, state = step(state, cmd.ChangeAnte(ante=10, level=2, now=T0))
    assert events == [ev.AnteChanged(ante=10, level=2)]
    assert state.settings.ante == 5 and state.pending_ante == 10  # the hand in play keeps 5
    again, _ = step(state, cmd.ChangeAnte(ante=10, level=2, now=T0))
    assert again == []  # a level applied once
    state = _between_hands(state)
    events, state = step(state, cmd.Tick(now=T0 + 5, seed=SEED))
    antes = next(e for e in events if isinstance(e, ev.AntesPaid))
    assert antes.ante == 10 and state.settings.ante == 10 and state.pending_ante == 0


def test_leaving_a_tournament_table_forfeits_and_keeps_the_stack_in_play() -> None:
    _, state = _table()
    events, after = step(state, cmd.Leave(user_id=2, transfer_id="x", now=T0, seed=SEED))
    assert not any(isinstance(e, ev.PlayerLeft) for e in events)
    assert any(isinstance(e, ev.PlayerSatOut) and e.reason == "left" for e in events)
    assert after.seat_of(2) == 1 and after.chips_in_play() == 60


def test_old_events_decode_and_reencode_to_their_bytes() -> None:
    created = (b'{"type":"table_created","table_id":"x","settings":' +
               msgspec.json.encode(SETTINGS) + b',"created_by":1}')
    antes = b'{"type":"antes_paid","ante":5,"seats":[0,1],"pot":10}'
    for raw in (created, antes):
        assert encode_table_event(decode_table_event(raw)) == raw
    state = fold([decode_table_event(created)])
    assert state.tournament_id == "" and state.ante_level == 1


def test_a_tournament_table_refuses_a_rebuy_and_nothing_happens() -> None:
    _, state = _table()
    with pytest.raises(GameError) as refused:
        step(state, cmd.Leave(user_id=2, transfer_id="x", rebuy=20, now=T0, seed=SEED))
    assert refused.value.code == "tournament_table"
