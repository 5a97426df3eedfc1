"""Golden hands: the benchmark's random hands must keep producing the same bytes.

Speed work on the game core must not change behaviour. The states digest was recorded before
the first optimisation round (2026-11-29) and has not changed since; the events digest changed
once, on purpose, when most `turn_deadline_set` events were folded into the action before them
(`TurnHandover`): every state after every command stayed the same bytes. The states digest
changed once, on purpose, when `TableState` gained `empty_since` and `closed` (the idle close,
`table_closed`): with those two fields taken out, every state is still the recorded bytes
(`test_states_are_the_recorded_bytes_but_for_the_idle_fields`). A change here means events or
snapshots changed, which is a rules or format change, never a refactoring.
"""

from __future__ import annotations

import hashlib
import importlib.util
import random
from collections.abc import Callable
from pathlib import Path

import msgspec

from events import table as ev
from service.game import commands as cmd
from service.game.decider import decide, evolve, fold, step
from service.game.state import TableState, encode_state

# The bench's own move chooser, loaded from its file (bench/ is not a package).
_BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_game.py"
_spec = importlib.util.spec_from_file_location("bench_game", _BENCH)
assert _spec is not None and _spec.loader is not None
bench_game = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_game)

EVENTS_DIGEST = "257bfd3b43d681ee377d2c5a378557b3613a224f9feafd271b56913c0a9ba75d"
STATES_DIGEST = "81e77bb9b0d37e59cc9ecd2bfbb56df1835ed036840fe3d152912aa1caa9375d"
# The states digest before `empty_since` and `closed` were added (2026-11-30).
STATES_DIGEST_BEFORE_IDLE = "8f47a3d9c8502644dd26f06e9b1136c6c1ebc569ef170f7cd092bc2177223cf3"
IDLE_FIELDS = ("empty_since", "closed")


def _without_idle_fields(snapshot: bytes) -> bytes:
    """A snapshot as encoded before the idle fields existed (msgpack maps keep their order)."""
    fields = msgspec.msgpack.decode(snapshot)
    for name in IDLE_FIELDS:
        del fields[name]
    return msgspec.msgpack.encode(fields)


def _play(
    hands: int, seed: int, use_step: bool, state_bytes: Callable[[bytes], bytes] = bytes
) -> tuple[str, str]:
    """Digests of every event and every resulting state's snapshot over `hands` hands."""
    encode = msgspec.msgpack.Encoder().encode
    events_hash, states_hash = hashlib.sha256(), hashlib.sha256()
    rng = random.Random(seed)
    state: TableState = bench_game.new_table(rng)
    now, done = 1_000.0, 0
    while done < hands:
        hand = state.hand
        command: cmd.TableCommand
        if hand is None or hand.phase == "settled":
            done += hand is not None
            deadline = state.deadline
            assert deadline is not None
            now = max(now, deadline)
            command = cmd.Tick(now=now, seed=rng.randbytes(32))
        else:
            command = bench_game.random_command(state, rng, now)
        if use_step:
            events, state = step(state, command)
        else:
            events = decide(state, command)
            for e in events:
                state = evolve(state, e)
        for e in events:
            events_hash.update(encode(e))
        states_hash.update(state_bytes(encode_state(state)))
    return events_hash.hexdigest(), states_hash.hexdigest()


def test_decide_and_evolve_give_the_recorded_bytes() -> None:
    assert _play(200, seed=7, use_step=False) == (EVENTS_DIGEST, STATES_DIGEST)


def test_step_gives_the_same_bytes_as_decide_and_evolve() -> None:
    assert _play(200, seed=7, use_step=True) == (EVENTS_DIGEST, STATES_DIGEST)


def test_states_are_the_recorded_bytes_but_for_the_idle_fields() -> None:
    played = _play(200, seed=7, use_step=True, state_bytes=_without_idle_fields)
    assert played == (EVENTS_DIGEST, STATES_DIGEST_BEFORE_IDLE)


def _as_written_before_handover(events: list[ev.TableEvent]) -> list[ev.TableEvent]:
    """The same facts as logs stored before `TurnHandover`: the turn as an event of its own."""
    out: list[ev.TableEvent] = []
    for e in events:
        if isinstance(e, ev.TurnHandover) and e.turn is not None:
            assert e.deadline is not None and e.phase is not None
            out.append(msgspec.structs.replace(e, turn=None, deadline=None, phase=None))
            out.append(ev.TurnDeadlineSet(seat=e.turn, deadline=e.deadline, phase=e.phase))
        else:
            out.append(e)
    return out


def test_logs_written_before_the_handover_replay_to_the_same_states() -> None:
    rng = random.Random(11)
    state: TableState = bench_game.new_table(rng)
    now, done, split = 1_000.0, 0, 0
    while done < 100:
        hand = state.hand
        command: cmd.TableCommand
        if hand is None or hand.phase == "settled":
            done += hand is not None
            assert state.deadline is not None
            now = max(now, state.deadline)
            command = cmd.Tick(now=now, seed=rng.randbytes(32))
        else:
            command = bench_game.random_command(state, rng, now)
        events, new = step(state, command)
        old_style = _as_written_before_handover(events)
        split += len(old_style) - len(events)
        assert encode_state(fold(old_style, state)) == encode_state(new)
        state = new
    assert split > 300  # most actions handed the turn on
