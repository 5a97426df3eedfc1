"""Hypothesis stateful tests over random tables: random settings, 2-10 seats, legal and illegal
commands, Ticks before/at/after deadlines, sit-downs and departures.

After every step: chips are conserved; the fold of the whole log equals the live state; events
and state survive their codecs; a command is accepted iff `legal_actions` lists it (refusals
emit nothing); no view or projected event shows a card, score or seed its viewer may not see.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Protocol, TypeVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from events import table as ev
from events.codec import decode_table_event, encode_table_event
from service.game import commands as cmd
from service.game.decider import decide, evolve, fold
from service.game.errors import GameError
from service.game.legal import LegalAction, legal_actions
from service.game.settings import TableSettings
from service.game.state import TableState, decode_state, encode_state
from tests.game.privacy import check_projected_event, check_view

USERS = list(range(101, 113))
ACTIONS = ["blind", "pass", "look", "call", "raise", "fold", "join_svara", "skip_svara", "sit_in"]


@st.composite
def table_settings(draw: st.DrawFn) -> TableSettings:
    ante = draw(st.integers(1, 4))
    return TableSettings(
        ante=ante,
        bet_unit=draw(st.none() | st.integers(1, 6)),
        max_seats=draw(st.integers(2, 10)),
        min_buy_in=ante,  # poor players make the cap matter
        max_buy_in=40 * ante,
        turn_seconds=draw(st.sampled_from([5, 30])),
        svara_join_seconds=draw(st.none() | st.just(10)),
        next_hand_seconds=draw(st.sampled_from([0, 3])),
        blind_raise=draw(st.sampled_from(["double", "at_least_double"])),
        max_raises=draw(st.integers(1, 4)),
        dealer=draw(st.sampled_from(["winner", "rotate"])),
        svara=draw(st.sampled_from(["play", "play", "split"])),
        svara_join_fee=draw(st.sampled_from(["pot_share", "ante"])),
        rake_percent=draw(st.sampled_from([0, 0, 5, 10])),
        joker_pair=draw(st.sampled_from(["sum", "substitute"])),
        natural_777=draw(st.sampled_from([34, 30, 33])),
    )


def accepts(legal: list[LegalAction], action: str, amount: int | None) -> bool:
    for a in legal:
        if a.type != action:
            continue
        if action == "blind" and a.amount is not None:
            return amount == a.amount
        if action in ("blind", "raise"):
            assert a.min is not None and a.max is not None and amount is not None
            return a.min <= amount <= a.max
        return True
    return False


T = TypeVar("T")


class Chooser(Protocol):
    def one(self, options: Sequence[T]) -> T: ...

    def integer(self, low: int, high: int) -> int: ...


class Drawer:
    """Choices drawn by Hypothesis (so they shrink)."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def one(self, options: Sequence[T]) -> T:
        return self.data.draw(st.sampled_from(options))

    def integer(self, low: int, high: int) -> int:
        return self.data.draw(st.integers(low, high))


class Dice:
    """Choices from a seeded RNG (for the volume test)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def one(self, options: Sequence[T]) -> T:
        return self.rng.choice(options)

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)


class TableMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.log: list[ev.TableEvent] = []
        self.state: TableState | None = None
        self.now = 1_000_000.0
        self.counter = 0
        self.seeds: set[str] = set()

    # --- plumbing ----------------------------------------------------------------------------
    def seed(self) -> bytes:
        self.counter += 1
        return hashlib.sha256(self.counter.to_bytes(8, "big")).digest()

    @property
    def s(self) -> TableState:
        assert self.state is not None
        return self.state

    def apply(self, command: cmd.TableCommand) -> list[ev.TableEvent] | GameError:
        before = self.state
        try:
            events = decide(self.state, command)
        except GameError as error:
            assert self.state is before
            return error
        assert events, f"{command} was accepted but changed nothing"
        for e in events:
            assert decode_table_event(encode_table_event(e)) == e
            settings_ = e.settings if isinstance(e, ev.TableCreated) else self.s.settings
            for viewer in [None, *USERS[:4]]:
                check_projected_event(e, viewer, self.seeds | self._new_seeds(events), settings_)
            self.state = evolve(self.state, e)
        self.seeds |= self._new_seeds(events)
        self.log.extend(events)
        return events

    @staticmethod
    def _new_seeds(events: list[ev.TableEvent]) -> set[str]:
        return {e.seed for e in events if isinstance(e, ev.HandStarted | ev.SvaraDealStarted)}

    def seated_users(self) -> list[int]:
        return [s.user_id for s in self.s.seats if s is not None]

    # --- rules -------------------------------------------------------------------------------
    @initialize(settings=table_settings(), first=st.integers(2, 4))
    def create(self, settings: TableSettings, first: int) -> None:
        events = self.apply(
            cmd.CreateTable(table_id="prop", settings=settings, created_by=1, now=self.now)
        )
        assert isinstance(events, list)
        for uid in USERS[: min(first, settings.max_seats)]:
            result = self.apply(self._sit(uid, settings.max_buy_in or 40, None))
            assert isinstance(result, list)

    def _sit(self, uid: int, buy_in: int, seat: int | None) -> cmd.SitDown:
        return cmd.SitDown(
            user_id=uid,
            name=f"u{uid}",
            buy_in=buy_in,
            transfer_id=f"in-{self.counter}",
            seat=seat,
            now=self.now,
            seed=self.seed(),
        )

    @rule(
        uid=st.sampled_from(USERS),
        buy_in=st.integers(0, 200),
        seat=st.none() | st.none() | st.integers(-1, 10),
    )
    def sit_down(self, uid: int, buy_in: int, seat: int | None) -> None:
        self.apply(self._sit(uid, buy_in, seat))

    @rule(uid=st.sampled_from(USERS))
    def leave(self, uid: int) -> None:
        seated = uid in self.seated_users()
        result = self.apply(
            cmd.Leave(
                user_id=uid, transfer_id=f"out-{self.counter}", now=self.now, seed=self.seed()
            )
        )
        assert isinstance(result, list) == seated
        assert self.s.seat_of(uid) is None

    # three copies: legal play is drawn three times as often as any other rule
    @rule(data=st.data())
    def play_legal(self, data: st.DataObject) -> None:
        self.play_legal_with(Drawer(data))

    @rule(data=st.data(), n=st.integers(2, 15))
    def play_legal_burst(self, data: st.DataObject, n: int) -> None:
        """Several legal actions in a row, so hands reach showdowns and svaras."""
        drawer = Drawer(data)
        for _ in range(n):
            self.play_legal_with(drawer, prefer_turn=True)

    def play_legal_with(self, pick: Chooser, prefer_turn: bool = False) -> None:
        options = [(u, a) for u in self.seated_users() for a in legal_actions(self.s, u)]
        if prefer_turn:  # moves that take the hand further (no look, sit-in or fold)
            moving = [(u, a) for u, a in options if a.type not in ("look", "sit_in", "fold")]
            options = moving or options
        if not options:
            return
        uid, action = pick.one(options)
        amount = action.amount if action.type == "blind" else None
        if action.min is not None and action.max is not None:
            amount = pick.integer(action.min, action.max)
        self.now += pick.one([0.0, 1.0])
        result = self.apply(
            cmd.command_for_action(
                action.type, user_id=uid, amount=amount, now=self.now, seed=self.seed()
            )
        )
        assert isinstance(result, list), (action, result)

    @rule(data=st.data(), action=st.sampled_from(ACTIONS), amount=st.integers(-2, 120))
    def play_anything(self, data: st.DataObject, action: str, amount: int) -> None:
        uid = data.draw(st.sampled_from([*self.seated_users(), 999]))
        legal = legal_actions(self.s, uid)
        allowed = accepts(legal, action, amount)
        result = self.apply(
            cmd.command_for_action(
                action, user_id=uid, amount=amount, now=self.now, seed=self.seed()
            )
        )
        assert isinstance(result, list) == allowed, (uid, action, amount, legal, result)
        if isinstance(result, GameError) and uid not in self.seated_users():
            assert result.code == "not_seated"

    @rule(offset=st.sampled_from([-1.0, 0.0, 0.0, 7.0]))
    def tick(self, offset: float) -> None:
        deadline = self.s.deadline
        at = self.now + 1 if deadline is None else deadline + offset
        self.now = max(self.now, at)
        result = self.apply(cmd.Tick(now=at, seed=self.seed()))
        due = deadline is not None and at >= deadline
        assert isinstance(result, list) == due, (deadline, at, result)

    # --- invariants --------------------------------------------------------------------------
    @invariant()
    def chips_are_conserved(self) -> None:
        if self.state is None:
            return
        s = self.s
        bought = sum(e.buy_in for e in self.log if isinstance(e, ev.PlayerSeated))
        cashed = sum(e.cashed_out for e in self.log if isinstance(e, ev.PlayerLeft))
        assert s.chips_in_play() == bought - cashed
        assert all(seat is None or seat.stack >= 0 for seat in s.seats)
        if s.hand is not None:
            assert s.hand.pot >= 0
            assert s.hand.level <= max(0, _cap(s))

    @invariant()
    def fold_of_the_log_is_the_live_state(self) -> None:
        if self.state is None:
            return
        assert fold(self.log) == self.state
        assert decode_state(encode_state(self.s)) == self.s

    @invariant()
    def views_hide_what_they_must(self) -> None:
        if self.state is None:
            return
        hand = self.s.hand
        current = {d.seed for d in hand.seeds} if hand is not None else set()
        secrets = set(self.seeds)
        if hand is not None and hand.phase == "settled":
            secrets -= current
        for viewer in [None, *self.seated_users(), 999]:
            v = check_view(self.s, viewer, secrets)
            if viewer in self.seated_users():
                assert v["you"]["legal"] == [a.to_dict() for a in legal_actions(self.s, viewer)]

    @invariant()
    def a_deadline_exists_while_someone_must_act(self) -> None:
        if self.state is None or self.s.hand is None:
            return
        if self.s.hand.phase in ("blind", "betting", "svara_join"):
            assert self.s.deadline is not None


def _cap(s: TableState) -> int:
    from service.game.betting import cap

    assert s.hand is not None
    if s.hand.phase not in ("blind", "betting"):
        return 10**9
    return cap(s, s.hand)


TableMachine.TestCase.settings = settings(
    max_examples=80,
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_table_machine = TableMachine.TestCase


@pytest.mark.parametrize("seed", range(4))
def test_many_random_hands_keep_every_invariant(seed: int) -> None:
    """Volume on top of Hypothesis: 150 random 2-6 player hands with legal random play."""
    rng = random.Random(seed)
    machine = TableMachine()
    settings_ = TableSettings(
        ante=1, max_seats=6, min_buy_in=1, max_buy_in=30, svara_join_fee="ante"
    )
    machine.create(settings_, rng.randint(2, 6))
    hands = 0
    steps = 0
    while hands < 150:
        steps += 1
        assert steps < 20_000
        s = machine.s
        if s.hand is None or s.hand.phase == "settled" or rng.random() < 0.02:
            if s.hand is not None and s.hand.phase == "settled":
                hands += 1
            if len([x for x in s.seats if x is not None and x.stack >= 1 and not x.sat_out]) < 2:
                _refill(machine, rng)
            if s.deadline is not None:
                machine.tick(rng.choice([0.0, 7.0]))
            continue
        machine.play_legal_with(Dice(rng))
        if steps % 5 == 0:
            machine.views_hide_what_they_must()
    machine.chips_are_conserved()
    machine.fold_of_the_log_is_the_live_state()


def _refill(machine: TableMachine, rng: random.Random) -> None:
    for s in machine.s.seats:
        if s is not None and (s.stack < 1 or s.sat_out):
            machine.leave(s.user_id)
    for uid in USERS:
        if uid not in machine.seated_users() and None in machine.s.seats:
            machine.apply(machine._sit(uid, rng.randint(1, 30), None))
