"""Games for the verifier corpus (docs/verifier-corpus), played through the rules engine alone
(`service.game.decider.step`): every seed, time and choice comes from a label, so the same
label always plays the same game, event for event and byte for byte.

A `Game` keeps the table's stored log as the store would write it (versions, times, chain
hashes); `find` plays labelled games until one has a hand the scenario wants.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from events import table as ev
from events.codec import encode_table_event
from events.store.base import StoredEvent
from events.store.chain import ZERO_HASH, at_text, link_of
from service.game import commands as cmd
from service.game.decider import step
from service.game.errors import GameError
from service.game.settings import TableSettings
from service.game.state import TableState
from service.game.view import view
from service.tables import bots

START = 1_800_000_000.0
# A player's policy: (game, user id, the practice bot's choice) -> the action taken, None to
# let the turn time out, or ("left", None) when it made the player stand up itself.
Policy = Callable[["Game", int, tuple[str, int | None]], tuple[str, int | None] | None]


def _bot(game: Game, user: int, choice: tuple[str, int | None]) -> tuple[str, int | None] | None:
    return choice


@dataclass
class Game:
    label: str
    settings: TableSettings
    players: int = 3
    buy_in: int = 200
    client_seeds: dict[int, str] = field(default_factory=dict)  # player index -> seed
    seeded_table: bool = True  # False: created with no seed (hand 1 dealt v1)
    chain: int = 2  # the chain version the log is written with
    policy: Policy = _bot
    state: TableState | None = None
    stored: list[StoredEvent] = field(default_factory=list)
    decoded: list[ev.TableEvent] = field(default_factory=list)
    now: float = START
    draws: int = 0

    def __post_init__(self) -> None:
        self.table_id = "c" + hashlib.sha256(self.label.encode()).hexdigest()[:15]
        self.rng = random.Random(self.label)
        self.users = [7_000_000 + i for i in range(self.players)]

    def seed(self) -> bytes:
        self.draws += 1
        return hashlib.sha256(f"{self.label}:{self.draws}".encode()).digest()

    def run(self, command: cmd.TableCommand) -> None:
        events, self.state = step(self.state, command)
        prev = self.stored[-1].hash if self.stored else ZERO_HASH
        for e in events:
            data = encode_table_event(e)
            digest = link_of(self.chain, prev, at_text(command.now), data)
            version = len(self.stored) + 1
            self.stored.append(StoredEvent(version, data, command.now, digest, chain=self.chain))
            self.decoded.append(e)
            prev = digest

    def start(self) -> Game:
        self.run(cmd.CreateTable(now=self.now, seed=self.seed() if self.seeded_table else b"",
                                 table_id=self.table_id, settings=self.settings,
                                 created_by=self.users[0]))  # fmt: skip
        for i, user in enumerate(self.users):
            self.now += 1
            transfer = f"{self.label}-in-{i}"
            self.run(cmd.SitDown(now=self.now, seed=self.seed(), user_id=user, name=f"P{i}",
                                 buy_in=self.buy_in, transfer_id=transfer))  # fmt: skip
            if i in self.client_seeds:
                self.run(cmd.SetClientSeed(now=self.now, user_id=user,
                                           client_seed=self.client_seeds[i]))  # fmt: skip
        return self

    def leave(self, index: int) -> None:
        self.now += 1
        self.run(cmd.Leave(now=self.now, user_id=self.users[index],
                           transfer_id=f"{self.label}-out-{index}"))  # fmt: skip

    def hand_number(self) -> int:
        hand = self.state.hand if self.state is not None else None
        return hand.number if hand is not None else 0

    def settled(self, number: int) -> bool:
        state = self.state
        if state is None or state.hand is None:
            return False
        return state.hand.number > number or (
            state.hand.number == number and state.hand.result is not None)  # fmt: skip

    def events(self) -> list[ev.TableEvent]:
        return self.decoded

    def play_until(self, number: int, max_steps: int = 3000) -> None:
        """Play on (players by `policy`, timers when nobody acts) until hand `number` settles."""
        for _ in range(max_steps):
            if self.settled(number):
                return
            if not self.act():
                state = self.state
                assert state is not None and state.deadline is not None, "stuck"
                self.now = max(self.now, state.deadline)
                self.run(cmd.Tick(now=self.now, seed=self.seed()))
        raise AssertionError(f"hand {number} did not settle")

    def act(self) -> bool:
        state = self.state
        assert state is not None
        for user in self.users:
            if state.seat_of(user) is None:
                continue
            choice = bots.choose(view(state, user, len(self.stored)), self.rng)
            if choice is None:
                continue
            taken = self.policy(self, user, choice)
            if taken is None:
                return False
            if taken[0] == "left":  # the policy made the player stand up instead
                return True
            self.now += 2
            kind, amount = taken
            try:
                self.run(cmd.command_for_action(kind, user_id=user, amount=amount, now=self.now,
                                                seed=self.seed()))  # fmt: skip
            except GameError:
                self.run(cmd.command_for_action(choice[0], user_id=user, amount=choice[1],
                                                now=self.now, seed=self.seed()))  # fmt: skip
            return True
        return False

    def hand_events(self, number: int) -> list[ev.TableEvent]:
        out: list[ev.TableEvent] = []
        inside = False
        for e in self.events():
            if type(e) is ev.HandStarted and e.number == number:
                inside = True
            if inside:
                out.append(e)
            if inside and type(e) is ev.HandSettled:
                break
        return out

    def log_through(self, number: int) -> list[StoredEvent]:
        """The stored log from version 1 through hand `number`'s settlement."""
        events = self.events()
        end = next(i for i, e in enumerate(events)
                   if type(e) is ev.HandSettled and e.number == number)  # fmt: skip
        return self.stored[: end + 1]


def find(
    name: str,
    make: Callable[[str], Game],
    wanted: Callable[[list[ev.TableEvent]], bool],
    *,
    hands: int = 6,
    tries: int = 400,
) -> tuple[Game, int]:
    """The first labelled game (`name-0`, `name-1`, ...) with a hand, among its first `hands`,
    that `wanted` accepts; and that hand's number."""
    for i in range(tries):
        game = make(f"{name}-{i}").start()
        for number in range(1, hands + 1):
            try:
                game.play_until(number)
            except AssertionError:
                break
            if wanted(game.hand_events(number)):
                return game, number
    raise AssertionError(f"no game for {name} in {tries} tries")
