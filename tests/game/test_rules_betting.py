"""docs/RULES.md "A hand, step by step", steps 4-7 (the blind round, the betting round, winning
without a showdown, the showdown and its settlement): one test (or a few) per rule, named after
it."""

from __future__ import annotations

import pytest

from events import table as ev
from service.game import commands as cmd
from service.game.legal import legal_actions
from service.game.scoring import score
from tests.support.tablekit import Table, seed_where, table_with

A, B, C, D = 11, 12, 13, 14


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
