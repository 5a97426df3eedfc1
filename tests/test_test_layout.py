"""The tests' own layout, read from their imports (ast), so it stays as docs/TESTING.md,
"Layout" says:

- shared test support code lives in `tests.support`, which imports nothing else of tests/;
- a module of tests/<area>/ takes helpers from `tests.support` or its own area's helper
  modules, a top-level tests/*.py module from `tests.support` only;
- nothing imports a test module (test_*.py) or a conftest.py;
- a conftest.py only declares fixtures and hooks (no helpers for others to import);
- bench/ takes from tests/ nothing but `tests.support`, and tests/ takes nothing from bench/
  (no import, no module loaded from a file under bench/): code both use lives in tests.support.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_DECORATORS = {"pytest.fixture", "pytest_asyncio.fixture", "fixture"}


def module_name(path: str) -> str:
    parts = path.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: str, tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, module) of every import of `tests` or `bench`, relative ones resolved; `from
    package import name` also names `package.name` (it may be a module)."""
    package = module_name(path).split(".")
    if not path.endswith("__init__.py"):
        package = package[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package[: len(package) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            found = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for name in found:
            if name.split(".")[0] in ("tests", "bench"):
                yield node.lineno, name


def is_test_module(name: str) -> bool:
    last = name.split(".")[-1]
    return name.startswith("tests.") and (last.startswith("test_") or last == "conftest")


def area(name: str, packages: set[str]) -> str:
    """`tests.bot.live` and `tests.bot` -> `tests.bot`; a top-level `tests.test_docs` ->
    `tests`."""
    parts = name.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 or name in packages else parts[0]


def import_violations(path: str, tree: ast.Module, modules: set[str],
                      packages: set[str]) -> Iterator[str]:
    me = module_name(path)
    for line, name in imported(path, tree):
        if name not in modules and not any(m.startswith(name + ".") for m in modules):
            continue  # `from package import some_function`: not a module
        where = f"{path}:{line} imports {name}"
        if is_test_module(name):
            yield f"{where}: a test module or conftest (take helpers from tests.support)"
        elif not name.startswith("tests."):
            if me.startswith("tests"):
                yield f"{where}: tests take nothing from bench/ (shared code goes in tests.support)"
            continue
        elif me.startswith("bench"):
            if not name.startswith("tests.support"):
                yield f"{where}: bench takes from tests/ only tests.support"
        elif me.startswith("tests.support"):
            if not name.startswith("tests.support"):
                yield f"{where}: tests.support imports no other part of tests/"
        elif not name.startswith("tests.support") and area(name, packages) != area(me, packages):
            yield f"{where}: another area's helper (shared helpers go in tests.support)"


LOADERS = {"spec_from_file_location", "run_path", "SourceFileLoader"}


def file_loads(path: str, tree: ast.Module) -> Iterator[str]:
    """A module of tests/ loading a file of bench/ by path (importlib, runpy): the import
    check above cannot see it, so any such loader call in a module that names bench/ counts."""
    if not path.startswith("tests/"):
        return
    names_bench = any(
        isinstance(n, ast.Constant) and isinstance(n.value, str)
        and (n.value == "bench" or n.value.startswith("bench/")) for n in ast.walk(tree)
    )
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and names_bench:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else ast.unparse(func)
            if called in LOADERS:
                yield f"{path}:{node.lineno} loads a file of bench/ ({called})"


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    return ast.unparse(node)


def conftest_violations(path: str, tree: ast.Module) -> Iterator[str]:
    """Top-level statements of a conftest.py: docstring, imports, fixtures, pytest_* hooks,
    and pytest's own names (pytest_plugins, pytestmark, collect_ignore)."""
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            fixture = any(_decorator_name(d) in FIXTURE_DECORATORS for d in node.decorator_list)
            if fixture or node.name.startswith("pytest_"):
                continue
            yield f"{path}:{node.lineno} defines {node.name}(), not a fixture or hook"
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [ast.unparse(t) for t in targets]
            if all(n in ("pytest_plugins", "pytestmark", "collect_ignore") for n in names):
                continue
            yield f"{path}:{node.lineno} defines {', '.join(names)}: helpers go in a module"
            continue
        yield f"{path}:{node.lineno}: a {type(node).__name__} (a conftest declares fixtures)"


def violations(sources: Mapping[str, str]) -> list[str]:
    """Every broken rule in `sources` (repository path -> Python source)."""
    modules = {module_name(p) for p in sources}
    packages = {module_name(p) for p in sources if p.endswith("__init__.py")}
    found: list[str] = []
    for path, source in sorted(sources.items()):
        tree = ast.parse(source, path)
        found += import_violations(path, tree, modules, packages)
        found += file_loads(path, tree)
        if path.endswith("/conftest.py") or path == "conftest.py":
            found += conftest_violations(path, tree)
    return found


def repository_sources() -> dict[str, str]:
    files = [*(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").rglob("*.py")]
    return {str(f.relative_to(ROOT)): f.read_text(encoding="utf-8") for f in files}


def test_the_tests_import_only_support_code_and_their_own_helpers() -> None:
    assert violations(repository_sources()) == []


def test_the_checks_name_every_broken_rule() -> None:
    """Each rule fires on a module that breaks it (so the test above can fail)."""
    broken = {
        "tests/__init__.py": "",
        "tests/support/__init__.py": "",
        "tests/support/clock.py": "from tests.bot.live import people\n",
        "tests/bot/__init__.py": "",
        "tests/bot/live.py": "from tests.webapp.tables import sit_down\n",
        "tests/bot/conftest.py": "X = 1\ndef helper():\n    pass\nclass Kit:\n    pass\n",
        "tests/bot/test_a.py": "from tests.bot.test_b import helper\nfrom . import conftest\n",
        "tests/bot/test_b.py": "",
        "tests/webapp/__init__.py": "",
        "tests/webapp/tables.py": "",
        "tests/test_top.py": "from tests.bot.live import people\n",
        "bench/__init__.py": "",
        "bench/bench_x.py": "from tests.bot.live import people\n",
        "bench/bench_y.py": "",
        "tests/bot/test_c.py": "from bench.bench_y import play\nimport bench.bench_y\n",
        "tests/bot/test_d.py": ("import importlib.util\nfrom pathlib import Path\n"
                                "p = Path('.') / 'bench' / 'bench_y.py'\n"
                                "spec = importlib.util.spec_from_file_location('y', p)\n"),
    }
    found = violations(broken)
    expected = [
        "bench/bench_x.py:1 imports tests.bot.live: bench takes",
        "tests/bot/conftest.py:1 defines X",
        "tests/bot/conftest.py:2 defines helper()",
        "tests/bot/conftest.py:4: a ClassDef",
        "tests/bot/live.py:1 imports tests.webapp.tables: another area's",
        "tests/bot/test_a.py:1 imports tests.bot.test_b: a test module",
        "tests/bot/test_a.py:2 imports tests.bot.conftest: a test module",
        "tests/bot/test_c.py:1 imports bench.bench_y: tests take nothing from bench/",
        "tests/bot/test_c.py:2 imports bench.bench_y: tests take nothing from bench/",
        "tests/bot/test_d.py:4 loads a file of bench/ (spec_from_file_location)",
        "tests/support/clock.py:1 imports tests.bot.live: tests.support imports no other",
        "tests/test_top.py:1 imports tests.bot.live: another area's",
    ]
    assert len(found) == len(expected), found
    for message, start in zip(sorted(found), sorted(expected), strict=True):
        assert message.startswith(start), (message, start)
    fine = {"tests/__init__.py": "", "tests/support/__init__.py": "",
            "tests/support/clock.py": "", "tests/bot/__init__.py": "",
            "tests/bot/conftest.py": "import pytest\n@pytest.fixture\ndef f():\n    pass\n",
            "tests/bot/test_a.py": "from tests.support.clock import FakeClock\n"}
    assert violations(fine) == []
