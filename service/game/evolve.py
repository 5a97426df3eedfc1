"""`evolve(state, event) -> state`: apply one fact. Pure, total over valid logs, no decisions.

Events carry every decision (whose turn, which round, who won what), so applying one is
bookkeeping: rebuild the touched structs, share the rest. `fold` replays a whole log.

These handlers are the inner loop of both replay and the decider, so the frequent ones
(turns, bets, folds, looks, deals) are written flat: the hand fetched inline, players
rebuilt in one pass, no keyword-forwarding helpers. The rare ones stay plain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from msgspec.structs import replace

from events import table as ev
from events.table import TableEvent
from service.game.state import Hand, HandResult, Player, Seat, TableState


def _seat(state: TableState, seat: int) -> Seat:
    s = state.seats[seat]
    assert s is not None, f"no player at seat {seat}"
    return s


def _with_seat(state: TableState, seat: Seat | None, number: int, **changes: Any) -> TableState:
    seats = state.seats
    return replace(state, seats=(*seats[:number], seat, *seats[number + 1 :]), **changes)


def _hand(state: TableState) -> Hand:
    hand = state.hand
    if hand is None:
        raise AssertionError("no hand in progress")
    return hand


def _with_player(hand: Hand, seat: int, **changes: Any) -> tuple[Player, ...]:
    players = hand.players
    for i, p in enumerate(players):
        if p.seat == seat:
            return (*players[:i], replace(p, **changes), *players[i + 1 :])
    raise AssertionError(f"seat {seat} is not in the hand")


def _pay(state: TableState, number: int, amount: int, **hand_changes: Any) -> TableState:
    """Move `amount` from a seat's stack into the pot; the player acted on their own."""
    hand = _hand(state)
    return _staked(state, number, amount, replace(hand, pot=hand.pot + amount, **hand_changes))


def _staked(state: TableState, number: int, amount: int, hand: Hand) -> TableState:
    """`hand` (pot already raised by `amount`) with `amount` taken from the seat's stack.
    The hot path of betting, so it avoids keyword plumbing."""
    seats = list(state.seats)  # list, set, tuple: half the cost of slicing around the seat
    s = seats[number]
    assert s is not None
    seats[number] = replace(s, stack=s.stack - amount, timeouts=0)
    return replace(state, seats=tuple(seats), hand=hand)


def _reset_timeouts(state: TableState, number: int) -> TableState:
    s = state.seats[number]
    if s is None or s.timeouts == 0:
        return state
    return _with_seat(state, replace(s, timeouts=0), number)


def _table_created(state: TableState | None, e: ev.TableCreated) -> TableState:
    assert state is None, "table already created"
    return TableState(
        table_id=e.table_id,
        settings=e.settings,
        created_by=e.created_by,
        seats=(None,) * e.settings.max_seats,
        next_commitment=e.next_commitment,
        empty_since=e.created_at,
        idle_close_seconds=e.idle_close_seconds,
    )


def _seed_drawn(state: TableState, e: ev.SeedDrawn) -> TableState:
    return replace(state, next_commitment=e.commitment, next_seed=e.seed)


def _client_seed_set(state: TableState, e: ev.ClientSeedSet) -> TableState:
    return _with_seat(state, replace(_seat(state, e.seat), client_seed=e.client_seed), e.seat)


def _player_seated(state: TableState, e: ev.PlayerSeated) -> TableState:
    seat = Seat(
        seat=e.seat, user_id=e.user_id, name=e.name, stack=e.buy_in, order=state.seat_counter
    )
    return _with_seat(
        state,
        seat,
        e.seat,
        seat_counter=state.seat_counter + 1,
        bought_in=state.bought_in + e.buy_in,
        empty_since=None,
    )


def _player_left(state: TableState, e: ev.PlayerLeft) -> TableState:
    state = _with_seat(state, None, e.seat, cashed_out=state.cashed_out + e.cashed_out)
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


def _dealt_in(state: TableState, participants: tuple[int, ...]) -> list[Player]:
    """Fresh players for a deal, in playing order."""
    players = []
    for number in participants:
        s = state.seats[number]
        assert s is not None
        players.append(Player(seat=number, user_id=s.user_id))
    return players


def _hand_started(state: TableState, e: ev.HandStarted) -> TableState:
    players = _dealt_in(state, e.participants)
    hand = Hand(
        number=e.number,
        deal=1,
        dealer=e.dealer,
        phase="blind",
        players=tuple(players),
        dealt_in=tuple([p.user_id for p in players]),
        commitment=e.commitment,
        seeds=(ev.DealSeed(deal=1, commitment=e.commitment, seed=e.seed),),
    )
    return replace(
        state,
        hand=hand,
        hand_number=e.number,
        next_hand_at=None,
        next_commitment="",  # a pending seed is used by this deal
        next_seed="",
    )


def _antes_paid(state: TableState, e: ev.AntesPaid) -> TableState:
    seats = list(state.seats)
    for number in e.seats:
        s = seats[number]
        assert s is not None
        seats[number] = replace(s, stack=s.stack - e.ante)
    return replace(state, seats=tuple(seats), hand=replace(_hand(state), pot=e.pot))


def _cards_dealt(state: TableState, e: ev.CardsDealt) -> TableState:
    hand = state.hand
    assert hand is not None, "no hand in progress"
    cards = e.cards
    players = tuple(
        [replace(p, cards=cards[p.seat]) if p.seat in cards else p for p in hand.players]
    )
    return handed_over(replace(state, hand=replace(hand, players=players)), e)


def _blind_placed(state: TableState, e: ev.BlindPlaced) -> TableState:
    hand = state.hand
    assert hand is not None, "no hand in progress"
    seat = e.seat
    amount = e.amount
    players = list(hand.players)
    i = _index(players, seat)
    players[i] = replace(players[i], put_in=amount, blind=True, acted=True)
    new_hand = replace(
        hand,
        players=tuple(players),
        pot=hand.pot + amount,
        level=amount,
        last_blind=amount,
        last_blind_seat=seat,
    )
    return handed_over(_staked(state, seat, amount, new_hand), e)


def _passed(state: TableState, e: ev.Passed) -> TableState:
    return handed_over(_reset_timeouts(state, e.seat), e)


def _looked(state: TableState, e: ev.Looked) -> TableState:
    hand = state.hand
    assert hand is not None, "no hand in progress"
    players = list(hand.players)
    seat = e.seat
    i = _index(players, seat)
    players[i] = replace(players[i], looked=True)
    return handed_over(_own_action(state, seat, replace(hand, players=tuple(players))), e)


def _called(state: TableState, e: ev.Called) -> TableState:
    hand = state.hand
    assert hand is not None, "no hand in progress"
    amount = e.amount
    players = list(hand.players)
    i = _index(players, e.seat)
    p = players[i]
    players[i] = replace(p, put_in=p.put_in + amount, acted=True)
    if e.turn is not None and e.phase == hand.phase:  # the usual case, in one rebuild
        new_hand = replace(
            hand,
            players=tuple(players),
            pot=hand.pot + amount,
            turn=e.turn,
            turn_deadline=e.deadline,
        )
        return _staked(state, e.seat, amount, new_hand)
    new_hand = replace(hand, players=tuple(players), pot=hand.pot + amount)
    return handed_over(_staked(state, e.seat, amount, new_hand), e)


def _raised(state: TableState, e: ev.Raised) -> TableState:
    hand = state.hand
    assert hand is not None, "no hand in progress"
    seat = e.seat
    amount = e.amount
    players = tuple(
        [
            replace(p, put_in=p.put_in + amount, raises=p.raises + 1, acted=True)
            if p.seat == seat
            else (replace(p, acted=False) if p.acted else p)
            for p in hand.players
        ]
    )
    if e.turn is not None and e.phase == hand.phase:  # the usual case, in one rebuild
        new_hand = replace(
            hand,
            players=players,
            pot=hand.pot + amount,
            level=e.level,
            must_double=False,
            turn=e.turn,
            turn_deadline=e.deadline,
        )
        return _staked(state, seat, amount, new_hand)
    new_hand = replace(
        hand, players=players, pot=hand.pot + amount, level=e.level, must_double=False
    )
    return handed_over(_staked(state, seat, amount, new_hand), e)


def _index(players: Sequence[Player], seat: int) -> int:
    for i, p in enumerate(players):
        if p.seat == seat:
            return i
    raise AssertionError(f"seat {seat} is not in the hand")


def _own_action(state: TableState, seat: int, hand: Hand) -> TableState:
    """`state` with `hand`; `seat` acted on their own, so their timeouts reset.
    Shared by the two most frequent flag events (looked, folded), each struct rebuilt once."""
    seats = state.seats
    s = seats[seat]
    if s is None or s.timeouts == 0:
        return replace(state, hand=hand)
    seats_list = list(seats)
    seats_list[seat] = replace(s, timeouts=0)
    return replace(state, seats=tuple(seats_list), hand=hand)


def _fold_player(state: TableState, seat: int) -> TableState:
    hand = _hand(state)
    return replace(state, hand=replace(hand, players=_with_player(hand, seat, folded=True)))


def _folded(state: TableState, e: ev.Folded) -> TableState:
    hand = state.hand
    assert hand is not None, "no hand in progress"
    players = list(hand.players)
    seat = e.seat
    i = _index(players, seat)
    players[i] = replace(players[i], folded=True)
    if e.turn is not None and e.phase == hand.phase:  # the usual case, in one rebuild
        new_hand = replace(
            hand, players=tuple(players), turn=e.turn, turn_deadline=e.deadline
        )
        return _own_action(state, seat, new_hand)
    return handed_over(_own_action(state, seat, replace(hand, players=tuple(players))), e)


def _hand_turn(state: TableState, seat: int, deadline: float, phase: ev.Phase) -> TableState:
    """`seat`'s move in round `phase` until `deadline` (a blind round ending doubles)."""
    hand = state.hand
    assert hand is not None, "no hand in progress"
    if hand.phase == "blind" and phase == "betting":
        hand = replace(
            hand,
            turn=seat,
            turn_deadline=deadline,
            phase="betting",
            must_double=hand.last_blind > 0,
        )
    else:
        hand = replace(hand, turn=seat, turn_deadline=deadline, phase=phase)
    return replace(state, hand=hand)


def _turn_deadline_set(state: TableState, e: ev.TurnDeadlineSet) -> TableState:
    return _hand_turn(state, e.seat, e.deadline, e.phase)


def handed_over(state: TableState, e: ev.TurnHandover) -> TableState:
    """The turn part of a `TurnHandover` event, applied after the rest of it (also what
    `Tx` applies when it hands the turn on with an event it already applied)."""
    if e.turn is None:
        return state
    assert e.deadline is not None and e.phase is not None
    return _hand_turn(state, e.turn, e.deadline, e.phase)


def _timed_out(state: TableState, e: ev.TimedOut) -> TableState:
    if e.action == "skip_svara":
        hand = _hand(state)
        return replace(state, hand=replace(hand, answered=(*hand.answered, e.seat)))
    s = _seat(state, e.seat)
    state = _with_seat(state, replace(s, timeouts=s.timeouts + 1), e.seat)
    if e.action == "fold":
        state = _fold_player(state, e.seat)
    return handed_over(state, e)


def _showdown(state: TableState, e: ev.ShowdownHappened) -> TableState:
    hand = replace(_hand(state), shown=e.hands, turn=None, turn_deadline=None)
    return replace(state, hand=hand)


def _svara_started(state: TableState, e: ev.SvaraStarted) -> TableState:
    hand = replace(
        _hand(state),
        phase="svara_join",
        tied=e.tied,
        svara_fee=e.fee,
        eligible=e.eligible,
        answered=(),
        joined=(),
        join_deadline=e.join_deadline,
        turn=None,
        turn_deadline=None,
    )
    return replace(state, hand=hand, next_commitment=e.next_commitment, next_seed="")


def _svara_joined(state: TableState, e: ev.SvaraJoined) -> TableState:
    hand = _hand(state)
    return _pay(
        state,
        e.seat,
        e.fee,
        answered=(*hand.answered, e.seat),
        joined=(*hand.joined, e.seat),
    )


def _svara_skipped(state: TableState, e: ev.SvaraSkipped) -> TableState:
    hand = _hand(state)
    state = replace(state, hand=replace(hand, answered=(*hand.answered, e.seat)))
    return _reset_timeouts(state, e.seat)


def _svara_deal_started(state: TableState, e: ev.SvaraDealStarted) -> TableState:
    hand = _hand(state)
    players = _dealt_in(state, e.participants)
    hand = replace(
        hand,
        deal=e.deal,
        phase="blind",
        players=tuple(players),
        level=0,
        turn=None,
        turn_deadline=None,
        commitment=e.commitment,
        seeds=(*hand.seeds, ev.DealSeed(deal=e.deal, commitment=e.commitment, seed=e.seed)),
        last_blind=0,
        last_blind_seat=None,
        must_double=False,
        tied=(),
        svara_fee=0,
        eligible=(),
        answered=(),
        joined=(),
        join_deadline=None,
        shown={},
    )
    return replace(state, hand=hand, next_commitment="", next_seed="")


def _hand_settled(state: TableState, e: ev.HandSettled) -> TableState:
    seats = list(state.seats)
    for number, amount in e.amounts.items():
        s = seats[number]
        assert s is not None
        seats[number] = replace(s, stack=s.stack + amount)
    hand = replace(
        _hand(state),
        phase="settled",
        pot=0,
        turn=None,
        turn_deadline=None,
        join_deadline=None,
        result=HandResult(
            winners=e.winners, amounts=e.amounts, pot=e.pot, rake=e.rake, reason=e.reason
        ),
    )
    return replace(
        state,
        seats=tuple(seats),
        hand=hand,
        rake_total=state.rake_total + e.rake,
        next_hand_at=e.next_hand_at,
        next_dealer=e.next_dealer,
        next_commitment=e.next_commitment,
        next_seed="",
    )


def _sat_out(state: TableState, e: ev.PlayerSatOut) -> TableState:
    return handed_over(_with_seat(state, replace(_seat(state, e.seat), sat_out=True), e.seat), e)


def _returned(state: TableState, e: ev.PlayerReturned) -> TableState:
    return _with_seat(state, replace(_seat(state, e.seat), sat_out=False, timeouts=0), e.seat)


def _closed(state: TableState, e: ev.TableClosed) -> TableState:
    return replace(state, closed=True)


APPLY: dict[type, Callable[[Any, Any], TableState]] = {
    ev.TableCreated: _table_created,
    ev.PlayerSeated: _player_seated,
    ev.PlayerLeft: _player_left,
    ev.HandStarted: _hand_started,
    ev.AntesPaid: _antes_paid,
    ev.CardsDealt: _cards_dealt,
    ev.BlindPlaced: _blind_placed,
    ev.Passed: _passed,
    ev.Looked: _looked,
    ev.Called: _called,
    ev.Raised: _raised,
    ev.Folded: _folded,
    ev.TurnDeadlineSet: _turn_deadline_set,
    ev.TimedOut: _timed_out,
    ev.ShowdownHappened: _showdown,
    ev.SvaraStarted: _svara_started,
    ev.SvaraJoined: _svara_joined,
    ev.SvaraSkipped: _svara_skipped,
    ev.SvaraDealStarted: _svara_deal_started,
    ev.HandSettled: _hand_settled,
    ev.PlayerSatOut: _sat_out,
    ev.PlayerReturned: _returned,
    ev.SeedDrawn: _seed_drawn,
    ev.ClientSeedSet: _client_seed_set,
    ev.TableClosed: _closed,
}


def evolve(state: TableState | None, event: TableEvent) -> TableState:
    """The state after `event`. Never mutates `state`."""
    apply = APPLY[type(event)]
    if state is None and apply is not _table_created:
        raise ValueError(f"the first event of a table must be table_created, not {event!r}")
    return apply(state, event)


def fold(events: Iterable[TableEvent], state: TableState | None = None) -> TableState:
    """Replay `events` on top of `state` (None: from the table's creation)."""
    apply = APPLY
    events = iter(events)
    if state is None:  # checked once, not per event: this loop is replay's hot path
        first = next(events, None)
        if first is None:
            raise ValueError("no events to fold")
        if not isinstance(first, ev.TableCreated):
            raise ValueError("the first event of a table must be table_created")
        state = _table_created(None, first)
    for event in events:
        state = apply[type(event)](state, event)
    return state
