"""docs/RULES.md "A hand, step by step", steps 1-3 (start, commit, ante and the deal): one test
(or a few) per rule, named after it."""

from __future__ import annotations

import hashlib

from events import table as ev
from service.game import commands as cmd
from service.game.decider import decide, fold
from service.game.deck import deal_hands, mix_of, shuffled_deck_v2
from tests.support.tablekit import T0, Table, seed_of, table_with

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
