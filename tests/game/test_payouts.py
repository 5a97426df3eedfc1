"""service.game.payouts: the pot's split and the svara fee, shared by the game and the audit."""

from __future__ import annotations

from service.game.payouts import payout, rake_of, svara_fee


def test_the_odd_chips_go_one_each_to_the_first_winners_in_order() -> None:
    assert payout(101, 0, (4, 1)) == (0, {4: 51, 1: 50})
    assert payout(102, 0, (2, 0, 1, 5)) == (0, {2: 26, 0: 26, 1: 25, 5: 25})


def test_the_rake_is_taken_first_and_rounded_down() -> None:
    assert rake_of(199, 5) == 9
    assert payout(199, 5, (0, 3)) == (9, {0: 95, 3: 95})
    assert payout(30, 5, (1,)) == (1, {1: 29})


def test_the_svara_fee_is_the_pot_share_or_the_ante() -> None:
    assert svara_fee("pot_share", 10, 95, 2) == 47
    assert svara_fee("pot_share", 10, 100, 3) == 33
    assert svara_fee("ante", 10, 100, 3) == 10
