"""Test helpers: drive one table through decide/evolve and keep its whole log.

Every accepted command is checked on the spot: the live state equals the fold of the log, and
chips are conserved. Seeds are deterministic, and `seed_where` finds a seed whose deal has a
wanted property (a tie for a svara, a clear winner ...).

Decks are `hmac-sha256-fy-v2` (docs/FAIRNESS.md "Decks"): a deal's server seed is drawn one
step ahead, by the command that creates the table (hand 1), settles the previous hand (the next
hand) or declares the svara (its deal). So a test stacks a deal by setting `next_seed` before
*that* command (or `Table(first_seed=...)` for hand 1), not before the one that deals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from msgspec.structs import replace

from events import table as ev
from service.game import commands as cmd
from service.game.decider import decide, evolve, fold
from service.game.deck import deal_hands, mix_of, shuffled_deck_v2
from service.game.errors import GameError
from service.game.scoring import score
from service.game.settings import TableSettings
from service.game.state import TableState

T0 = 1_000_000.0


def seed_of(n: int) -> bytes:
    return n.to_bytes(32, "big")


def deal_for(
    seed: bytes,
    table_id: str,
    hand: int,
    deal: int,
    n: int,
    client_seeds: dict[int, str] | None = None,
) -> list[tuple[str, ...]]:
    """The hands of a v2 deal, in playing order (`client_seeds`: those of the players dealt
    in; none by default)."""
    deck = shuffled_deck_v2(seed, table_id, hand, deal, mix_of(client_seeds or {}))
    return [tuple(h) for h in deal_hands(deck, n)]


def seed_where(
    table_id: str,
    hand: int,
    deal: int,
    n: int,
    want: Callable[[list[int]], bool],
    client_seeds: dict[int, str] | None = None,
) -> bytes:
    """The first seed whose v2 deal's scores (in playing order) satisfy `want`."""
    for i in range(1, 20_000):
        seed = seed_of(i)
        scores = [score(h) for h in deal_for(seed, table_id, hand, deal, n, client_seeds)]
        if want(scores):
            return seed
    raise AssertionError("no such seed")


class Table:
    """One table under test. `do` applies a command; `refused` asserts a GameError code."""

    def __init__(
        self,
        table_id: str = "t1",
        first_seed: bytes | None = None,
        *,
        idle_close_seconds: float = 0.0,
        **settings: Any,
    ) -> None:
        """`first_seed`: the server seed of hand 1 (drawn when the table is created);
        `idle_close_seconds`: the deployment's idle limit (0.0: none recorded, a day)."""
        self.table_id = table_id
        self.now = T0
        self.log: list[ev.TableEvent] = []
        self.state: TableState | None = None
        self.next_seed: bytes | None = first_seed
        self._seed_counter = 0
        self.do(
            cmd.CreateTable(
                table_id=table_id,
                settings=TableSettings(**settings),
                created_by=1,
                now=self.now,
                seed=self.seed(),
                idle_close_seconds=idle_close_seconds,
            )
        )

    @property
    def s(self) -> TableState:
        assert self.state is not None
        return self.state

    def seed(self) -> bytes:
        if self.next_seed is not None:
            seed, self.next_seed = self.next_seed, None
            return seed
        self._seed_counter += 1
        return seed_of(10_000 + self._seed_counter)

    def do(self, command: cmd.TableCommand) -> list[ev.TableEvent]:
        events = decide(self.state, command)
        for e in events:
            self.state = evolve(self.state, e)
        self.log.extend(events)
        assert fold(self.log) == self.state
        s = self.s
        assert s.chips_in_play() == s.bought_in - s.cashed_out
        return events

    def rig(self, *hands: str) -> None:
        """Give the newest deal these cards instead ("7d 7h 7s", ... in playing order): for
        hands no seed search would find in time (three 7s against three aces). The log then
        no longer matches its seeds, so only game-core rules may be tested on it, not the
        audit; nothing may have happened since the deal."""
        i = max(i for i, e in enumerate(self.log) if isinstance(e, ev.CardsDealt))
        assert all(isinstance(e, ev.TurnDeadlineSet) for e in self.log[i + 1 :])
        dealt = self.log[i]
        assert isinstance(dealt, ev.CardsDealt) and len(hands) == len(dealt.cards)
        cards = [tuple(h.split()) for h in hands]
        assert all(len(c) == 3 for c in cards) and len({*sum(cards, ())}) == 3 * len(cards)
        self.log[i] = replace(dealt, cards=dict(zip(dealt.cards, cards, strict=True)))  # type: ignore[arg-type]
        self.state = fold(self.log)

    def refused(self, code: str, command: cmd.TableCommand) -> GameError:
        before = self.state
        with pytest.raises(GameError) as info:
            decide(self.state, command)
        assert info.value.code == code, info.value
        assert self.state is before
        return info.value

    # --- commands by user id -------------------------------------------------------------
    def sit(self, user_id: int, buy_in: int = 100, seat: int | None = None) -> list[ev.TableEvent]:
        return self.do(
            cmd.SitDown(
                user_id=user_id,
                name=f"u{user_id}",
                buy_in=buy_in,
                transfer_id=f"tr{user_id}-{len(self.log)}",
                seat=seat,
                now=self.now,
                seed=self.seed(),
            )
        )

    def act(self, user_id: int, action: str, amount: int | None = None) -> list[ev.TableEvent]:
        return self.do(self.command(user_id, action, amount))

    def command(self, user_id: int, action: str, amount: int | None = None) -> cmd.PlayerCommand:
        return cmd.command_for_action(
            action, user_id=user_id, amount=amount, now=self.now, seed=self.seed()
        )

    def leave(self, user_id: int) -> list[ev.TableEvent]:
        return self.do(
            cmd.Leave(user_id=user_id, transfer_id=f"out{user_id}", now=self.now, seed=self.seed())
        )

    def tick(self, at: float | None = None) -> list[ev.TableEvent]:
        deadline = self.s.deadline
        assert deadline is not None
        self.now = max(self.now, deadline) if at is None else at
        return self.do(cmd.Tick(now=self.now, seed=self.seed()))

    # --- queries ---------------------------------------------------------------------------
    def user_at(self, seat: int) -> int:
        s = self.s.seats[seat]
        assert s is not None
        return s.user_id

    @property
    def turn_user(self) -> int:
        hand = self.s.hand
        assert hand is not None and hand.turn is not None
        return self.user_at(hand.turn)

    def stack(self, user_id: int) -> int:
        s = self.s.seat_by_user(user_id)
        assert s is not None
        return s.stack

    def types(self, events: Sequence[ev.TableEvent]) -> list[str]:
        return [type(e).__struct_config__.tag for e in events]  # type: ignore[misc]

    def last(self, kind: type[Any]) -> Any:
        for e in reversed(self.log):
            if isinstance(e, kind):
                return e
        raise AssertionError(f"no {kind.__name__} in the log")

    def last_turn(self) -> tuple[int, float, str]:
        """(seat, deadline, phase) of the newest turn handed on, by whichever event did it."""
        for e in reversed(self.log):
            if isinstance(e, ev.TurnDeadlineSet):
                return e.seat, e.deadline, e.phase
            if isinstance(e, ev.TurnHandover) and e.turn is not None:
                assert e.deadline is not None and e.phase is not None
                return e.turn, e.deadline, e.phase
        raise AssertionError("no turn in the log")


def table_with(
    users: Sequence[int], buy_in: int = 100, seed: bytes | None = None, **settings: Any
) -> Table:
    """A table with `users` seated at seats 0, 1, ... and a hand dealt to all of them.

    Two users: the first hand (dealer seat 0, seat 1 acts first). More: the first hand (only
    seats 0 and 1, started by the second sit-down) is folded to seat 0, and the next hand is
    dealt to everyone: dealer seat 0 again, seat 1 first to act. `seed` deals that hand (the
    table's creation draws hand 1's seed; the fold that settles hand 1 draws hand 2's).
    """
    settings.setdefault("ante", 1)
    t = Table(first_seed=seed if len(users) == 2 else None, **settings)
    for i, uid in enumerate(users):
        t.sit(uid, buy_in, seat=i)
    if len(users) > 2:
        t.act(users[1], "pass")
        t.next_seed = seed
        t.act(users[1], "fold")
        t.tick()
    hand = t.s.hand
    assert hand is not None and len(hand.players) == len(users)
    return t
