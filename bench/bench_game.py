"""Random 3-player hands through decide/evolve, choosing uniformly among legal actions.

Prints hands per second on one core (target: 10,000), for decide + evolve (the brief's
measure) and for `step` (what the service runs), for the game core as it is imported here.

    python bench/bench_game.py [N]              # the build installed here (pure: pip install -e)
    python bench/bench_game.py [N] --compiled   # also build it with mypyc (needs mypy;
                                                # tests/support/compiled.py) and measure that

Not a test: it measures. The game core is pure, so this is the ceiling of the whole service.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The repo goes last on the path: a compiled core on PYTHONPATH (--compiled) still wins.
sys.path.append(str(Path(__file__).resolve().parents[1]))

from service.game import commands as cmd
from service.game.decider import decide, evolve, step
from tests.support.random_play import new_table, random_command


def play(hands: int, seed: int = 1, use_step: bool = False) -> tuple[int, int]:
    """Play `hands` hands; return (hands, events). `use_step`: let `step` hand back the new
    state (as the service does) instead of evolving the returned events again."""
    rng = random.Random(seed)
    state = new_table(rng)
    now = 1_000.0
    events = 0
    done = 0
    while done < hands:
        hand = state.hand
        if hand is None or hand.phase == "settled":
            if hand is not None:
                done += 1
            deadline = state.deadline
            assert deadline is not None
            now = max(now, deadline)
            command: cmd.TableCommand = cmd.Tick(now=now, seed=rng.randbytes(32))
        else:
            command = random_command(state, rng, now)
        if use_step:
            new, state = step(state, command)
            events += len(new)
            continue
        for e in decide(state, command):
            state = evolve(state, e)
            events += 1
    return done, events


def measure(n: int, use_step: bool) -> None:
    best_wall = best_cpu = float("inf")
    for _ in range(5):  # the machine is shared: keep the best of five
        start, cpu_start = time.perf_counter(), time.process_time()
        hands, events = play(n, use_step=use_step)
        best_wall = min(best_wall, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - cpu_start)
    how = "step (events + new state)" if use_step else "decide, then evolve each event"
    print(
        f"{how}: {hands} hands, {events} events, best of 5\n"
        f"  wall {best_wall:.2f}s: {hands / best_wall:,.0f} hands/s\n"
        f"  cpu  {best_cpu:.2f}s: {hands / best_cpu:,.0f} hands/s, "
        f"{events / best_cpu:,.0f} events/s"
    )


def build_kind() -> str:
    import importlib

    path = importlib.import_module("service.game.evolve").__file__ or ""
    return f"compiled (mypyc), from {Path(path).parent}" if path.endswith(".so") else (
        f"pure Python, from {Path(path).parent}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("hands", nargs="?", type=int, default=10_000)
    parser.add_argument("--compiled", action="store_true",
                        help="also build the compiled core in a scratch dir and measure it")
    args = parser.parse_args()
    print(f"game core: {build_kind()}")
    play(200)  # warm up the score tables
    measure(args.hands, use_step=False)
    measure(args.hands, use_step=True)
    if args.compiled:
        sys.stdout.flush()
        from tests.support.compiled import build

        with tempfile.TemporaryDirectory(prefix="svara-compiled-") as scratch:
            print("building the compiled core (mypyc, about half a minute) ...", flush=True)
            dest = build(Path(scratch))
            env = {**os.environ, "PYTHONPATH": str(dest)}
            subprocess.run([sys.executable, __file__, str(args.hands)], env=env, check=True)


if __name__ == "__main__":
    main()
