"""The compiled build (docs/ARCHITECTURE.md "Compiled build (mypyc)") must behave exactly like
the pure one.

Builds the listed modules into a scratch copy of the project with tests/support/compiled.py, which
also checks that every one loads from a C extension, then runs there, against them: this whole
folder (rules, properties, golden digests), and the store and service suites of the compiled
live fan-out (the store contract on Redis and embedded, the live feed, views). About 1.5 min.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import compiled

# What runs against the compiled modules besides tests/game: the suites of the compiled store
# and live-feed modules (the ones that start no extra servers, so they cannot collide with the
# outer run's).
SUITES = [
    "tests/game",
    "tests/store/test_redis_store.py",
    "tests/store/test_embedded_store.py",
    "tests/store/test_chain.py",
    "tests/store/test_packed_xread.py",
    "tests/service/test_live.py",
    "tests/service/test_views_feed.py",
    "tests/service/test_play.py",
]


@pytest.mark.slow
def test_the_suites_pass_against_the_compiled_build(tmp_path: Path) -> None:
    dest = compiled.build(tmp_path / "svara", with_tests=True)
    (dest / "tests" / "game" / Path(__file__).name).unlink()  # not this test again, in there
    # Every compiled module is imported before pytest starts, and checked to be the compiled
    # one: every test in there then runs against them (sys.modules), whatever pytest's path does.
    names = [m.removesuffix(".py").replace("/", ".") for m in compiled.compiled_modules()]
    run = (
        "import importlib, sys, pytest\n"
        f"for name in {names!r}:\n"
        "    path = importlib.import_module(name).__file__ or ''\n"
        "    assert path.endswith('.so'), path\n"
        f"sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', *{SUITES!r}]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", run],
        cwd=dest,
        env={**os.environ, "PYTHONPATH": str(dest)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "skipped" not in summary and "failed" not in summary, summary
