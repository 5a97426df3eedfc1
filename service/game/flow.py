"""How a hand moves on: start and deal, next turn, showdown, svara, settlement.

Each function emits the events that follow an action, reading the state they produce.
As docs/RULES.md "A hand, step by step" states them:
- Step 5: when nobody still in can put in more, the betting ends at once and the hand goes
  to showdown (`_betting_over`, wherever a turn would be handed on; the showdown is marked
  `capped`).
- Step 8: the players who may join a svara are those dealt into this hand (folded or not):
  someone who sat down mid-hand waits for the next hand, svara included. With `split`, the
  odd chip goes to the first tied player left of the dealer.
Our choices where the rules are silent (docs/RULES.md "Where the rules leave a choice"):
- The dealer must be dealt in: if the rule's dealer (first seated player, previous winner,
  or the seat after the previous dealer) is absent or cannot play, the next participant
  clockwise deals.
- A player who stands up on their blind turn ends the blind round, like a pass.
- A svara joiner must also be still seated, not sat out, and have the fee. If a tied player
  stands up during the join window and only one contender (tied or joined) is left, that
  contender takes the pot at once.
- `split` with more than two tied players: the chips that do not divide go one each to the
  tied players in order clockwise from the dealer's left.
- Rake is taken from every settled pot, svara pots once at the end: floor(pot * rake% / 100).
- Every deal has a seed of its own, even several deals made by one command
  (`Tx.deal_seed`); a hand needing a deal with a seed that is not 32 bytes is refused
  (`invalid_seed`).
Fairness (docs/FAIRNESS.md "Decks", `hmac-sha256-fy-v2`): a deal's server seed is drawn one
step ahead, by the command that creates the table, settles the previous hand or declares the
svara, which publishes its commitment (`next_commitment`) and records the seed in a secret
`seed_drawn` event; the deal then mixes in the client seeds recorded before it. A deal with no
seed pending (the first hand at a table created before v2, or a svara declared before it) is
dealt as before, v1, with the dealing command's seed. A command without a seed (some tests')
publishes no commitment, and the deal after it is v1.
"""

from __future__ import annotations

from events import table as ev
from service.game import betting, payouts
from service.game.deck import (
    ALGORITHM,
    ALGORITHM_V2,
    SEED_BYTES,
    commitment,
    deal_hands,
    mix_of,
    shuffled_deck,
    shuffled_deck_v2,
)
from service.game.errors import GameError
from service.game.scoring import score
from service.game.state import Hand, Seat, TableState
from service.game.tx import Tx


def _seed(tx: Tx) -> bytes:
    """A new seed for a deal (never one an earlier deal of this command used)."""
    if len(tx.seed) != SEED_BYTES:
        raise GameError("invalid_seed", f"dealing needs a {SEED_BYTES}-byte seed")
    return tx.deal_seed()


def _deal_seed(tx: Tx) -> tuple[bytes, str]:
    """The seed of the deal about to be made and its algorithm: the one drawn and committed to
    in advance (v2), else a new one from this command (v1: no commitment was published)."""
    pending = tx.state.next_seed
    if pending:
        return bytes.fromhex(pending), ALGORITHM_V2
    return _seed(tx), ALGORITHM


def _draw_next_seed(tx: Tx) -> str:
    """Draw the server seed of the next deal now, ahead of it: returns its commitment, for the
    event being emitted to publish, and the caller emits `seed_drawn` right after that event.
    "" when this command has no seed (nothing is published; the next deal is v1)."""
    if len(tx.seed) != SEED_BYTES:
        return ""
    seed = tx.deal_seed()
    tx.pending_seed = seed
    return commitment(seed)


def _seed_drawn(tx: Tx) -> None:
    """The secret `seed_drawn` after the event that published its commitment."""
    seed = tx.pending_seed
    if seed is not None:
        tx.pending_seed = None
        tx.emit(ev.SeedDrawn(commitment=commitment(seed), seed=seed.hex()))


def _dealt(
    tx: Tx,
    number: int,
    deal: int,
    participants: tuple[int, ...],
    seed: bytes,
    algorithm: str,
) -> None:
    if algorithm == ALGORITHM_V2:
        seats = tx.state.seats
        client_seeds: dict[int, str] = {}
        for seat in sorted(participants):
            s = seats[seat]
            if s is not None and s.client_seed:
                client_seeds[seat] = s.client_seed
        mix = mix_of(client_seeds)
        deck = shuffled_deck_v2(seed, tx.table_id, number, deal, mix)
        dealt = ev.CardsDealt(
            deal=deal,
            cards=dict(zip(participants, deal_hands(deck, len(participants)), strict=True)),
            algorithm=algorithm,
            client_seeds=client_seeds,
            mix=mix,
        )
    else:
        deck = shuffled_deck(seed, tx.table_id, number, deal)
        hands = deal_hands(deck, len(participants))
        dealt = ev.CardsDealt(deal=deal, cards=dict(zip(participants, hands, strict=True)))
    tx.emit(dealt)
    if not _betting_over(tx):
        _turn(tx, participants[0], "blind")


def _turn(tx: Tx, seat: int, phase: ev.Phase) -> None:
    tx.hand_turn(seat, tx.now + tx.settings.turn_seconds, phase)


def _betting_over(tx: Tx) -> bool:
    """docs/RULES.md step 5: when nobody still in can put in more (everyone has put in `level` and
    `level` is at the cap), the betting ends at once and the hand goes to showdown; nobody is
    ever asked to "call 0". Checked wherever a turn would be handed on."""
    state = tx.state
    hand = tx.hand
    if not betting.nobody_can_bet(state, hand):
        return False
    showdown(tx, capped=True)
    return True


def choose_dealer(state: TableState, eligible: list[Seat]) -> int:
    """The first eligible seat clockwise from the rule's dealer (`eligible` in seat order)."""
    start = state.next_dealer
    if start is None:
        present = [s for s in state.seats if s is not None]
        start = min(present, key=lambda s: s.order).seat
    for s in eligible:
        if s.seat >= start:
            return s.seat
    if not eligible:
        raise AssertionError("no eligible dealer")
    return eligible[0].seat  # wrapped past the last seat


def start_hand(tx: Tx) -> None:
    """Deal a new hand to every eligible player (the caller checked there are 2 or more)."""
    state = tx.state
    eligible = state.eligible_seats()  # in seat order: the seats tuple is indexed by number
    seed, algorithm = _deal_seed(tx)
    dealer = choose_dealer(state, eligible)
    numbers = [s.seat for s in eligible]
    cut = numbers.index(dealer) + 1
    participants = (*numbers[cut:], *numbers[:cut])  # clockwise from the dealer's left
    number = state.hand_number + 1
    ante = state.pending_ante or state.settings.ante
    # a tournament table deals in a stack below the ante, which pays all it has
    short = {n: st.stack for n in participants if (st := state.seats[n]) and st.stack < ante}
    tx.emit(
        ev.HandStarted(
            number=number,
            dealer=dealer,
            participants=participants,
            commitment=commitment(seed),
            seed=seed.hex(),
            algorithm=algorithm,
        )
    )
    pot = ante * len(participants) - sum(ante - paid for paid in short.values())
    tx.emit(ev.AntesPaid(ante=ante, seats=participants, pot=pot, short=short or None))
    _dealt(tx, number, 1, participants, seed, algorithm)


def maybe_start_hand(tx: Tx) -> None:
    """Start a hand now if one is due (between hands, pause over, 2+ eligible players)."""
    state = tx.state
    if not state.can_start_hand():
        return
    if state.next_hand_at is not None and tx.now < state.next_hand_at:
        return
    start_hand(tx)


def next_hand_without_pause(tx: Tx) -> None:
    """After a command that settled a hand at a table with no pause between hands: deal the
    next one with this same command (its clock and seed), as the Tick at `next_hand_at` would
    have -- one append instead of two. A command without a seed (some tests') leaves it to the
    Tick."""
    if (
        tx.settings.next_hand_seconds == 0
        and len(tx.seed) == SEED_BYTES
        and any(type(e) is ev.HandSettled for e in tx.events)
    ):
        maybe_start_hand(tx)


def start_betting(tx: Tx) -> None:
    if _betting_over(tx):
        return
    hand = tx.hand
    first = None
    if hand.last_blind_seat is not None:
        first = betting.next_live(hand, hand.last_blind_seat, wrap=True)
    if first is None:
        first = betting.live_players(hand)[0]
    _turn(tx, first.seat, "betting")


def blind_round_over(tx: Tx) -> None:
    """A pass (or a departure on the blind turn) ends the blind round for everyone."""
    if not won_by_folds(tx):
        start_betting(tx)


def after_blind_turn(tx: Tx, seat: int) -> None:
    """The blind chain continues with the next player still in, unless `seat` was the last
    of the chain (the dealer's end) or that player has looked."""
    hand = tx.hand
    if won_by_folds(tx, hand):
        return
    nxt = betting.next_live(hand, seat, wrap=False)
    if nxt is None or nxt.looked:
        start_betting(tx)
    elif not _betting_over(tx):
        _turn(tx, nxt.seat, "blind")


def after_bet(tx: Tx, seat: int) -> None:
    """After `seat` acted in the betting round: next turn, or the round is over."""
    hand = tx.hand
    if won_by_folds(tx, hand) or _betting_over(tx):
        return
    nxt = betting.next_to_act(hand, seat)
    if nxt is None:
        showdown(tx)
    else:
        _turn(tx, nxt.seat, "betting")


def won_by_folds(tx: Tx, hand: Hand | None = None) -> bool:
    """Settle to the last player still in, if only one is; `hand`: tx.hand if known."""
    last = None
    for p in (hand or tx.hand).players:
        if not p.folded:
            if last is not None:
                return False
            last = p
    assert last is not None
    settle(tx, (last.seat,), "last_player")
    return True


def showdown(tx: Tx, *, capped: bool = False) -> None:
    """The players still in show; `capped`: the betting ended because nobody could put in
    more (docs/RULES.md step 5), not after a full round."""
    hand = tx.hand
    options = tx.settings.scoring
    shown: dict[int, ev.ShownHand] = {}
    for p in hand.players:
        if not p.folded:
            assert p.cards is not None
            shown[p.seat] = ev.ShownHand(cards=p.cards, score=score(p.cards, options))
    tx.emit(ev.ShowdownHappened(deal=hand.deal, hands=shown, capped=capped))
    best = max(h.score for h in shown.values())
    tied = tuple(seat for seat, h in shown.items() if h.score == best)
    if len(tied) == 1:
        settle(tx, tied, "showdown")
    elif tx.settings.svara == "split":
        settle(tx, tied, "split")
    else:
        start_svara(tx, tied)


def start_svara(tx: Tx, tied: tuple[int, ...]) -> None:
    state = tx.state
    hand = tx.hand
    settings = state.settings
    fee = payouts.svara_fee(settings.svara_join_fee, settings.ante, hand.pot, len(tied))
    n = settings.max_seats
    eligible = tuple(
        s.seat
        for s in sorted(
            (s for s in state.seats if s is not None),
            key=lambda s: betting.order_key(s.seat, hand.dealer, n),
        )
        if s.seat not in tied and s.user_id in hand.dealt_in and not s.sat_out and s.stack >= fee
    )
    tx.emit(
        ev.SvaraStarted(
            tied=tied,
            fee=fee,
            eligible=eligible,
            join_deadline=tx.now + settings.join_seconds,
            pot=hand.pot,
            next_commitment=_draw_next_seed(tx),
        )
    )
    _seed_drawn(tx)
    if not eligible:
        close_svara_window(tx)


def svara_answered(tx: Tx) -> None:
    """After an answer or a departure in the join window: settle, deal, or wait on."""
    hand = tx.hand
    last_one = len(hand.tied) + len(hand.joined) == 1
    if last_one or all(seat in hand.answered for seat in hand.eligible):
        close_svara_window(tx)


def close_svara_window(tx: Tx) -> None:
    hand = tx.hand
    n = tx.settings.max_seats
    contenders = tuple(
        sorted({*hand.tied, *hand.joined}, key=lambda s: betting.order_key(s, hand.dealer, n))
    )
    if len(contenders) == 1:
        settle(tx, contenders, "svara_walkover")
        return
    seed, algorithm = _deal_seed(tx)
    deal = hand.deal + 1
    tx.emit(
        ev.SvaraDealStarted(
            deal=deal, participants=contenders, commitment=commitment(seed), seed=seed.hex()
        )
    )
    _dealt(tx, hand.number, deal, contenders, seed, algorithm)


def settle(tx: Tx, winners: tuple[int, ...], reason: ev.SettleReason) -> None:
    hand = tx.hand
    settings = tx.settings
    n = settings.max_seats
    if len(winners) > 1:
        winners = tuple(sorted(winners, key=lambda s: betting.order_key(s, hand.dealer, n)))
    ordered = winners
    pot = hand.pot
    rake, amounts = payouts.payout(pot, settings.rake_percent, ordered)
    next_dealer = ordered[0] if settings.dealer == "winner" else (hand.dealer + 1) % n
    tx.emit(
        ev.HandSettled(
            number=hand.number,
            winners=ordered,
            amounts=amounts,
            pot=pot,
            rake=rake,
            reason=reason,
            seeds=hand.seeds,
            next_hand_at=tx.now + settings.next_hand_seconds,
            next_dealer=next_dealer,
            next_commitment=_draw_next_seed(tx),
        )
    )
    _seed_drawn(tx)
