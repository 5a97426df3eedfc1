"""How the suite runs on pytest-xdist workers (pyproject's addopts: `-n auto --dist loadgroup`).

- A module whose tests share a module-scoped fixture (a started server, a played table) runs on
  one worker, so that fixture is made once, not once per worker (`module_group`).
- A test marked `serial` measures time or load: it runs while no other test of the run does
  (`turn`), on any worker; the others wait for it between their tests.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from xdist.remote import Producer
from xdist.scheduler import LoadScopeScheduling

# A fixture of a wider scope than one test, as the test modules declare them.
WIDE_FIXTURE = re.compile(r"fixture\((?:[^)]*,\s*)?scope=[\"'](?:module|class|package)[\"']")


@functools.cache
def shares_fixtures(module: Path) -> bool:
    """Does the test module declare a fixture shared by its tests?"""
    return module.is_file() and WIDE_FIXTURE.search(module.read_text(encoding="utf-8")) is not None


class Scheduling(LoadScopeScheduling):
    """xdist's `loadscope` with a scope per test, except in modules that share a fixture:
    one scope for the whole module there."""

    def __init__(self, config: pytest.Config, log: Producer | None = None) -> None:
        super().__init__(config, log)
        self.root = config.rootpath

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        return module if shares_fixtures(self.root / module) else nodeid


def _lock_files(config: pytest.Config) -> tuple[Path, Path] | None:
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        return None  # one process runs everything: nothing runs beside a test
    run = workerinput["testrunuid"]
    base = Path(tempfile.gettempdir())
    return base / f"svara-tests-{run}.gate", base / f"svara-tests-{run}.lock"


@contextlib.contextmanager
def turn(item: pytest.Item) -> Iterator[None]:
    """Hold the run's lock for `item`: exclusively for a `serial` test, shared for the rest.
    A waiting serial test holds the gate, so new tests queue behind it instead of starving it."""
    files = _lock_files(item.config)
    if files is None:
        yield
        return
    alone = item.get_closest_marker("serial") is not None
    gate_path, lock_path = files
    with gate_path.open("a") as gate, lock_path.open("a") as lock:
        if alone:
            fcntl.flock(gate, fcntl.LOCK_EX)
            fcntl.flock(lock, fcntl.LOCK_EX)
        else:
            fcntl.flock(gate, fcntl.LOCK_SH)
            fcntl.flock(lock, fcntl.LOCK_SH)
            fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
            fcntl.flock(gate, fcntl.LOCK_UN)
