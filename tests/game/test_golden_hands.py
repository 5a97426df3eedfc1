"""Golden hands: the benchmark's random hands must keep producing the same bytes.

Speed work on the game core must not change behaviour. The states digest was recorded before
the first optimisation round (2026-11-29) and had not changed since; the events digest changed
once, on purpose, when most `turn_deadline_set` events were folded into the action before them
(`TurnHandover`): every state after every command stayed the same bytes. Both changed on
purpose with the players' seeds (`hmac-sha256-fy-v2`, 2026-11-30): seeds drawn one step ahead
(`seed_drawn`, `next_commitment`), v2 decks, new state fields, and the bench table's creation
now drawing hand 1's seed as the service's does. The states digest changed once more, on
purpose, when `TableState` gained `empty_since` and `closed` (the idle close, `table_closed`):
with those two fields taken out, every state is still the recorded bytes
(`test_states_are_the_recorded_bytes_but_for_the_idle_fields`). It changed again, on purpose,
when `TableState` gained `idle_close_seconds` (the deployment's idle limit recorded at creation;
the events stayed the same bytes: `table_created` leaves it out at its default), and that test
takes it out too. A change here means events or
snapshots changed, which is a rules or format change, never a refactoring.

Logs written before a format change must keep folding to the states they folded to then:
`data/v1_table_log.jsonl.gz` is a table of 150 hands (svaras, timeouts, sitting out and back,
seats changing, rake, scoring variants) recorded with the game core of commit e03789e, the last
before v2 -- every command's events as stored bytes, and the encoded state after most of them.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import random
from collections.abc import Callable
from pathlib import Path

import msgspec
from msgspec.structs import replace

from events import table as ev
from events.codec import decode_table_event, encode_table_event
from service.game import commands as cmd
from service.game.decider import decide, evolve, fold, step
from service.game.legal import legal_actions
from service.game.state import TableState, decode_state, encode_state
from tests.support import random_play  # the benchmarks' random legal play

EVENTS_DIGEST = "91890901b7ce47ae653701b599d4f952a5681786f1d591df7198953da843da43"
# Changed on purpose when `TableState` gained `name` and `private` (the social table,
# 2026-12-01): the events digest stayed the same, and with the fields taken out (below) every
# state is the bytes recorded before.
STATES_DIGEST = "da64b59cd37e19dad132674a84701fc083e30beb2c24bd71547783b207893f68"
# The states digest before `empty_since` and `closed` (2026-11-30), `idle_close_seconds`
# (2026-12-01), `name` and `private` (2026-12-01) were added.
STATES_DIGEST_BEFORE_IDLE = "dab7835794066fd70a58d63425edf80c027f9aa6db938eaf60fb0fb41005513e"
IDLE_FIELDS = ("empty_since", "closed", "idle_close_seconds", "name", "private")
# Added for tournament tables after the digests were recorded (defaults on a cash table).
TOURNAMENT_FIELDS = ("tournament_id", "ante_level", "pending_ante")
V1_LOG = Path(__file__).resolve().parent / "data" / "v1_table_log.jsonl.gz"


def _without_idle_fields(snapshot: bytes) -> bytes:
    """A snapshot as encoded before the idle fields existed (msgpack maps keep their order)."""
    fields = msgspec.msgpack.decode(snapshot)
    for name in IDLE_FIELDS:
        del fields[name]
    return _without_tournament_fields(msgspec.msgpack.encode(fields))


def _without_tournament_fields(snapshot: bytes) -> bytes:
    """A snapshot as encoded before tournament tables: their fields hold the defaults."""
    fields = msgspec.msgpack.decode(snapshot)
    assert [fields.pop(name) for name in TOURNAMENT_FIELDS] == ["", 1, 0]
    return msgspec.msgpack.encode(fields)


def _play(
    hands: int, seed: int, use_step: bool, state_bytes: Callable[[bytes], bytes] = bytes
) -> tuple[str, str]:
    """Digests of every event and every resulting state's snapshot over `hands` hands."""
    encode = msgspec.msgpack.Encoder().encode
    events_hash, states_hash = hashlib.sha256(), hashlib.sha256()
    rng = random.Random(seed)
    state: TableState = random_play.new_table(rng)
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
            command = random_play.random_command(state, rng, now)
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
    played = _play(200, seed=7, use_step=False, state_bytes=_without_tournament_fields)
    assert played == (EVENTS_DIGEST, STATES_DIGEST)


def test_step_gives_the_same_bytes_as_decide_and_evolve() -> None:
    played = _play(200, seed=7, use_step=True, state_bytes=_without_tournament_fields)
    assert played == (EVENTS_DIGEST, STATES_DIGEST)


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
    state: TableState = random_play.new_table(rng)
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
            command = random_play.random_command(state, rng, now)
        events, new = step(state, command)
        old_style = _as_written_before_handover(events)
        split += len(old_style) - len(events)
        assert encode_state(fold(old_style, state)) == encode_state(new)
        state = new
    assert split > 300  # most actions handed the turn on


def _v1_log() -> list[dict[str, object]]:
    with gzip.open(V1_LOG, "rt") as f:
        return [json.loads(line) for line in f if not line.startswith("#")]


def test_a_log_written_before_v2_decodes_and_folds_to_the_states_it_folded_to() -> None:
    """Every stored event of the v1 log decodes, re-encodes to its very bytes, and the fold of
    the log equals the state recorded after each command (decoded with today's state type:
    the new fields take their defaults; the idle clock `empty_since`, which the old code did
    not keep, is the one field compared apart: it is what the log's times say)."""
    state: TableState | None = None
    compared = 0
    for line in _v1_log():
        raws = [str(e).encode() for e in line["events"]]  # type: ignore[attr-defined]
        events = [decode_table_event(raw) for raw in raws]
        assert [encode_table_event(e) for e in events] == raws
        state = fold(events, state) if state is not None else fold(events)
        if "state" in line:
            recorded = decode_state(base64.b64decode(str(line["state"])))
            assert recorded == replace(state, empty_since=None)
            assert (state.empty_since is None) == (state.seated() > 0)
            compared += 1
    assert state is not None and state.hand_number == 150 and compared > 200
    assert state.next_commitment == "" and state.next_seed == ""


def test_a_table_from_before_v2_plays_on_v1_once_then_v2() -> None:
    """The recorded table keeps playing: its next hand is dealt v1 with the dealing command's
    seed (no commitment was published in advance), whose settlement publishes the next one."""
    state: TableState | None = None
    for line in _v1_log():
        events = [decode_table_event(str(e).encode()) for e in line["events"]]  # type: ignore[attr-defined]
        state = fold(events, state) if state is not None else fold(events)
    assert state is not None
    rng = random.Random(3)
    now = 10_000_000.0
    algorithms: list[str] = []
    while len(algorithms) < 3:
        hand = state.hand
        command: cmd.TableCommand
        if hand is None or hand.phase == "settled":
            assert state.deadline is not None
            now = max(now, state.deadline)
            command = cmd.Tick(now=now, seed=rng.randbytes(32))
        else:
            seats = (
                [s for s in hand.eligible if s not in hand.answered]
                if hand.phase == "svara_join"
                else [hand.turn]
            )
            seat = state.seats[seats[0]]  # type: ignore[index]
            assert seat is not None
            action = rng.choice(legal_actions(state, seat.user_id))
            amount = action.amount if action.amount is not None else action.min
            command = cmd.command_for_action(
                action.type, user_id=seat.user_id, amount=amount, now=now, seed=rng.randbytes(32)
            )
        events, state = step(state, command)
        algorithms += [e.algorithm for e in events if isinstance(e, ev.HandStarted)]
    assert algorithms == ["hmac-sha256-fy-v1", "hmac-sha256-fy-v2", "hmac-sha256-fy-v2"]
