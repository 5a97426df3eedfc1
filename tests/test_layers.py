"""The layers of README "Layout": imports point down only. Checked from the source, so an
import added anywhere in a module (inside a function too) that points up fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Each package and the packages it must never import (everything above it).
FORBIDDEN = {
    "events": ("service",),
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
