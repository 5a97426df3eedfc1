"""Optional compiled build (the game core and the live fan-out's hot path); everything else
is in pyproject.toml.

`SVARA_COMPILE=1 pip install --no-build-isolation .` (with mypy installed) compiles the modules
listed under `[tool.svara] compiled` with mypyc: same code, same behaviour (their suites run
against the compiled modules too), about 1.5x the hands per second. Without the variable the
package is pure Python, which is what `pip install -e .` gives developers: compiled modules next
to their sources would shadow every edit until the next build.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from setuptools import setup


def compiled_modules() -> list[str]:
    config = tomllib.loads(Path(__file__).with_name("pyproject.toml").read_text())
    modules: list[str] = config["tool"]["svara"]["compiled"]
    return modules


def ext_modules() -> list[Any]:
    if os.environ.get("SVARA_COMPILE") != "1":
        return []
    from mypyc.build import mypycify  # only the compiled build needs mypy

    return list(mypycify(compiled_modules(), opt_level="3"))


setup(ext_modules=ext_modules())
