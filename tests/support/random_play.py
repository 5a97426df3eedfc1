"""Random legal play through the game core: the table of three players the game, store and
replay benchmarks play, the move chooser they share with the golden-hands and turn tests,
and a big table written to a store as the live path would have written it.

Uniform among legal actions (`legal_actions` offers the choices), seeded, so a seed gives the
same hands every time (tests/game/test_golden_hands.py holds their digests).
"""

from __future__ import annotations

import random

from events.codec import encode_table_event
from events.store import open_store
from service.game import commands as cmd
from service.game.decider import decide, evolve
from service.game.legal import legal_actions
from service.game.settings import TableSettings
from service.game.state import TableState, encode_state
from service.tables.hands_index import HandTracker, fold_tracked

PLAYERS = (101, 102, 103)


def setup_commands(rng: random.Random, now: float = 1_000.0) -> list[cmd.TableCommand]:
    """Create the bench table and seat its three players (shared with bench_store.py)."""
    settings = TableSettings(ante=1, max_buy_in=10**9)
    commands: list[cmd.TableCommand] = [
        cmd.CreateTable(
            table_id="bench", settings=settings, created_by=1, now=now, seed=rng.randbytes(32)
        )
    ]
    for uid in PLAYERS:
        commands.append(
            cmd.SitDown(
                user_id=uid,
                name=str(uid),
                buy_in=10**8,
                transfer_id=str(uid),
                now=now,
                seed=rng.randbytes(32),
            )
        )
    return commands


def new_table(rng: random.Random) -> TableState:
    state = None
    for command in setup_commands(rng):
        for e in decide(state, command):
            state = evolve(state, e)
    assert state is not None
    return state


def random_command(state: TableState, rng: random.Random, now: float) -> cmd.TableCommand:
    """A uniformly random legal action of a player who may act now.

    Kept lean on purpose (index by `rng.random()`, no per-call list building on turns): the
    bench measures the engine, and `legal_actions` is still what offers the choices."""
    hand = state.hand
    assert hand is not None
    if hand.phase == "svara_join":
        actors = [state.seats[s] for s in hand.eligible if s not in hand.answered]
        seat = actors[0] if len(actors) == 1 else actors[int(rng.random() * len(actors))]
    else:
        assert hand.turn is not None
        seat = state.seats[hand.turn]
    assert seat is not None
    actions = legal_actions(state, seat.user_id)
    action = actions[int(rng.random() * len(actions))]
    amount = action.amount
    low, high = action.min, action.max
    if low is not None and high is not None:
        amount = low + int(rng.random() * (min(high, low + 20) - low + 1))
    return cmd.command_for_action(
        action.type, user_id=seat.user_id, amount=amount, now=now, seed=rng.randbytes(32)
    )


def play_table(table_id: str, events: int, seed: int = 1) -> tuple[list[list], int]:
    """Batches of (event, at) as the commands decided them, until `events` events."""
    rng = random.Random(seed)
    now = 1_000.0
    state: TableState | None = None
    setup: list[cmd.TableCommand] = [cmd.CreateTable(
        table_id=table_id, settings=TableSettings(ante=1, max_buy_in=10**9), created_by=1,
        now=now, seed=rng.randbytes(32))]
    setup += [cmd.SitDown(user_id=u, name=f"P{u}", buy_in=10**8, transfer_id=str(u), now=now,
                          seed=rng.randbytes(32)) for u in PLAYERS]  # fmt: skip
    batches: list[list] = []
    total = 0
    hands = 0
    while total < events:
        if setup:
            command = setup.pop(0)
        elif state is None or state.hand is None or state.hand.phase == "settled":
            assert state is not None and state.deadline is not None
            now = max(now + 0.5, state.deadline)
            command = cmd.Tick(now=now, seed=rng.randbytes(32))
        else:
            now += 0.5
            command = random_command(state, rng, now)
        batch = decide(state, command)
        for e in batch:
            state = evolve(state, e)
        batches.append([(e, float(command.now)) for e in batch])
        total += len(batch)
        hands = state.hand_number if state is not None else 0
    return batches, hands


async def write_big_table(url: str, namespace: str, table_id: str, events: int) -> int:
    """Write the table to the store at `url` in batches of about 500 events, with the hands
    index entries the live path writes and a snapshot at its head; returns its number of
    settled hands."""
    store = open_store(url)
    stream = f"{namespace}table:{table_id}"
    tracker = HandTracker(namespace, table_id)
    batches, hands = play_table(table_id, events)
    state: TableState | None = None
    version = 0
    chunk: list = []
    for batch in batches:
        chunk += batch
        if len(chunk) < 500 and batch is not batches[-1]:
            continue
        evs = [e for e, _ in chunk]
        new_state, ops = fold_tracked(tracker, state, evs, version + 1, [a for _, a in chunk])
        result = await store.append(stream, [encode_table_event(e) for e in evs],
                                    expected_version=version, at=chunk[-1][1], index=ops)
        assert result.status == "appended", result
        state, version, chunk = new_state, result.version, []
    assert state is not None
    await store.save_snapshot(stream, version, encode_state(state))
    await store.close()
    return hands - 1
