"""What every part of the API benchmark (bench_api.py) and the benchmarks built on it share:
this run's id and bot token, where the bare stack is, starting and stopping a server, and the
figures one phase collects."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# Beside the repository (a checkout in a worktree directory: one level further up).
BARE = next((p for p in (REPO.parent / "shared" / "bench" / "bare_stack.py",
                         REPO.parent.parent / "shared" / "bench" / "bare_stack.py")
             if p.exists()), REPO.parent / "shared" / "bench" / "bare_stack.py")
# The servers' code: `service` imports from the repository root.
sys.path.insert(0, str(REPO))

TOKEN = "4242:bench-token"
BENCH_ID = uuid.uuid4().hex[:10]  # names this run's keys, which it deletes at the end
JSON = dict[str, Any]


# -- processes ------------------------------------------------------------------------------

def start(cmd: list[str], env: dict[str, str], health: str,
          cwd: Path = REPO, within: float = 30.0) -> subprocess.Popen[bytes]:
    """Start a server (its output goes to a temp file: a full pipe would stall it)."""
    log = tempfile.NamedTemporaryFile(prefix="bench-api-", suffix=".log", delete=False)  # noqa: SIM115
    proc = subprocess.Popen(cmd, cwd=cwd, env={**os.environ, **env},
                            stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{cmd} exited: {Path(log.name).read_text()[-2000:]}")
        try:
            import urllib.request

            with urllib.request.urlopen(health, timeout=1):
                return proc
        except Exception as exc:  # 404/405 from the bare stack also means "up"
            if getattr(exc, "code", None):
                return proc
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{cmd} did not start")


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()


# -- measuring --------------------------------------------------------------------------------

class Stats:
    def __init__(self) -> None:
        self.actions = 0
        self.latencies: list[float] = []
        self.lost = 0
        self.errors: dict[str, int] = {}
        self.post_rtts: list[float] = []
        self.idle = 0  # a table loop found nobody to act (between hands)
        self.views = 0

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def run_phase(loops: list[Callable[[Stats, Callable[[], bool]], Awaitable[None]]],
                    seconds: float) -> tuple[Stats, float]:
    stats = Stats()
    end = time.monotonic() + seconds
    started = time.monotonic()
    await asyncio.gather(*(loop(stats, lambda: time.monotonic() < end) for loop in loops))
    return stats, time.monotonic() - started
