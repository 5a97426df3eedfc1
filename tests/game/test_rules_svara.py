"""docs/RULES.md step 8 (svara) and step 9 (settle): ties, the join window, the new deal, split."""

from __future__ import annotations

import hashlib

import pytest

from events import table as ev
from service.game.legal import legal_actions
from service.game.scoring import score
from service.game.tx import next_deal_seed
from tests.support.tablekit import Table, deal_for, seed_of, seed_where, table_with

A, B, C, D = 11, 12, 13, 14


def tie_b_c(hand: int = 2, deal: int = 1, n: int = 3) -> bytes:
    """A seed where seats 1 and 2 (first two in playing order) tie above seat 0."""
    return seed_where("t1", hand, deal, n, lambda s: s[0] == s[1])


def _to_showdown_b_c(t: Table) -> None:
    """B and C see each other for 1 chip each; A (the dealer) folds."""
    t.act(B, "pass")
    t.act(B, "raise", 1)
    t.act(C, "call")
    t.act(A, "fold")


def test_svara_a_tie_at_showdown_starts_a_svara_not_a_payout() -> None:
    t = table_with([A, B, C], seed=tie_b_c())
    _to_showdown_b_c(t)
    shown = t.last(ev.ShowdownHappened)
    assert shown.hands[1].score == shown.hands[2].score
    started = t.last(ev.SvaraStarted)
    assert started.tied == (1, 2) and started.pot == 5
    assert not any(isinstance(e, ev.HandSettled) for e in t.log[t.log.index(shown) :])
    assert t.s.phase == "svara_join"
    assert t.s.deadline == started.join_deadline == t.now + 30


def test_svara_join_fee_is_the_pot_divided_by_the_tied_players() -> None:
    t = table_with([A, B, C], seed=tie_b_c())
    _to_showdown_b_c(t)
    assert t.last(ev.SvaraStarted).fee == 5 // 2
    assert {"type": "join_svara", "amount": 2} in [a.to_dict() for a in legal_actions(t.s, A)]


def test_svara_join_fee_option_one_ante() -> None:
    t = table_with([A, B, C], seed=tie_b_c(), ante=1, svara_join_fee="ante")
    _to_showdown_b_c(t)
    assert t.last(ev.SvaraStarted).fee == 1


def test_svara_a_folded_player_may_join_and_the_tied_are_in_for_free() -> None:
    t = table_with([A, B, C], seed=tie_b_c())
    _to_showdown_b_c(t)
    started = t.last(ev.SvaraStarted)
    assert started.eligible == (0,)  # A folded, yet may join
    t.refused("not_eligible", t.command(B, "join_svara"))  # tied: already in
    stacks = t.stack(B), t.stack(C)
    before = t.stack(A)
    t.act(A, "join_svara")
    assert t.stack(A) == before - 2
    deal = t.last(ev.SvaraDealStarted)
    assert deal.deal == 2 and deal.participants == (1, 2, 0)
    assert (t.stack(B), t.stack(C)) == stacks  # no ante in a svara
    assert t.s.hand.pot == 7 and t.s.hand.dealer == 0  # type: ignore[union-attr]  # same dealer
    assert deal.commitment == hashlib.sha256(bytes.fromhex(deal.seed)).hexdigest()
    assert t.last(ev.CardsDealt).deal == 2
    assert t.s.phase == "blind" and t.turn_user == B


def test_svara_window_closes_when_everyone_eligible_has_answered() -> None:
    t = table_with([A, B, C, D], seed=seed_where("t1", 2, 1, 4, lambda s: s[0] == s[1]))
    t.act(B, "pass")
    t.act(B, "raise", 1)
    t.act(C, "call")
    t.act(D, "fold")
    t.act(A, "fold")
    assert t.last(ev.SvaraStarted).eligible == (3, 0)
    t.act(D, "skip_svara")
    assert t.s.phase == "svara_join"
    t.refused("already_answered", t.command(D, "join_svara"))
    t.act(A, "skip_svara")
    assert t.last(ev.SvaraDealStarted).participants == (1, 2)


def test_svara_window_closes_at_its_deadline() -> None:
    t = table_with([A, B, C], seed=tie_b_c())
    _to_showdown_b_c(t)
    events = t.tick()
    assert isinstance(events[0], ev.TimedOut) and events[0].action == "skip_svara"
    assert t.last(ev.SvaraDealStarted).participants == (1, 2)
    assert t.s.seat_by_user(A).timeouts == 0  # type: ignore[union-attr]  # not a turn timeout


def test_svara_without_anyone_eligible_deals_at_once() -> None:
    t = table_with([A, B], seed=seed_where("t1", 1, 1, 2, lambda s: s[0] == s[1]))
    t.act(B, "pass")
    t.act(B, "raise", 1)
    t.act(A, "call")
    types = t.types(t.log[-5:])
    assert types == ["showdown", "svara_started", "seed_drawn", "svara_deal_started", "cards_dealt"]
    assert t.last(ev.SvaraStarted).next_commitment == t.last(ev.SvaraDealStarted).commitment
    assert t.log[-1].turn is not None and t.log[-1].phase == "blind"  # type: ignore[union-attr]


def test_svara_players_who_cannot_pay_the_fee_are_not_eligible() -> None:
    t = Table(ante=1, min_buy_in=1)
    for seat, (uid, chips) in enumerate([(A, 100), (B, 100), (C, 100), (D, 3)]):
        t.sit(uid, chips, seat=seat)  # A and B play hand 1, C and D wait
    t.act(B, "pass")
    t.next_seed = seed_where("t1", 2, 1, 4, lambda s: s[0] == s[1])
    t.act(B, "fold")  # settles hand 1, drawing hand 2's seed
    t.tick()
    t.act(B, "pass")
    t.act(B, "raise", 1)
    t.act(C, "call")
    t.act(D, "fold")  # D has 2 chips left
    t.act(A, "fold")
    started = t.last(ev.SvaraStarted)
    assert started.fee == 3 and started.eligible == (0,)
    t.refused("not_eligible", t.command(D, "join_svara"))


def test_svara_can_end_in_another_svara() -> None:
    t = table_with([A, B], seed=seed_where("t1", 1, 1, 2, lambda s: s[0] == s[1]))
    t.act(B, "pass")
    t.act(B, "raise", 1)
    t.next_seed = seed_where("t1", 1, 2, 2, lambda s: s[0] == s[1])
    t.act(A, "call")
    t.act(B, "pass")
    t.act(B, "raise", 1)
    t.next_seed = seed_where("t1", 1, 3, 2, lambda s: s[0] != s[1])
    t.act(A, "call")
    t.act(B, "pass")
    t.act(B, "raise", 1)
    t.act(A, "call")
    assert [e.deal for e in t.log if isinstance(e, ev.SvaraDealStarted)] == [2, 3]
    settled = t.last(ev.HandSettled)
    assert [s.deal for s in settled.seeds] == [1, 2, 3]
    assert settled.pot == 2 + 2 + 2 + 2 and settled.reason == "showdown"
    assert t.s.hand.number == 1  # type: ignore[union-attr]  # still the same hand


def test_svara_option_split_shares_the_pot_odd_chip_left_of_the_dealer() -> None:
    t = table_with([A, B, C], seed=tie_b_c(), svara="split")
    _to_showdown_b_c(t)  # pot 5
    settled = t.last(ev.HandSettled)
    assert settled.reason == "split" and settled.winners == (1, 2)
    assert settled.amounts == {1: 3, 2: 2}  # seat 1 is first left of the dealer (seat 0)


@pytest.mark.parametrize(
    ("a_calls", "amounts"), [(False, {1: 3, 2: 2, 3: 2}), (True, {1: 3, 2: 3, 3: 2})]
)
def test_svara_option_split_three_ways_the_chips_that_do_not_divide_go_clockwise(
    a_calls: bool, amounts: dict[int, int]
) -> None:
    """Three tied hands of 21 (rigged): a pot of 7 (A folds) or 8 (A calls and loses) splits
    into 2 or 3 each; the 1 or 2 chips left over go one each to the first tied players
    clockwise from the dealer's left, and no chip is lost."""
    t = table_with([A, B, C, D], svara="split")
    t.rig("As Ks 8d", "Ah Kh 8c", "Ad Kd 9c", "7h 8s 9d")  # B, C, D tie at 21; A has 9
    t.act(B, "pass")
    t.act(B, "raise", 1)
    t.act(C, "call")
    t.act(D, "call")
    t.act(A, "call" if a_calls else "fold")
    settled = t.last(ev.HandSettled)
    assert settled.reason == "split" and settled.winners == (1, 2, 3)
    assert settled.pot == sum(amounts.values()) and settled.amounts == amounts


def test_svara_option_split_the_odd_chip_goes_clockwise_past_the_last_seat() -> None:
    """Tied D (seat 3) and A (seat 0, the dealer): clockwise from the dealer's left D comes
    first, so D gets the odd chip of a pot of 9."""
    t = table_with([A, B, C, D], svara="split")
    t.rig("7h 8s 9d", "8h 9s Td", "As Ks 8d", "Ah Kh 8c")  # B 10, C 10, D 21, A 21
    t.act(B, "pass")
    t.act(B, "raise", 1)
    t.act(C, "fold")
    t.act(D, "raise", 2)
    t.act(A, "call")
    t.act(B, "fold")
    settled = t.last(ev.HandSettled)
    assert settled.reason == "split" and settled.winners == (3, 0) and settled.pot == 9
    assert settled.amounts == {3: 5, 0: 4}


def test_svara_a_tied_player_leaving_hands_the_pot_to_the_other() -> None:
    t = table_with([A, B, C], seed=tie_b_c())
    _to_showdown_b_c(t)
    t.leave(B)
    settled = t.last(ev.HandSettled)
    assert settled.winners == (2,) and settled.reason == "svara_walkover"
    assert settled.amounts == {2: 5}


def test_svara_someone_seated_during_the_window_may_not_join() -> None:
    t = table_with([A, B, C], seed=tie_b_c())
    _to_showdown_b_c(t)
    t.sit(D, 100)
    t.refused("not_eligible", t.command(D, "join_svara"))
    assert legal_actions(t.s, D) == []


def test_svara_someone_seated_mid_hand_waits_for_the_next_hand() -> None:
    t = table_with([A, B, C], seed=tie_b_c())
    t.sit(D, 100)  # before the showdown: not dealt in, so not offered the svara
    _to_showdown_b_c(t)
    assert t.last(ev.SvaraStarted).eligible == (0,)


def test_settle_the_winner_takes_the_pot_and_deals_next() -> None:
    t = table_with([A, B, C], seed=tie_b_c())
    _to_showdown_b_c(t)
    t.act(A, "skip_svara")
    t.act(B, "pass")
    t.act(B, "raise", 1)
    t.act(C, "fold")
    settled = t.last(ev.HandSettled)
    assert settled.winners == (1,) and settled.amounts == {1: 6}
    assert settled.next_dealer == 1
    t.tick()
    assert t.s.hand.dealer == 1  # type: ignore[union-attr]


def test_svara_the_last_pending_player_leaving_closes_the_window() -> None:
    t = table_with([A, B, C], seed=tie_b_c())
    _to_showdown_b_c(t)
    events = t.leave(A)  # A was the only one who could join
    assert t.types(events)[:2] == ["player_left", "svara_deal_started"]
    assert t.last(ev.SvaraDealStarted).participants == (1, 2)


def test_svara_a_joiner_who_leaves_forfeits_the_fee() -> None:
    t = table_with([A, B, C, D], seed=seed_where("t1", 2, 1, 4, lambda s: s[0] == s[1]))
    t.act(B, "pass")
    t.act(B, "raise", 1)
    t.act(C, "call")
    t.act(D, "fold")
    t.act(A, "fold")
    t.act(D, "join_svara")
    pot = t.s.hand.pot  # type: ignore[union-attr]
    t.leave(D)
    assert t.s.hand.pot == pot and t.s.phase == "svara_join"  # type: ignore[union-attr]
    t.act(A, "skip_svara")
    assert t.last(ev.SvaraDealStarted).participants == (1, 2)


def test_svara_deal_with_a_broke_player_shows_down_at_once_and_each_deal_has_its_own_seed() -> None:
    """docs/RULES.md steps 5 and 8. B went all in and tied: the svara deal starts with B at 0 chips,
    so nobody can put in more and it goes to showdown at once (no "call 0"). Ties again deal
    again within the same command; every deal has a seed and commitment of its own -- never
    the previous deal's, which the settlement reveals -- each svara deal's committed to by the
    `svara_started` before it (v2), and the next hand's, drawn at the settlement, is a fifth."""

    def ties(seed: bytes, deal: int) -> bool:
        first, second = deal_for(seed, "t1", 1, deal, 2)
        return score(first) == score(second)

    # A seed for the command that declares the svaras and deals 2, 3 and 4: ties at deals 2
    # and 3, a winner at 4.
    seed = next(
        s
        for s in (seed_of(i) for i in range(1, 200_000))
        if ties(s, 2)
        and ties(next_deal_seed(s), 3)
        and not ties(next_deal_seed(next_deal_seed(s)), 4)
    )
    t = Table(ante=1, first_seed=seed_where("t1", 1, 1, 2, lambda s: s[0] == s[1]))
    t.sit(A, 100, seat=0)
    t.sit(B, 10, seat=1)  # 9 after the ante
    t.act(B, "pass")
    t.act(B, "raise", 9)  # all in
    t.next_seed = seed
    t.act(A, "call")
    showdowns = [e for e in t.log if isinstance(e, ev.ShowdownHappened)]
    assert [(s.deal, s.capped) for s in showdowns] == [(1, True), (2, True), (3, True), (4, True)]
    assert not any(isinstance(e, ev.TurnDeadlineSet) for e in t.log[-12:])
    settled = t.last(ev.HandSettled)
    assert settled.pot == 20 and settled.reason == "showdown"
    seeds = [bytes.fromhex(s.seed) for s in settled.seeds]
    assert [s.deal for s in settled.seeds] == [1, 2, 3, 4]
    assert len(set(seeds)) == 4 and len({s.commitment for s in settled.seeds}) == 4
    assert seeds[1:] == [seed, next_deal_seed(seed), next_deal_seed(next_deal_seed(seed))]
    for deal_seed in settled.seeds:  # each deal's cards come from its own seed
        dealt = next(e for e in t.log if isinstance(e, ev.CardsDealt) and e.deal == deal_seed.deal)
        order = (
            next(
                e.participants
                for e in t.log
                if isinstance(e, ev.SvaraDealStarted) and e.deal == deal_seed.deal
            )
            if deal_seed.deal > 1
            else (1, 0)
        )
        hands = deal_for(bytes.fromhex(deal_seed.seed), "t1", 1, deal_seed.deal, 2)
        assert [dealt.cards[seat] for seat in order] == hands
        assert deal_seed.commitment == hashlib.sha256(bytes.fromhex(deal_seed.seed)).hexdigest()
        assert dealt.algorithm == "hmac-sha256-fy-v2"
    published = [e.next_commitment for e in t.log if isinstance(e, ev.SvaraStarted)]
    assert published == [s.commitment for s in settled.seeds[1:]]
    drawn = [e for e in t.log if isinstance(e, ev.SeedDrawn)]
    assert [d.commitment for d in drawn[1:]] == [*published, settled.next_commitment]
    assert len({d.seed for d in drawn}) == len(drawn) == 5  # hand 1, deals 2-4, hand 2


def test_svara_a_new_deal_starts_everyones_raise_count_afresh() -> None:
    """docs/RULES.md, steps 5 and 8: at most 3 raises per player per deal, and a svara's deal is a
    new deal. A and B both raise 3 times in deal 1 and tie; in the svara deal each may raise
    again, 3 times, and the 4th raise of that deal is refused."""
    t = table_with([A, B], seed=seed_where("t1", 1, 1, 2, lambda s: s[0] == s[1]))

    def raise_min(user: int) -> None:
        legal = {a.type: a for a in legal_actions(t.s, user)}
        assert "raise" in legal, (user, legal)
        t.act(user, "raise", legal["raise"].min)

    t.act(B, "pass")  # the blind round ends: B opens
    for _ in range(3):
        raise_min(B)
        raise_min(A)
    assert {p.raises for p in t.s.hand.players} == {3}  # type: ignore[union-attr]
    t.refused("raise_limit", t.command(B, "raise", t.s.hand.level + 1))  # type: ignore[union-attr]
    t.act(B, "call")  # the tie: a svara, both tied, so dealt at once
    assert t.s.hand is not None and t.s.hand.deal == 2 and t.s.phase == "blind"
    assert {p.raises for p in t.s.hand.players} == {0}
    first = t.turn_user
    second = A if first == B else B
    t.act(first, "pass")
    for _ in range(3):
        raise_min(first)  # the 1st raise of this deal is accepted, after 3 in the last
        raise_min(second)
    hand = t.s.hand
    assert hand is not None and hand.deal == 2 and t.turn_user == first
    assert "raise" not in {a.type for a in legal_actions(t.s, first)}
    t.refused("raise_limit", t.command(first, "raise", hand.level + 1))
