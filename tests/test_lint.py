"""The code stays `ruff` and `mypy --strict` clean: a regression here fails the suite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_ruff_finds_nothing() -> None:
    result = _run("ruff", "check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_finds_nothing() -> None:
    result = _run("mypy")  # packages and strictness come from pyproject.toml
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_test_doubles_implement_their_ports() -> None:
    """The API's and the bot's doubles are checked against `Tables` and `LiveTables` (their
    `_typecheck`), so production code never needs to ask a double what it can do."""
    result = _run("mypy", "tests/support/fake_tables.py", "tests/bot/tables_stub.py")
    assert result.returncode == 0, result.stdout + result.stderr
