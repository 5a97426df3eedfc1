"""The `svara score` command, run as a real subprocess through the installed entry point."""

from __future__ import annotations

import subprocess
import sys


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.cli", "score", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_scores_one_hand_given_as_arguments() -> None:
    result = run("7c", "Kh", "Kd")
    assert result.returncode == 0
    assert result.stdout == "7c Kh Kd\t31\n"


def test_scores_several_hands_loose_or_quoted() -> None:
    assert run("7c", "Kh", "Kd", "8s", "8h", "8d").stdout == "7c Kh Kd\t31\n8s 8h 8d\t24\n"
    assert run("7c Kh Kd", "As Ad Tc").stdout == "7c Kh Kd\t31\nAs Ad Tc\t22\n"


def test_scores_one_hand_per_line_from_stdin_and_reports_bad_lines() -> None:
    result = run(stdin="7c Kh Kd\n\nKh Kh 9d\n7h 9d\nAs Ad Xc\n8s Ad 7c\n")
    assert result.returncode == 2
    assert result.stdout == "7c Kh Kd\t31\n8s Ad 7c\t22\n"
    errors = result.stderr.splitlines()
    assert len(errors) == 3
    assert "line 3" in errors[0] and "duplicate card 'Kh'" in errors[0]
    assert "line 4" in errors[1] and "exactly 3 cards" in errors[1]
    assert "line 5" in errors[2] and "bad card 'Xc'" in errors[2]


def test_variant_flags() -> None:
    assert run("--joker-pair", "substitute", "7c", "Kh", "Kd").stdout == "7c Kh Kd\t30\n"
    assert run("--natural-777", "30", "7h", "7d", "7s").stdout == "7h 7d 7s\t30\n"


def test_unknown_command_is_an_error() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "service.cli", "frobnicate"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "unknown command" in result.stderr
