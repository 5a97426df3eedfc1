"""The table machine: a Hypothesis state machine over random tables. Random settings, 2-10
seats, legal and illegal commands, Ticks before/at/after deadlines, sit-downs and departures,
and stacked decks (a drawn plan of wished deals: ties, three 7s, the joker with a pair;
tests/game/stacking.py).

After every step: chips are conserved; the fold of the whole log equals the live state; events
and state survive their codecs; a command is accepted iff `legal_actions` lists it (refusals
emit nothing); no view or projected event shows a card, score or seed its viewer may not see;
every showdown scores the shown cards as the independent oracle does under the table's
options, and the winner, svara or split and the settlement's amounts follow from those scores.

The machine counts what it reached (tests/game/coverage.py) and fails if a target was not
reached: `pytest -s tests/game/test_properties.py -k machine` prints the counts. Steering
that gets it there: every example seats 3-5 players most of the time and folds the heads-up
first hand so the next deals everyone; each deal takes the next wish of a drawn plan (ties,
three 7s, the joker with a pair); some rules play a deal out without folding, seat newcomers
with a valid buy-in, or answer a svara's join window in a drawn turn of join, skip, lapse.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from events import table as ev
from events.codec import decode_table_event, encode_table_event
from service.game import commands as cmd
from service.game.decider import evolve, fold
from service.game.errors import GameError
from service.game.legal import LegalAction, legal_actions
from service.game.settings import TableSettings
from service.game.state import TableState, decode_state, encode_state
from tests.game.coverage import Coverage
from tests.game.random_play import (
    Chooser,
    Drawer,
    accepts,
    bet_cap,
    deck_plans,
    legal_types,
    table_settings,
)
from tests.game.stacking import Stacker, first_deal
from tests.support.oracle import check_settlement, check_showdown
from tests.support.privacy import check_projected_event, check_view

USERS = list(range(101, 113))
ACTIONS = ["blind", "pass", "look", "call", "raise", "fold", "join_svara", "skip_svara", "sit_in"]
TIMER = LegalAction("tick")  # not a player's: the timer's move when a deadline passes
COVERAGE = Coverage()  # what the machines reached; reset by the test that asserts it
STACKER = Stacker()  # seed searches, shared by every example (they depend on the deal only)


class TableMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.log: list[ev.TableEvent] = []
        self.state: TableState | None = None
        self.now = 1_000_000.0
        self.counter = 0
        self.seeds: set[str] = set()
        self.plan: tuple[str, ...] = ("any",)
        self.deals = 0
        self.answers: tuple[str, ...] = ("join_svara", "skip_svara", "lapse")
        self.answered = 0
        self.checked: dict[str, TableState | None] = {}

    def unchanged_since(self, check: str) -> bool:
        """Whether `check` already passed on this very state (a refused command changes
        nothing, and the whole-log checks would only repeat themselves)."""
        if self.checked.get(check, False) is self.state:
            return True
        self.checked[check] = self.state
        return False

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
            wish = self.plan[self.deals % len(self.plan)]
            command, events = STACKER.stack(self.state, command, wish)
        except GameError as error:
            assert self.state is before
            return error
        assert events, f"{command} was accepted but changed nothing"
        if first_deal(events) is not None:
            self.deals += 1
        secrets = self.seeds | self._new_seeds(events)
        for i, e in enumerate(events):
            assert decode_table_event(encode_table_event(e)) == e
            settings_ = e.settings if isinstance(e, ev.TableCreated) else self.s.settings
            for viewer in [None, *USERS[:4]]:
                check_projected_event(e, viewer, secrets, settings_)
            if isinstance(e, ev.ShowdownHappened):
                check_showdown(self.s, e, events[i + 1])
            elif isinstance(e, ev.HandSettled):
                check_settlement(self.s, e)
            self.state = evolve(self.state, e)
        self.seeds |= self._new_seeds(events)
        self.log.extend(events)
        COVERAGE.observe(before, events, self.s)
        return events

    @staticmethod
    def _new_seeds(events: list[ev.TableEvent]) -> set[str]:
        return {
            e.seed
            for e in events
            if isinstance(e, ev.HandStarted | ev.SvaraDealStarted | ev.SeedDrawn)
        }

    def seated_users(self) -> list[int]:
        return [s.user_id for s in self.s.seats if s is not None]

    # --- rules -------------------------------------------------------------------------------
    @initialize(
        settings=table_settings(),
        first=st.sampled_from([3, 2, 4, 5]),
        plan=deck_plans(),
        answers=st.permutations(["join_svara", "skip_svara", "lapse"]),
    )
    def create(
        self,
        settings: TableSettings,
        first: int,
        plan: Sequence[str] = ("any",),
        answers: Sequence[str] = ("join_svara", "skip_svara", "lapse"),
    ) -> None:
        """A table with `first` players seated. The second sit-down deals a heads-up hand;
        with more players, that hand is folded at once, so the next one deals everyone in
        (the steps go to hands where a svara can be joined). `plan`: the wished deals;
        `answers`: the turn of answers in svara join windows."""
        self.plan = tuple(plan)
        self.answers = tuple(answers)
        events = self.apply(
            cmd.CreateTable(
                table_id="prop", settings=settings, created_by=1, now=self.now, seed=self.seed()
            )
        )
        assert isinstance(events, list)
        for uid in USERS[: min(first, settings.max_seats)]:
            result = self.apply(self._sit(uid, settings.max_buy_in or 40, None))
            assert isinstance(result, list)
        if len(self.seated_users()) > 2:
            self._fold_first_hand()

    def _fold_first_hand(self) -> None:
        """The first hand (dealt to the first two seated) ends at once; the next is dealt."""
        hand = self.s.hand
        assert hand is not None and hand.turn is not None
        seat = self.s.seats[hand.turn]
        assert seat is not None
        for action in ("pass", "fold"):
            command = cmd.command_for_action(
                action, user_id=seat.user_id, amount=None, now=self.now, seed=self.seed()
            )
            assert isinstance(self.apply(command), list)
        if self.s.phase == "settled" and self.s.deadline is not None:
            self.now = max(self.now, self.s.deadline)
            self.apply(cmd.Tick(now=self.now, seed=self.seed()))

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

    @rule(data=st.data())
    def sit_down_legal(self, data: st.DataObject) -> None:
        """Someone new takes a free seat with a buy-in the table accepts: departures, busts
        and sit-outs thin the table out, and many rules need three or more players."""
        free = [uid for uid in USERS if uid not in self.seated_users()]
        if not free or None not in self.s.seats:
            return
        low, high = self.s.settings.buy_in_range
        uid = data.draw(st.sampled_from(free))
        self.sit_down_where_free(uid, data.draw(st.integers(low, high)))

    def sit_down_where_free(self, uid: int, buy_in: int) -> None:
        """`uid`, not seated, takes a free seat with a buy-in in the table's range: accepted,
        unless the table has closed (after a day with nobody seated), which refuses every
        seat with `table_closed` and changes nothing."""
        closed = self.s.closed
        result = self.apply(self._sit(uid, buy_in, None))
        if closed:
            assert isinstance(result, GameError) and result.code == "table_closed", result
            assert self.s.closed and self.s.seat_of(uid) is None
        else:
            assert isinstance(result, list), result

    @rule(data=st.data())
    def leave(self, data: st.DataObject) -> None:
        """Anyone may try to leave; the broke (who can play no more) are drawn more often."""
        ante = self.s.settings.ante
        broke = [s.user_id for s in self.s.seats if s is not None and s.stack < ante]
        self.leave_table(data.draw(st.sampled_from([*broke, *USERS])))

    def leave_table(self, uid: int) -> None:
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

    @rule(data=st.data())
    def play_to_the_end_of_the_deal(self, data: st.DataObject) -> None:
        """Legal moves that take the hand further until its deal ends: a showdown (then a
        svara's join window, a split or a settlement) or a win by folds; most stacked deals
        are wasted if they never reach one."""
        drawer = Drawer(data)
        hand = self.s.hand
        if hand is None or not hand.active:
            return
        number, deal = hand.number, hand.deal
        for _ in range(40):
            hand = self.s.hand
            if hand is None or (hand.number, hand.deal) != (number, deal) or not hand.active:
                return
            self.play_legal_with(drawer, prefer_turn=True)

    @rule(data=st.data())
    def answer_svara(self, data: st.DataObject) -> None:
        """In a svara's join window: someone joins or skips, or the window lapses."""
        hand = self.s.hand
        if hand is not None and hand.phase == "svara_join":
            self.answer_window(Drawer(data))

    def answer_window(self, pick: Chooser) -> None:
        """A join, a skip by an eligible player yet to answer, or the timer at the window's
        deadline, in the turn of the example's `answers` (drawn choices would let a run's
        correlated examples miss one outcome altogether)."""
        answer = self.answers[self.answered % len(self.answers)]
        self.answered += 1
        if answer == "lapse":
            self.tick(0.0)
            return
        able = [u for u in self.seated_users() if answer in legal_types(legal_actions(self.s, u))]
        if not able:
            return
        result = self.apply(
            cmd.command_for_action(
                answer, user_id=pick.one(able), amount=None, now=self.now, seed=self.seed()
            )
        )
        assert isinstance(result, list), (answer, result)

    def play_legal_with(self, pick: Chooser, prefer_turn: bool = False) -> None:
        """One legal move by a player, or by the timer (the clock reaching the deadline);
        `prefer_turn`: the moves that take the hand further (no look or fold, no sit-in
        during a hand, and the timer only between hands: a turn timeout folds). A svara's
        join window is answered by `answer_window`."""
        hand = self.s.hand
        if hand is not None and hand.phase == "svara_join":
            self.answer_window(pick)
            return
        options = [(u, a) for u in self.seated_users() for a in legal_actions(self.s, u)]
        between_hands = hand is None or hand.phase == "settled"
        if prefer_turn:
            held = ("look", "fold") if between_hands else ("look", "fold", "sit_in")
            moving = [(u, a) for u, a in options if a.type not in held]
            options = moving or options
        if self.s.deadline is not None and (between_hands or not prefer_turn):
            options.append((0, TIMER))
        if not options:
            return
        uid, action = pick.one(options)
        if action is TIMER:
            self.tick(0.0)
            return
        amount = action.amount if action.type == "blind" else None
        if action.min is not None and action.max is not None:  # mostly the least: stacks last
            amount = pick.one([action.min, action.min, pick.integer(action.min, action.max)])
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

    @rule(uid=st.sampled_from(USERS), client_seed=st.sampled_from(["a", "b-2", "C_3", "x y"]))
    def set_client_seed(self, uid: int, client_seed: str) -> None:
        """Players cut the deck (v2): a seed counts from the next deal."""
        seat = self.s.seat_by_user(uid)
        if seat is not None and seat.client_seed == client_seed:
            return  # the same seed again: no event
        result = self.apply(cmd.SetClientSeed(user_id=uid, client_seed=client_seed, now=self.now))
        assert isinstance(result, list) == (seat is not None and client_seed != "x y"), result

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
            assert s.hand.level <= max(0, bet_cap(s))

    @invariant()
    def fold_of_the_log_is_the_live_state(self) -> None:
        if self.state is None or self.unchanged_since("fold"):
            return
        assert fold(self.log) == self.state
        assert decode_state(encode_state(self.s)) == self.s

    @invariant()
    def views_hide_what_they_must(self) -> None:
        if self.state is None or self.unchanged_since("views"):
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
