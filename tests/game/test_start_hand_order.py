"""The dealer and the playing order of a new hand, against the plain clockwise scan.

`flow.start_hand` picks them from the eligible seats in seat order (a cut instead of a scan
over every seat): this pins it to the rule's definition for random tables.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from events import table as ev
from service.game import flow
from service.game.settings import TableSettings
from service.game.state import Seat, TableState
from service.game.tx import Tx


def _plain_dealer(start: int, eligible: set[int], n: int) -> int:
    for k in range(n):
        if (start + k) % n in eligible:
            return (start + k) % n
    raise AssertionError("no eligible dealer")


@st.composite
def tables(draw: st.DrawFn) -> TableState:
    n = draw(st.integers(min_value=2, max_value=10))
    numbers = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=n, unique=True))
    orders = draw(st.permutations(range(len(numbers))))
    seats: list[Seat | None] = [None] * n
    for number, order in zip(numbers, orders, strict=True):
        poor = draw(st.booleans())
        seats[number] = Seat(
            seat=number,
            user_id=100 + number,
            name=str(number),
            stack=0 if poor else 50,
            order=order,
            sat_out=draw(st.booleans()) and not poor,
        )
    next_dealer = draw(st.none() | st.integers(0, n - 1))
    return TableState(
        table_id="t",
        settings=TableSettings(ante=1, max_seats=n),
        created_by=1,
        seats=tuple(seats),
        next_dealer=next_dealer,
        seat_counter=len(numbers),
    )


@settings(max_examples=300, deadline=None)
@given(tables())
def test_dealer_and_order_follow_the_clockwise_scan(state: TableState) -> None:
    eligible = state.eligible_seats()
    if len(eligible) < 2:
        return
    n = state.settings.max_seats
    start = state.next_dealer
    if start is None:
        start = min((s for s in state.seats if s is not None), key=lambda s: s.order).seat
    chosen = {s.seat for s in eligible}
    dealer = _plain_dealer(start, chosen, n)
    order = tuple((dealer + k) % n for k in range(1, n + 1) if (dealer + k) % n in chosen)

    assert flow.choose_dealer(state, eligible) == dealer
    tx = Tx(state, now=10.0, seed=bytes(32))
    flow.start_hand(tx)
    started = tx.events[0]
    assert isinstance(started, ev.HandStarted)
    assert started.dealer == dealer
    assert started.participants == order
    assert started.participants[-1] == dealer
