"""Betting arithmetic: the level cap, bet ranges and turn order. Pure queries on a state.

docs/RULES.md "A hand, step by step", step 5, states each of these; where each is implemented:
- The cap is `min(put_in + stack)` over players still in (`cap`). When a bet's minimum (the
  first blind's bet_unit, a doubled blind, level + bet_unit, twice the last blind) is above
  the cap but the cap is above the level, the only bet allowed is *exactly the cap* (a bet
  "for what they have", `_bounded`). When the cap equals the level a player who owes chips
  may `call` even where it normally is not allowed (matching a blind by paying the cap).
- When everyone still in has put in the level and the level is at the cap, the betting is
  over (`nobody_can_bet`): the hand goes to showdown at once, nobody is asked to "call 0".
- Calling 0 chips is a check, which Svara does not have: the player raises or folds.
- Raise counts and blind flags are per deal: a svara deal starts them afresh.
"""

from __future__ import annotations

from service.game.state import Hand, Player, TableState


def cap(state: TableState, hand: Hand) -> int:
    """The highest level any bet may reach: what the poorest player still in can cover."""
    seats = state.seats
    best: int | None = None
    for p in hand.players:
        if not p.folded:
            s = seats[p.seat]
            reach = p.put_in + (s.stack if s is not None else 0)
            if best is None or reach < best:
                best = reach
    return 0 if best is None else best


def nobody_can_bet(state: TableState, hand: Hand) -> bool:
    """Everyone still in has put in `level` and `level` is at the cap (someone still in has no
    chips left): no bet, call or raise can add a chip, so the betting is over."""
    level = hand.level
    seats = state.seats
    broke = False
    for p in hand.players:
        if p.folded:
            continue
        if p.put_in != level:
            return False
        s = seats[p.seat]
        if s is None or s.stack == 0:
            broke = True
    return broke


def _bounded(low: int, high: int, top: int, level: int) -> tuple[int, int] | None:
    """Clamp a bet range [low, high] by the cap `top`; exactly the cap if low is above it."""
    if high > top:
        high = top
    if low <= high:
        return low, high
    if top > level:
        return top, top
    return None


def blind_range(state: TableState, hand: Hand) -> tuple[int, int] | None:
    """The blind sizes the player on turn may place (None: no blind is possible)."""
    top = cap(state, hand)
    last = hand.last_blind
    if last == 0:
        return _bounded(state.settings.unit, top, top, hand.level)
    if state.settings.blind_raise == "double":
        return _bounded(2 * last, 2 * last, top, hand.level)
    return _bounded(2 * last, top, top, hand.level)


def raise_range(state: TableState, hand: Hand, player: Player) -> tuple[int, int] | None:
    """New levels `player` may raise to, ignoring the raise limit (None: the cap forbids it)."""
    top = cap(state, hand)
    low = hand.level + state.settings.unit
    if hand.must_double and not player.blind and 2 * hand.last_blind > low:
        low = 2 * hand.last_blind
    return _bounded(low, top, top, hand.level)


def can_raise(state: TableState, hand: Hand, player: Player) -> bool:
    if player.raises >= state.settings.max_raises:
        return False
    return raise_range(state, hand, player) is not None


def call_refusal(state: TableState, hand: Hand, player: Player) -> str | None:
    """Why `player` may not call now (an error code), or None if calling is allowed."""
    return call_refusal_given(state, hand, player, raise_range(state, hand, player))


def call_refusal_given(
    state: TableState, hand: Hand, player: Player, raise_bounds: tuple[int, int] | None
) -> str | None:
    """`call_refusal` when the player's `raise_range` is already known."""
    if hand.level <= player.put_in:
        return "no_check"  # calling 0 chips is a check (and the capped case ends the betting)
    if raise_bounds is None or player.raises >= state.settings.max_raises:
        return None  # the level is capped (a blind is matched by paying the cap), or no raise
    if hand.must_double and not player.blind:
        return "cannot_call_blind"
    return None


def order_key(seat: int, dealer: int, max_seats: int) -> int:
    """Position clockwise from the dealer's left (0) to the dealer (max_seats - 1)."""
    return (seat - dealer - 1) % max_seats


def next_live(hand: Hand, seat: int, wrap: bool) -> Player | None:
    """The first player still in after `seat` (a player of this deal) in playing order; past
    the dealer's end of the order only if `wrap`."""
    players = hand.players
    n = len(players)
    i = hand.index_of(seat)
    stop = i + n if wrap else n
    for k in range(i + 1, stop):
        p = players[k % n]
        if not p.folded:
            return p
    return None


def next_to_act(hand: Hand, seat: int) -> Player | None:
    """The next player after `seat` who still owes an action this betting round, or None when
    everyone still in has matched the level and acted since the last raise."""
    players = hand.players
    n = len(players)
    i = hand.index_of(seat)
    level = hand.level
    for k in range(i + 1, i + n):
        p = players[k % n]
        if not p.folded and (not p.acted or p.put_in < level):
            return p
    return None


def live_players(hand: Hand) -> list[Player]:
    return [p for p in hand.players if not p.folded]
