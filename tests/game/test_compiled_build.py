"""The compiled build (mypyc, README "Compiled build") must behave exactly like the pure one.

Builds the game core into a scratch copy of the project with bench/compiled.py, which also
checks that every listed module loads from a C extension, then runs this whole folder there
(rules, properties, golden digests) against the compiled modules. About a minute.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

_BUILDER = Path(__file__).resolve().parents[2] / "bench" / "compiled.py"
_spec = importlib.util.spec_from_file_location("svara_compiled_build", _BUILDER)
assert _spec is not None and _spec.loader is not None
compiled = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compiled)


@pytest.mark.slow
def test_the_game_suite_passes_against_the_compiled_core(tmp_path: Path) -> None:
    dest = compiled.build(tmp_path / "svara", with_tests=True)
    (dest / "tests" / "game" / Path(__file__).name).unlink()  # not this test again, in there
    # The game modules are imported before pytest starts, and checked to be the compiled ones:
    # every test in there then runs against them (sys.modules), whatever pytest's path does.
    run = (
        "import sys, pytest\n"
        "import service.game.decider, service.game.evolve\n"
        "for m in (service.game.decider, service.game.evolve):\n"
        "    assert (m.__file__ or '').endswith('.so'), m.__file__\n"
        "sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'tests/game']))\n"
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
