"""Build the compiled game core (mypyc) into a scratch copy of the project, for the benchmark
and for the test that runs tests/game against it; the working tree stays pure Python.

    python -m tests.support.compiled DEST    # copy the project to DEST and compile it there

The modules are those of `[tool.svara] compiled` in pyproject.toml, the same the
`SVARA_COMPILE=1` install compiles (setup.py). Needs mypy (in the `test` extra).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def compiled_modules() -> list[str]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    modules: list[str] = config["tool"]["svara"]["compiled"]
    return modules


# The suites that test the compiled modules, and the support code they import (copied along
# with `with_tests`).
TEST_DIRS = ("support", "game", "store", "service")


def build(dest: Path, *, with_tests: bool = False) -> Path:
    """Copy events/, service/ and pyproject.toml (and the suites of TEST_DIRS if asked) to
    `dest`, compile there, and check that every listed module now loads from a C extension."""
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "build")
    for package in ("events", "service"):
        shutil.copytree(REPO / package, dest / package, ignore=ignore)
    shutil.copy2(REPO / "pyproject.toml", dest / "pyproject.toml")
    if with_tests:
        (dest / "tests").mkdir()
        for name in ("__init__.py", "conftest.py"):
            shutil.copy2(REPO / "tests" / name, dest / "tests" / name)
        for suite in TEST_DIRS:
            shutil.copytree(REPO / "tests" / suite, dest / "tests" / suite, ignore=ignore)
    modules = compiled_modules()
    done = subprocess.run(
        [sys.executable, "-m", "mypyc", *modules], cwd=dest, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"mypyc failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    names = [m.removesuffix(".py").replace("/", ".") for m in modules]
    check = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    path = importlib.import_module(name).__file__ or ''\n"
        "    assert path.endswith('.so'), f'{name} is not compiled: {path}'\n"
    )
    subprocess.run([sys.executable, "-c", check], cwd=dest, check=True)
    return dest


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(build(Path(sys.argv[1])))
