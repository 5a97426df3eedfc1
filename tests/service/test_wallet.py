"""The pure wallet decider: idempotent transfer steps and chip conservation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events.wallet import (
    AnyWalletEvent,
    BuyInCompleted,
    BuyInReserved,
    CashedOut,
    ChipsGranted,
    decode_wallet_event,
    encode_wallet_event,
)
from service.game import wallet as w
from service.game.errors import GameError

NOW = 1_800_000_000.0


def apply(state: w.WalletState, events: list[AnyWalletEvent]) -> w.WalletState:
    for event in events:
        assert decode_wallet_event(encode_wallet_event(event)) == event
    return w.fold(events, state)


def test_start_grant_only_once() -> None:
    state = apply(w.EMPTY, w.grant(w.EMPTY, reason="start", amount=1000, now=NOW))
    assert state.balance == 1000 and state.opened
    assert w.grant(state, reason="start", amount=1000, now=NOW) == []


def test_daily_topup_only_when_dry_and_once_a_day() -> None:
    state = apply(w.EMPTY, w.grant(w.EMPTY, reason="start", amount=1000, now=NOW))
    assert w.grant(state, reason="daily_topup", amount=1000, now=NOW + 86_400) == []
    state = apply(state, w.reserve(state, transfer_id="t", table_id="x", amount=1000, expires_at=1))
    state = apply(state, w.complete(state, transfer_id="t"))
    assert state.balance == 0 and state.tables == ["x"]
    # dry wallet, but still seated: no top-up
    assert w.grant(state, reason="daily_topup", amount=1000, now=NOW + 86_400) == []
    state = apply(state, w.cash_out(state, transfer_id="o", table_id="x", amount=0))
    assert state.tables == []
    # the start grant was today: no second grant today
    assert w.grant(state, reason="daily_topup", amount=1000, now=NOW) == []
    events = w.grant(state, reason="daily_topup", amount=1000, now=NOW + 86_400)
    assert [type(e) for e in events] == [ChipsGranted]
    state = apply(state, events)
    assert w.grant(state, reason="daily_topup", amount=1000, now=NOW + 86_401) == []


def test_reserve_refuses_more_than_balance_and_non_positive() -> None:
    state = apply(w.EMPTY, w.grant(w.EMPTY, reason="start", amount=100, now=NOW))
    with pytest.raises(GameError) as info:
        w.reserve(state, transfer_id="t", table_id="x", amount=101, expires_at=1)
    assert info.value.code == "insufficient_funds"
    with pytest.raises(GameError) as info:
        w.reserve(state, transfer_id="t", table_id="x", amount=0, expires_at=1)
    assert info.value.code == "invalid_amount"


def test_transfer_steps_are_idempotent() -> None:
    state = apply(w.EMPTY, w.grant(w.EMPTY, reason="start", amount=100, now=NOW))
    first = w.reserve(state, transfer_id="t", table_id="x", amount=60, expires_at=1)
    assert [type(e) for e in first] == [BuyInReserved]
    state = apply(state, first)
    assert w.reserve(state, transfer_id="t", table_id="x", amount=60, expires_at=1) == []
    done = w.complete(state, transfer_id="t")
    assert [type(e) for e in done] == [BuyInCompleted]
    state = apply(state, done)
    assert w.complete(state, transfer_id="t") == []
    assert w.release(state, transfer_id="t", reason="late") == []  # completed: cannot release
    assert w.reserve(state, transfer_id="t", table_id="x", amount=60, expires_at=1) == []
    paid = w.cash_out(state, transfer_id="o", table_id="x", amount=75)
    assert [type(e) for e in paid] == [CashedOut]
    state = apply(state, paid)
    assert w.cash_out(state, transfer_id="o", table_id="x", amount=75) == []
    assert state.balance == 40 + 75


OPS = st.lists(
    st.tuples(
        st.sampled_from(["grant", "reserve", "release", "complete", "leave", "cash", "cancel"]),
        st.integers(0, 4),  # transfer number
        st.integers(-5, 300),  # amount
    ),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(OPS)
def test_random_operations_conserve_chips(ops: list[tuple[str, int, int]]) -> None:
    """balance + held + chips at tables == granted, balance never negative, steps idempotent
    (each step a command through `decide`)."""
    state = w.EMPTY
    at_tables = 0  # chips the wallet believes the tables hold for it
    for op, n, amount in ops:
        tid = f"t{n}"
        command: w.AnyWalletCommand
        if op == "grant":
            command = w.GrantChips(reason="practice", amount=amount, now=NOW)
        elif op == "reserve":
            command = w.ReserveBuyIn(transfer_id=tid, table_id="x", amount=amount, expires_at=1)
        elif op == "release":
            command = w.ReleaseReservation(transfer_id=tid, reason="test")
        elif op == "complete":
            command = w.CompleteBuyIn(transfer_id=tid)
        elif op == "leave":
            command = w.RequestCashOut(transfer_id="o" + tid, table_id="x", now=NOW)
        elif op == "cash":
            pay = min(max(amount, 0), at_tables)
            command = w.CashOut(transfer_id="o" + tid, table_id="x", amount=pay)
        else:
            command = w.CancelCashOut(transfer_id="o" + tid, reason="test")
        try:
            events = w.decide(state, command)
        except GameError as error:
            assert error.code in {"insufficient_funds", "invalid_amount"}
            continue
        for event in events:
            if isinstance(event, BuyInCompleted):
                at_tables += state.reserved[event.transfer_id].amount
            if isinstance(event, CashedOut):
                at_tables -= event.amount
        state = apply(state, events)
        assert state.balance >= 0
        assert state.balance + state.held + at_tables == state.granted


def test_next_topup_is_now_until_granted_today_then_the_next_utc_day() -> None:
    day_start = (NOW // 86_400) * 86_400
    assert w.next_topup_at(w.EMPTY, NOW) == NOW  # nothing granted yet today
    state = apply(w.EMPTY, w.grant(w.EMPTY, reason="start", amount=1000, now=NOW))
    assert w.next_topup_at(state, NOW) == day_start + 86_400  # the start grant was today
    assert w.next_topup_at(state, day_start + 86_400 + 5) == day_start + 86_400 + 5
