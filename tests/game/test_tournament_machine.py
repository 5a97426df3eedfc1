"""A Hypothesis machine over the pure tournament decider: random sizes, ante schedules (by
hands or by minutes, hands settled at random times), prize tables, registrations,
unregistrations, fill timeouts and hands (an abstract hand result: chips move between the
players still in, some bust), with repeated and stale commands. After every step:
fold(events) == the live state, play chips are conserved (wallets + pool = grants), the
level is the schedule's (counted here by its own formula), a refusal emits nothing; at the
end exactly one winner, places 1..N once each and prizes = the pool by the prize table."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from events.tournament import (
    AnyTournamentEvent,
    HandRecorded,
    LevelRaised,
    TournamentFinished,
    TournamentSettings,
)
from service.game.errors import GameError
from service.game.tournament import decide, fold
from service.game.tournament import decider as td
from service.game.tournament.levels import next_level_at
from service.game.tournament.state import TournamentState, prize_amounts, prize_table

GRANT = 1000
REACHED: Counter[str] = Counter()  # statuses seen, so the run proves it reached every end
RAISED: Counter[str] = Counter()  # levels raised by each schedule, and several in one hand
USERS = list(range(1, 13))


@st.composite
def tournament_settings(draw: st.DrawFn, by_time: bool = False) -> TournamentSettings:
    seats = draw(st.integers(2, 10))
    stack = draw(st.integers(5, 200))
    antes = tuple(draw(st.lists(st.integers(1, stack), min_size=1, max_size=5)))
    prizes: tuple[int, ...] = ()
    if draw(st.booleans()):
        places = draw(st.integers(1, seats))
        cuts = sorted(draw(st.lists(st.integers(1, 99), min_size=places - 1,
                                    max_size=places - 1, unique=True)))
        bounds = [0, *cuts, 100]
        prizes = tuple(b - a for a, b in pairwise(bounds))
    return TournamentSettings(
        seats=seats, buy_in=draw(st.integers(1, 300)), stack=stack, antes=antes,
        hands_per_level=0 if by_time else draw(st.integers(1, 4)),
        minutes_per_level=draw(st.integers(1, 3)) if by_time else 0,
        prizes=prizes, fill_seconds=120,
    )


class TournamentMachine(RuleBasedStateMachine):
    @initialize(s=tournament_settings())
    def create(self, s: TournamentSettings) -> None:
        self.now = 0.0
        self.events: list[AnyTournamentEvent] = []
        self.state: TournamentState | None = None
        self.wallets = dict.fromkeys(USERS, GRANT)
        self.paid_out: set[str] = set()
        self.table_version = 0
        self._run(td.CreateTournament(tournament_id="t1", settings=s, created_by=1, now=0.0))

    def _run(self, command: td.AnyTournamentCommand) -> bool:
        try:
            events = decide(self.state, command)
        except GameError:
            return False  # a refusal: nothing to apply (decide returned no events)
        for e in events:
            self.events.append(e)
        self.state = fold(events, self.state)
        return True

    def _settle_wallets(self) -> None:
        """What the service's manager does after the fact: credit refunds and prizes once."""
        st_ = self.state
        assert st_ is not None
        for rid, (user, amount) in st_.refunds.items():
            if rid not in self.paid_out:
                self.paid_out.add(rid)
                self.wallets[user] += amount
        if st_.status in ("finished", "cancelled") and not st_.paid:
            credits = (
                st_.prizes.items() if st_.status == "finished"
                else ((u, e.amount) for u, e in st_.entries.items())
            )
            for user, amount in credits:
                self.wallets[user] += amount
            assert self._run(td.PayPrizes(now=self.now))
            assert self.state is not None and self.state.paid

    @rule(user=st.sampled_from(USERS))
    def register(self, user: int) -> None:
        st_ = self.state
        assert st_ is not None
        ok = td.can_register(st_, user) and self.wallets[user] >= st_.settings.buy_in
        if ok:
            self.wallets[user] -= st_.settings.buy_in
        done = self._run(td.Register(
            user_id=user, name=f"u{user}", transfer_id=f"r{user}:{len(self.events)}",
            amount=st_.settings.buy_in, now=self.now,
        )) if ok else False
        assert done == ok
        if self.state is not None and self.state.full and self.state.status == "registering":
            assert self._run(td.Start(table_id="table", now=self.now))

    @rule(user=st.sampled_from(USERS))
    def unregister(self, user: int) -> None:
        before = self.state
        if not self._run(td.Unregister(user_id=user, now=self.now)):
            assert self.state is before
        self._settle_wallets()

    @rule(seconds=st.integers(0, 30))
    def wait(self, seconds: int) -> None:
        self.now += seconds
        self._run(td.Cancel(now=self.now))
        self._settle_wallets()

    @rule(data=st.data())
    def hand(self, data: st.DataObject) -> None:
        st_ = self.state
        assert st_ is not None
        if st_.status != "running":
            return
        left = st_.left_in()
        stacks = dict(st_.stacks)
        start = dict(stacks)
        # an abstract hand: some players still in lose chips (maybe all) to one winner
        winner = data.draw(st.sampled_from(left))
        for u in left:
            if u != winner and data.draw(st.booleans()):
                lost = data.draw(st.sampled_from([stacks[u], stacks[u] // 2, 0]))
                stacks[u] -= lost
                stacks[winner] += lost
        self.table_version += data.draw(st.integers(1, 12))
        # whole seconds, so the oracle's floor is exact; sometimes exactly on the boundary
        boundary = next_level_at(st_.settings, level=st_.level, started_at=st_.started_at)
        if boundary is not None and data.draw(st.booleans()):
            self.now = max(self.now, boundary)
        else:
            self.now += data.draw(st.integers(0, 400))
        record = td.RecordHand(
            table_version=self.table_version, hand=st_.hands + 1, stacks=stacks,
            start_stacks=start, now=self.now, settled_at=self.now,
        )
        level = st_.level
        assert self._run(record)
        assert self.state is not None
        if self.state.level > level:
            kind = "minutes" if st_.settings.minutes_per_level else "hands"
            RAISED[kind] += 1
            RAISED["several_at_once"] += self.state.level - level > 1
            RAISED["exactly_at_the_boundary"] += self.now == boundary
        before = self.state
        assert decide(before, record) == []  # the same hand again: recorded once
        stale = td.RecordHand(table_version=1, hand=1, stacks=stacks, start_stacks=start,
                              now=self.now)
        assert decide(before, stale) == []
        self._settle_wallets()

    @invariant()
    def folds_to_the_live_state(self) -> None:
        assert fold(self.events) == self.state

    @invariant()
    def level_follows_the_schedule(self) -> None:
        """Counted apart from the decider: levels 2.. once each, in order, and the level is
        1 + (hands, or whole periods since the start at the last hand dealt on after)."""
        st_ = self.state
        assert st_ is not None
        s = st_.settings
        finished = {e.table_version for e in self.events if isinstance(e, TournamentFinished)}
        dealt_on = [e for e in self.events
                    if isinstance(e, HandRecorded) and e.table_version not in finished]
        if s.minutes_per_level:
            periods = int((dealt_on[-1].settled_at - st_.started_at) // (s.minutes_per_level * 60)
                          ) if dealt_on else 0
        else:
            periods = len(dealt_on) // s.hands_per_level
        assert st_.level == min(len(s.antes), 1 + periods)
        raised = [e.level for e in self.events if isinstance(e, LevelRaised)]
        assert raised == list(range(2, st_.level + 1))
        assert all(e.ante == s.antes[e.level - 1] for e in self.events
                   if isinstance(e, LevelRaised))

    @invariant()
    def play_chips_are_conserved(self) -> None:
        st_ = self.state
        assert st_ is not None
        assert sum(self.wallets.values()) + st_.pool == GRANT * len(USERS)
        assert st_.pool >= 0

    @invariant()
    def tournament_chips_are_conserved(self) -> None:
        st_ = self.state
        assert st_ is not None
        if st_.status in ("running", "finished"):
            assert sum(st_.stacks.values()) == st_.settings.stack * len(st_.players)

    @invariant()
    def standings_when_over(self) -> None:
        st_ = self.state
        assert st_ is not None
        REACHED[st_.status] += 1
        if st_.status != "finished":
            return
        n = len(st_.players)
        assert sorted(st_.places.values()) == list(range(1, n + 1))
        winners = [u for u, p in st_.places.items() if p == 1]
        assert len(winners) == 1 and st_.stacks[winners[0]] == st_.settings.stack * n
        pool = sum(e.amount for e in st_.entries.values())
        assert sum(st_.prizes.values()) == pool
        assert st_.prizes == prize_amounts(pool, prize_table(st_.settings, n), st_.places)


class TimedTournamentMachine(TournamentMachine):
    """The same machine, every tournament's ante rising by minutes."""

    @initialize(s=tournament_settings(by_time=True))
    def create(self, s: TournamentSettings) -> None:
        super().create(s)


TournamentMachine.TestCase.settings = settings(
    max_examples=200, stateful_step_count=80, deadline=None, derandomize=True
)
TimedTournamentMachine.TestCase.settings = settings(
    max_examples=150, stateful_step_count=80, deadline=None, derandomize=True
)


def test_tournament_machine() -> None:
    REACHED.clear()
    RAISED.clear()
    TournamentMachine.TestCase("runTest").runTest()
    # derandomized: a fact about the code, not luck
    assert {"registering", "running", "finished", "cancelled"} <= set(REACHED), REACHED
    assert RAISED["hands"], RAISED


def test_tournament_machine_by_minutes() -> None:
    REACHED.clear()
    RAISED.clear()
    TimedTournamentMachine.TestCase("runTest").runTest()
    assert {"registering", "running", "finished", "cancelled"} <= set(REACHED), REACHED
    assert all(RAISED[k] for k in ("minutes", "several_at_once",
                                   "exactly_at_the_boundary")), RAISED
