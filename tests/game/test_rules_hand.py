"""docs/RULES.md "A hand, step by step", steps 1-7: one test (or a few) per rule, named after it."""

from __future__ import annotations

import hashlib

import pytest

from events import table as ev
from service.game import commands as cmd
from service.game.decider import decide, fold
from service.game.deck import deal_hands, mix_of, shuffled_deck_v2
from service.game.legal import legal_actions
from service.game.scoring import score
from tests.game.tablekit import T0, Table, seed_of, seed_where, table_with

A, B, C, D = 11, 12, 13, 14


# --- 1. Start ------------------------------------------------------------------------------


def test_start_a_hand_needs_two_players_who_can_pay_the_ante() -> None:
    t = Table(ante=5)
    assert t.sit(A, 50) == t.log[-1:]  # alone: nothing starts
    assert t.s.phase == "waiting" and t.s.deadline is None
    t.refused("not_due", cmd.Tick(now=T0 + 999, seed=seed_of(1)))
    events = t.sit(B, 50)
    assert t.types(events)[:4] == ["player_seated", "hand_started", "antes_paid", "cards_dealt"]
    started = events[1]
    assert isinstance(started, ev.HandStarted)
    assert started.number == 1 and set(started.participants) == {0, 1}


def test_start_players_who_cannot_pay_the_ante_are_not_dealt_in() -> None:
    t = table_with([A, B, C], ante=10, buy_in=100)
    # A (seat 0) goes down to 5 chips: make A lose everything but 5 in hand 2
    hand = t.s.hand
    assert hand is not None
    t.leave(B)
    t.leave(C)  # A wins the pot by folds
    assert t.s.phase == "settled"
    t.sit(D, 100)  # D and A: a hand after the pause
    t.tick()
    assert {p.seat for p in t.s.hand.players} == {0, t.s.seat_of(D)}  # type: ignore[union-attr]


def test_start_first_dealer_is_the_first_seated_player() -> None:
    t = Table(ante=1, max_seats=6)
    t.sit(A, 100, seat=4)
    t.sit(B, 100, seat=1)
    started = t.last(ev.HandStarted)
    assert started.dealer == 4
    assert started.participants == (1, 4)  # clockwise from the dealer's left, dealer last


def test_start_next_dealer_is_the_previous_winner() -> None:
    t = table_with([A, B, C])  # hand 1 was won by seat 0 who deals hand 2
    assert t.s.hand.dealer == 0  # type: ignore[union-attr]
    # hand 2: everyone folds to seat 2 (C)
    t.act(B, "pass")
    t.act(B, "fold")
    t.act(C, "raise", 1)
    t.act(A, "fold")
    settled = t.last(ev.HandSettled)
    assert settled.winners == (2,)
    t.tick()
    assert t.s.hand.dealer == 2  # type: ignore[union-attr]


def test_start_dealer_option_rotate_moves_clockwise() -> None:
    t = table_with([A, B, C], dealer="rotate")
    assert t.s.hand.dealer == 1  # type: ignore[union-attr]  # hand 1 dealt by seat 0
    t.act(C, "pass")
    t.act(C, "fold")
    t.act(A, "fold")
    t.tick()
    assert t.s.hand.dealer == 2  # type: ignore[union-attr]


def test_start_next_hand_waits_next_hand_seconds_then_tick_starts_it() -> None:
    t = table_with([A, B], next_hand_seconds=5)
    t.act(B, "pass")
    t.act(B, "fold")
    settled = t.last(ev.HandSettled)
    assert settled.next_hand_at == t.now + 5 and t.s.deadline == t.now + 5
    t.refused("not_due", cmd.Tick(now=t.now + 4.9, seed=seed_of(3)))
    events = t.tick()
    assert isinstance(events[0], ev.HandStarted) and events[0].number == 2


def test_start_next_hand_at_once_with_the_settling_action_when_there_is_no_pause() -> None:
    t = table_with([A, B], next_hand_seconds=0)
    t.act(B, "pass")
    seed = seed_of(5)
    t.next_seed = seed
    events = t.act(B, "fold")  # A wins by folds, and the next hand is dealt by this command
    assert t.types(events)[:5] == [
        "folded", "hand_settled", "seed_drawn", "hand_started", "antes_paid"
    ]
    started = events[3]
    assert isinstance(started, ev.HandStarted) and started.number == 2
    # the settlement drew hand 2's seed and published its commitment; hand 2 uses it
    assert started.commitment == hashlib.sha256(seed).hexdigest()
    assert t.last(ev.HandSettled).next_commitment == started.commitment
    assert t.s.hand is not None and t.s.hand.number == 2 and t.s.hand.phase == "blind"
    # the same as settling, then the Tick at next_hand_at (= now), which needs no seed of its
    # own: hand 2's was drawn by the settlement
    settled_log = t.log[: len(t.log) - len(events) + 3]  # up to the seed_drawn
    between = fold(settled_log)
    assert between.phase == "settled" and between.deadline == t.now
    tick = decide(between, cmd.Tick(now=t.now, seed=b""))
    assert tick == events[3:]
    assert fold(tick, between) == t.s


# --- 2. Commit ------------------------------------------------------------------------------


def test_commit_the_deck_before_the_deal_and_reveal_the_seed_at_the_end() -> None:
    """docs/FAIRNESS.md "Decks": the commitment of hand 2's seed is published when hand 1
    settles (its seed in a `seed_drawn` right after), before the players' seeds for hand 2 are
    final; a seed set after that still counts; `cards_dealt` names the seeds and the mix."""
    seed = seed_of(77)
    t = Table(ante=1)
    t.sit(A, 100, seat=0)
    t.sit(B, 100, seat=1)  # hand 1 (seats 0 and 1), dealt with the seed drawn at creation
    t.sit(C, 100, seat=2)
    t.act(B, "pass")
    t.next_seed = seed
    t.act(B, "fold")  # settles hand 1: draws hand 2's seed
    published = t.last(ev.HandSettled)
    drawn = t.last(ev.SeedDrawn)
    assert published.next_commitment == hashlib.sha256(seed).hexdigest() == drawn.commitment
    assert t.log.index(drawn) == t.log.index(published) + 1 and drawn.seed == seed.hex()
    t.do(cmd.SetClientSeed(user_id=C, client_seed="c-seed", now=t.now))  # after the commitment
    t.do(cmd.SetClientSeed(user_id=A, client_seed="A_1", now=t.now))
    t.tick()
    started = t.last(ev.HandStarted)
    dealt = t.last(ev.CardsDealt)
    assert t.log.index(started) < t.log.index(dealt)
    assert started.commitment == published.next_commitment
    assert started.seed == seed.hex() and started.algorithm == "hmac-sha256-fy-v2"
    assert dealt.algorithm == "hmac-sha256-fy-v2"
    assert dealt.client_seeds == {0: "A_1", 2: "c-seed"}
    lines = "0:A_1\n2:c-seed"
    assert dealt.mix == hashlib.sha256(lines.encode()).hexdigest()
    # everyone folds: the settlement reveals the seed, and the deck explains every card
    t.act(B, "pass")
    t.act(B, "fold")
    t.act(C, "fold")
    settled = t.last(ev.HandSettled)
    assert [s.seed for s in settled.seeds] == [seed.hex()]
    deck = shuffled_deck_v2(bytes.fromhex(settled.seeds[0].seed), "t1", 2, 1, dealt.mix)
    hands = deal_hands(deck, 3)
    assert {seat: hands[i] for i, seat in enumerate(started.participants)} == dealt.cards


def test_commit_a_seed_set_after_the_deal_counts_from_the_next_deal() -> None:
    t = table_with([A, B])
    t.do(cmd.SetClientSeed(user_id=A, client_seed="late", now=t.now))
    assert t.last(ev.CardsDealt).client_seeds == {}  # hand 1 was dealt before it
    t.act(B, "pass")
    t.act(B, "fold")
    t.tick()
    assert t.last(ev.CardsDealt).client_seeds == {0: "late"}


def test_commit_a_client_seed_is_checked_and_needs_a_seat() -> None:
    t = table_with([A, B])
    for bad in ["", "x" * 65, "has space", "ünï", "a/b"]:
        t.refused("invalid_client_seed", cmd.SetClientSeed(user_id=A, client_seed=bad, now=1.0))
    t.refused("not_seated", cmd.SetClientSeed(user_id=99, client_seed="ok", now=1.0))
    assert t.do(cmd.SetClientSeed(user_id=A, client_seed="A-z_09" * 10 + "abcd", now=1.0))
    assert t.do(cmd.SetClientSeed(user_id=A, client_seed="A-z_09" * 10 + "abcd", now=1.0)) == []


def test_commit_a_table_from_before_v2_deals_its_next_hand_v1_then_v2() -> None:
    """A table whose log has no commitment in advance (created before v2: no seed at
    creation) deals its next hand with the dealing command's seed, v1, as before; that hand's
    settlement publishes the next commitment, and from then on hands are v2."""
    t = Table(ante=1, first_seed=b"")  # a CreateTable without a seed, like old logs
    t.sit(A, 100, seat=0)
    t.sit(B, 100, seat=1)
    first = t.last(ev.HandStarted)
    assert first.algorithm == "hmac-sha256-fy-v1" and t.last(ev.CardsDealt).mix == ""
    t.act(B, "pass")
    t.act(B, "fold")
    t.tick()
    assert t.last(ev.HandStarted).algorithm == "hmac-sha256-fy-v2"
    assert t.last(ev.CardsDealt).algorithm == "hmac-sha256-fy-v2"


# --- 3. Ante and the deal ---------------------------------------------------------------------


def test_ante_every_participant_pays_it_into_the_pot() -> None:
    t = table_with([A, B, C], ante=3, buy_in=60)
    antes = t.last(ev.AntesPaid)
    assert antes.ante == 3 and antes.pot == 9 and t.s.hand.pot == 9  # type: ignore[union-attr]
    assert t.stack(B) == 54 and t.stack(C) == 57  # B also paid the ante of hand 1


def test_deal_three_cards_one_at_a_time_clockwise_from_the_dealers_left() -> None:
    seed = seed_of(5)
    t = table_with([A, B, C], seed=seed)
    deck = shuffled_deck_v2(seed, "t1", 2, 1, mix_of({}))
    dealt = t.last(ev.CardsDealt)
    # playing order: seat 1, seat 2, seat 0 (the dealer)
    assert dealt.cards[1] == (deck[0], deck[3], deck[6])
    assert dealt.cards[2] == (deck[1], deck[4], deck[7])
    assert dealt.cards[0] == (deck[2], deck[5], deck[8])


# --- 4. Blind round ---------------------------------------------------------------------------


def test_blind_round_starts_left_of_the_dealer() -> None:
    t = table_with([A, B, C])
    assert t.s.phase == "blind" and t.turn_user == B


def test_blind_first_blind_is_at_least_bet_unit() -> None:
    t = table_with([A, B, C], ante=2, bet_unit=4)
    t.refused("amount_too_small", t.command(B, "blind", 3))
    # B paid two antes (hands 1 and 2): the cap is B's 96
    assert {"type": "blind", "min": 4, "max": 96} in [a.to_dict() for a in legal_actions(t.s, B)]
    t.act(B, "blind", 4)
    assert t.s.hand.level == 4 and t.turn_user == C  # type: ignore[union-attr]


def test_blind_later_blinds_are_exactly_double_by_default() -> None:
    t = table_with([A, B, C])
    t.act(B, "blind", 3)
    t.refused("amount_too_small", t.command(C, "blind", 5))
    t.refused("amount_too_large", t.command(C, "blind", 7))
    assert {"type": "blind", "amount": 6} in [a.to_dict() for a in legal_actions(t.s, C)]
    t.act(C, "blind", 6)
    assert t.turn_user == A


def test_blind_option_at_least_double() -> None:
    t = table_with([A, B, C], blind_raise="at_least_double")
    t.act(B, "blind", 3)
    t.refused("amount_too_small", t.command(C, "blind", 5))
    t.act(C, "blind", 10)
    assert t.s.hand.level == 10  # type: ignore[union-attr]


def test_blind_the_first_pass_ends_the_blind_round() -> None:
    t = table_with([A, B, C, D])
    t.act(B, "blind", 1)
    t.act(C, "pass")
    assert t.s.phase == "betting" and t.turn_user == C  # the player after the last blind bettor
    t.refused("wrong_phase", t.command(C, "blind", 2))
    t.refused("not_your_turn", t.command(D, "blind", 2))


def test_blind_the_chain_ends_at_a_player_who_has_looked() -> None:
    t = table_with([A, B, C])
    t.act(C, "look")  # out of turn: allowed any time
    t.act(B, "blind", 2)
    assert t.s.phase == "betting" and t.turn_user == C


def test_blind_looking_on_your_blind_turn_ends_the_chain_and_you_act_first() -> None:
    t = table_with([A, B, C])
    t.act(B, "blind", 2)
    t.act(C, "look")
    assert t.s.phase == "betting" and t.turn_user == C


def test_blind_the_chain_ends_after_the_dealer() -> None:
    t = table_with([A, B, C])
    t.act(B, "blind", 1)
    t.act(C, "blind", 2)
    t.act(A, "blind", 4)  # A is the dealer
    assert t.s.phase == "betting" and t.turn_user == B  # wraps to the player after the dealer


def test_blind_a_player_who_looked_cannot_go_blind() -> None:
    t = table_with([A, B])
    t.act(B, "look")
    assert t.s.phase == "betting"
    t.refused("cannot_blind_after_look", t.command(B, "blind", 1))
    assert "blind" not in [a.type for a in legal_actions(t.s, B)]


def test_blind_out_of_turn_is_not_your_turn_even_after_a_look() -> None:
    t = table_with([A, B, C])
    t.act(C, "look")  # C's blind turn has not come yet
    t.refused("not_your_turn", t.command(C, "blind", 2))
    t.act(B, "blind", 1)  # the chain stops at C, who looked: C acts first in the betting
    assert t.s.phase == "betting" and t.turn_user == C
    t.refused("cannot_blind_after_look", t.command(C, "blind", 2))


@pytest.mark.parametrize("action", ["blind", "pass", "call", "raise", "fold"])
def test_acting_out_of_turn_is_not_your_turn_whatever_the_action(action: str) -> None:
    """docs/API.md "Errors": 403 `not_your_turn` for any turn action by a player whose turn
    it is not, in either round (before, some got 422 `wrong_phase` because the round was
    checked first; docs/decisions/turn-first-refusals.md)."""
    amount = 2 if action in ("blind", "raise") else None
    t = table_with([A, B, C])  # the blind round, B on turn
    t.refused("not_your_turn", t.command(C, action, amount))
    t.act(B, "pass")  # the betting round, B on turn
    t.refused("not_your_turn", t.command(C, action, amount))
    t.refused("not_your_turn", t.command(A, action, amount))


def test_amounts_must_be_whole_chips() -> None:
    t = table_with([A, B])
    t.refused("invalid_amount", cmd.PlaceBlind(user_id=B, amount=1.5, now=t.now))  # type: ignore[arg-type]
    t.refused("invalid_amount", cmd.PlaceBlind(user_id=B, amount=True, now=t.now))
    t.act(B, "pass")
    t.refused("invalid_amount", cmd.Raise(user_id=B, amount="3", now=t.now))  # type: ignore[arg-type]


def test_blind_only_the_player_on_turn_may_blind_or_pass() -> None:
    t = table_with([A, B, C])
    t.refused("not_your_turn", t.command(C, "blind", 1))
    t.refused("not_your_turn", t.command(A, "pass"))
    t.refused("not_seated", t.command(99, "pass"))


# --- 5. Betting round -------------------------------------------------------------------------


def test_betting_first_after_the_last_blind_bettor_must_raise_to_twice_the_blind() -> None:
    t = table_with([A, B, C])
    t.act(B, "blind", 5)
    t.act(C, "pass")
    t.refused("cannot_call_blind", t.command(C, "call"))
    t.refused("amount_too_small", t.command(C, "raise", 9))
    legal = [a.to_dict() for a in legal_actions(t.s, C)]
    assert {"type": "raise", "min": 10, "max": 98} in legal  # B can cover 98
    assert "call" not in [a["type"] for a in legal]
    t.act(C, "raise", 10)
    assert t.turn_user == A
    t.act(A, "call")  # later players call as usual
    assert t.last(ev.Called).amount == 10


def test_betting_a_blind_bettor_reached_again_pays_the_difference() -> None:
    t = table_with([A, B, C])
    t.act(B, "blind", 5)
    t.act(C, "pass")
    t.act(C, "raise", 10)
    t.act(A, "fold")
    assert t.turn_user == B
    assert {"type": "call", "amount": 5} in [a.to_dict() for a in legal_actions(t.s, B)]
    t.act(B, "look")  # may look before deciding
    t.act(B, "call")
    assert t.last(ev.Called).amount == 5
    assert t.last(ev.ShowdownHappened)


def test_betting_without_blinds_the_player_left_of_the_dealer_opens() -> None:
    t = table_with([A, B, C], bet_unit=2)
    t.act(B, "pass")
    assert t.s.phase == "betting" and t.turn_user == B
    t.refused("no_check", t.command(B, "call"))  # there is no check
    t.refused("amount_too_small", t.command(B, "raise", 1))
    t.act(B, "raise", 2)
    assert t.s.hand.level == 2  # type: ignore[union-attr]


def test_betting_raises_are_by_at_least_bet_unit() -> None:
    t = table_with([A, B, C], ante=1, bet_unit=3)
    t.act(B, "pass")
    t.act(B, "raise", 3)
    t.refused("amount_too_small", t.command(C, "raise", 5))
    t.act(C, "raise", 6)


def test_betting_each_player_raises_at_most_max_raises_times() -> None:
    t = table_with([A, B], max_raises=2)
    t.act(B, "pass")
    t.act(B, "raise", 1)
    t.act(A, "raise", 2)
    t.act(B, "raise", 3)
    t.act(A, "raise", 4)
    t.refused("raise_limit", t.command(B, "raise", 5))
    assert "raise" not in [a.type for a in legal_actions(t.s, B)]
    t.act(B, "call")


def test_betting_blinds_do_not_count_toward_the_raise_limit() -> None:
    t = table_with([A, B], max_raises=1)
    t.act(B, "blind", 1)
    t.act(A, "blind", 2)
    t.act(B, "raise", 3)  # B's first raise: the blind did not count
    t.act(A, "raise", 4)
    t.refused("raise_limit", t.command(B, "raise", 5))


def test_betting_no_bet_above_what_the_poorest_player_can_cover() -> None:
    t = Table(ante=1)
    t.sit(A, 100)
    t.sit(B, 20)  # B has 19 after the ante
    t.act(B, "pass")
    t.refused("amount_too_large", t.command(B, "raise", 20))
    assert {"type": "raise", "min": 1, "max": 19} in [a.to_dict() for a in legal_actions(t.s, B)]
    t.act(B, "raise", 19)
    assert [a.type for a in legal_actions(t.s, A)] == ["look", "call", "fold"]
    t.act(A, "call")
    first = next(e for e in t.log if isinstance(e, ev.ShowdownHappened))
    assert first.deal == 1 and first.capped  # B has nothing left: nobody can bet more


def test_betting_cap_below_the_minimum_allows_exactly_the_cap() -> None:
    t = Table(ante=1, bet_unit=5, min_buy_in=1)
    t.sit(A, 100)
    t.sit(B, 4)  # 3 after the ante: the first blind would need 5
    assert {"type": "blind", "amount": 3} in [a.to_dict() for a in legal_actions(t.s, B)]
    t.refused("amount_too_large", t.command(B, "blind", 5))
    t.act(B, "blind", 3)
    # A's blind would have to be 6, above the cap of 3 = the level: A can only pass
    assert [a.type for a in legal_actions(t.s, A)] == ["pass", "look"]
    t.refused("amount_too_large", t.command(A, "blind", 3))
    t.act(A, "pass")
    assert t.s.phase == "betting" and t.turn_user == A
    # the level is at the cap: nobody can raise, so calling the blind is allowed
    assert [a.type for a in legal_actions(t.s, A)] == ["look", "call", "fold"]
    t.act(A, "call")
    assert t.last(ev.ShowdownHappened)


def test_betting_cap_of_zero_goes_to_showdown_at_once_without_a_call_0() -> None:
    """docs/RULES.md step 5: nobody can put in more (B is all in with the ante), so the betting
    ends at once: no turn, no blind round, no "call 0" offered to anyone."""
    t = Table(ante=1, min_buy_in=1)
    t.sit(A, 100)
    events = t.sit(B, 1)  # all in with the ante
    kinds = t.types(events)
    assert kinds[kinds.index("antes_paid") :][:3] == ["antes_paid", "cards_dealt", "showdown"]
    showdown = next(e for e in events if isinstance(e, ev.ShowdownHappened))
    assert showdown.deal == 1 and showdown.capped and set(showdown.hands) == {0, 1}
    assert all(e.turn is None for e in events if isinstance(e, ev.CardsDealt))
    assert not any(isinstance(e, ev.TurnDeadlineSet) for e in events)
    for user in (A, B):
        assert all(a.type != "call" for a in legal_actions(t.s, user))
        t.refused("no_hand" if t.s.phase == "settled" else "no_check", t.command(user, "call"))


def test_betting_a_call_of_0_chips_is_never_accepted() -> None:
    t = Table(ante=1, min_buy_in=1)
    t.sit(A, 100)
    t.sit(B, 50)
    t.act(B, "pass")
    t.refused("no_check", t.command(B, "call"))  # level 0: calling would put in nothing


def test_betting_round_ends_when_all_matched_the_level_and_acted() -> None:
    t = table_with([A, B, C])
    t.act(B, "pass")
    t.act(B, "raise", 1)
    t.act(C, "call")
    assert t.s.phase == "betting"
    t.act(A, "raise", 3)
    t.act(B, "call")
    assert t.s.phase == "betting" and t.turn_user == C
    t.act(C, "call")
    assert t.last(ev.ShowdownHappened).deal == 1


def test_betting_only_the_player_on_turn_acts() -> None:
    t = table_with([A, B, C])
    t.act(B, "pass")
    t.refused("not_your_turn", t.command(C, "raise", 1))
    t.refused("not_your_turn", t.command(A, "fold"))
    t.refused("wrong_phase", t.command(B, "pass"))


# --- 6. Winning without showdown ----------------------------------------------------------------


def test_win_without_showdown_when_all_others_fold() -> None:
    t = table_with([A, B, C], ante=2)
    t.act(B, "pass")
    t.act(B, "raise", 2)
    t.act(C, "fold")
    t.act(A, "fold")
    settled = t.last(ev.HandSettled)
    assert settled.winners == (1,) and settled.reason == "last_player"
    assert settled.amounts == {1: 8}
    assert not any(isinstance(e, ev.ShowdownHappened) for e in t.log[-4:])
    assert t.stack(B) == 100 - 2 - 2 - 2 + 8  # antes of hands 1 and 2, the raise, the pot


def test_win_the_last_blind_bettor_wins_if_nobody_pays() -> None:
    t = table_with([A, B, C])
    t.act(B, "blind", 1)
    t.act(C, "blind", 2)
    t.act(A, "pass")
    t.act(A, "fold")
    t.act(B, "fold")
    assert t.last(ev.HandSettled).winners == (2,)


def test_win_if_nobody_bets_the_table_stays_with_the_dealer() -> None:
    t = table_with([A, B, C])
    t.act(B, "pass")
    t.act(B, "fold")
    t.act(C, "fold")
    assert t.last(ev.HandSettled).winners == (0,)  # seat 0 deals
    t.tick()
    assert t.s.hand.dealer == 0  # type: ignore[union-attr]


# --- 7. Showdown --------------------------------------------------------------------------------


def test_showdown_the_highest_score_takes_the_whole_pot() -> None:
    seed = seed_where("t1", 1, 1, 2, lambda s: s[0] > s[1])
    t = table_with([A, B], seed=seed)
    t.act(B, "pass")
    t.act(B, "raise", 4)
    t.act(A, "call")
    shown = t.last(ev.ShowdownHappened)
    assert set(shown.hands) == {0, 1}
    for h in shown.hands.values():
        assert h.score == score(h.cards)
    settled = t.last(ev.HandSettled)
    assert settled.winners == (1,) and settled.reason == "showdown"
    assert settled.amounts == {1: 10} and t.stack(B) == 105 and t.stack(A) == 95


def test_showdown_folded_players_show_nothing() -> None:
    t = table_with([A, B, C])
    t.act(B, "pass")
    t.act(B, "raise", 1)
    t.act(C, "fold")
    t.act(A, "call")
    assert set(t.last(ev.ShowdownHappened).hands) == {0, 1}


def test_settle_rake_is_a_floored_percentage_of_the_pot() -> None:
    t = table_with([A, B, C], rake_percent=5, ante=7)
    t.act(B, "pass")
    t.act(B, "raise", 10)
    t.act(C, "fold")
    t.act(A, "fold")
    settled = t.last(ev.HandSettled)
    assert settled.pot == 31 and settled.rake == 1 and settled.amounts == {1: 30}
    assert t.s.rake_total == 1
