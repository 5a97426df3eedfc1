"""The layers of README "Layout": imports point down only, and production code never imports
the tests or the benchmarks. Checked from the source, so an import added anywhere in a module
(inside a function too) that points up fails here. Also the house size rule: no module over
`MAX_LINES` lines, production, tests and benchmarks alike."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Each package and the packages it must never import (everything above it).
FORBIDDEN = {
    "events": ("service", "tests", "bench"),
    "service": ("tests", "bench"),
    "service/game": ("service.tables", "service.api", "service.bot"),
    "service/tables": ("service.api", "service.bot"),
}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_imports_point_down(package: str) -> None:
    upward = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in sorted((ROOT / package).rglob("*.py"))
        for line, name in _imports(path)
        if any(name == up or name.startswith(up + ".") for up in FORBIDDEN[package])
    ]
    assert upward == []


# -- module size -----------------------------------------------------------------------------

MAX_LINES = 400
# Every Python and JavaScript module of these (the web app's scripts are under service/).
SIZED = ("service", "events", "tests", "bench")
# One idea per module; these two are each one self-contained thing a reader (an outside
# verifier) takes whole: the offline verifier and its port to the browser.
EXEMPT = {"service/verify.py", "service/api/static/js/fair.js"}


def _modules() -> list[Path]:
    return [path for top in SIZED for suffix in ("*.py", "*.js")
            for path in sorted((ROOT / top).rglob(suffix))
            if "node_modules" not in path.parts]


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_is_over_the_line_limit() -> None:
    too_long = {
        str(path.relative_to(ROOT)): _lines(path)
        for path in _modules()
        if _lines(path) > MAX_LINES
    }
    for name in EXEMPT:
        too_long.pop(name, None)
    assert too_long == {}


def test_the_size_check_sees_the_modules_it_must() -> None:
    names = {str(path.relative_to(ROOT)) for path in _modules()}
    assert {"events/store/redis_store.py", "service/api/static/js/table.js",
            "tests/store/contract.py", "tests/support/fake_bot_api.py",
            "bench/bench_api.py"} <= names
    assert names >= EXEMPT
