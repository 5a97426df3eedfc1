"""Run the Dockerfile's install steps without Docker: each stage in a fresh venv, then start the
image's CMD and check it serves.

    python deploy/dockerfile_dry_run.py [--keep]

.ci/run runs this before the test suite (it builds the compiled wheel: a minute or two). The
Dockerfile is parsed, not copied: each stage's `WORKDIR`, `COPY` (from the build context or
`--from` an earlier stage) and `RUN` lines run as written in a scratch directory that stands
for the stage's file system (`/src`, `/wheels`, `/app` become paths under it), with `pip` and
`python` those of a fresh venv made for the stage (the python image's interpreter stands for
`python:3.11` and `python:3.11-slim` alike: this machine's python3). One liberty: the pip
cache is used (`--no-cache-dir` only keeps the image small). Then the `CMD` is started on a
free port and must answer `/api/health` and `/metrics`, score a hand, import the compiled
game core as extension modules, and exit 0 on SIGTERM.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass
class Stage:
    name: str
    base: str
    steps: list[tuple[str, str]] = field(default_factory=list)  # (instruction, arguments)
    root: Path = Path()
    venv: Path = Path()
    workdir: str = "/"


def instructions(dockerfile: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with line continuations joined and comments dropped."""
    out: list[tuple[str, str]] = []
    pending = ""
    for line in dockerfile.read_text().splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        full = pending + stripped
        pending = ""
        word, _, rest = full.partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def stages(dockerfile: Path) -> list[Stage]:
    found: list[Stage] = []
    for word, rest in instructions(dockerfile):
        if word == "FROM":
            parts = rest.split()
            name = parts[2] if len(parts) >= 3 and parts[1].upper() == "AS" else str(len(found))
            found.append(Stage(name=name, base=parts[0]))
        elif found:
            found[-1].steps.append((word, rest))
    return found


def in_root(stage: Stage, path: str) -> Path:
    absolute = path if path.startswith("/") else f"{stage.workdir.rstrip('/')}/{path}"
    return stage.root / absolute.lstrip("/")


def rewrite(stage: Stage, command: str) -> str:
    """Container paths (`/src`, `/wheels/*.whl`, ...) -> the stage's scratch root; no cache."""
    command = command.replace("--no-cache-dir ", "")

    def absolute(match: re.Match[str]) -> str:
        return f"{match.group(1)}{stage.root}{match.group(2)}"

    return re.sub(r"(^|[\s=])(/[A-Za-z][\w./*-]*)", absolute, command)


def run_stage(stage: Stage, done: dict[str, Stage], scratch: Path) -> None:
    stage.root = scratch / f"stage-{stage.name}"
    stage.venv = scratch / f"venv-{stage.name}"
    stage.root.mkdir(parents=True)
    subprocess.run([sys.executable, "-m", "venv", str(stage.venv)], check=True)
    env = {**os.environ, "PATH": f"{stage.venv / 'bin'}:{os.environ['PATH']}",
           "VIRTUAL_ENV": str(stage.venv), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    print(f"== stage {stage.name} (FROM {stage.base})", flush=True)
    for word, rest in stage.steps:
        if word == "WORKDIR":
            stage.workdir = rest
            in_root(stage, rest).mkdir(parents=True, exist_ok=True)
        elif word == "COPY":
            args = shlex.split(rest)
            source_stage = None
            if args[0].startswith("--from="):
                source_stage = done[args.pop(0).split("=", 1)[1]]
            *sources, target = args
            for source in sources:
                origin = (in_root(source_stage, source) if source_stage else REPO / source)
                destination = in_root(stage, target)
                if origin.is_dir():
                    dest = destination if not target.endswith("/") else destination / origin.name
                    shutil.copytree(origin, dest, dirs_exist_ok=True,
                                    ignore=shutil.ignore_patterns("__pycache__", "*.so"))
                else:
                    destination.mkdir(parents=True, exist_ok=True) if target.endswith("/") \
                        else destination.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(origin, destination / origin.name if target.endswith("/")
                                 else destination)
        elif word == "RUN":
            command = rewrite(stage, rest)
            print(f"$ {command}", flush=True)
            started = time.monotonic()
            subprocess.run(["bash", "-euo", "pipefail", "-c", command],
                           cwd=in_root(stage, stage.workdir), env=env, check=True)
            print(f"  ({time.monotonic() - started:.0f} s)", flush=True)
        elif word in ("CMD", "EXPOSE", "ENV", "LABEL"):
            pass  # CMD is tried by `serve_check`; the rest describe the container
        else:
            raise SystemExit(f"dockerfile_dry_run: no stand-in for {word} {rest}")
    done[stage.name] = stage


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_check(stage: Stage, cmd: list[str]) -> None:
    """The image's CMD on a free loopback port: health, metrics, then a clean SIGTERM."""
    port = free_port()
    args = list(cmd)
    args[args.index("--host") + 1] = "127.0.0.1"
    args[args.index("--port") + 1] = str(port)
    binary = stage.venv / "bin" / args[0]
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "BOT_TOKEN")}
    proc = subprocess.Popen([str(binary), *args[1:]], cwd=in_root(stage, stage.workdir),
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    out = proc.stdout.read().decode() if proc.stdout else ""
                    raise SystemExit(f"the image's CMD did not serve: {out[-2000:]}") from None
                time.sleep(0.2)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
            assert b"svara_actions_total" in resp.read(), "no svara_ metrics"
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(15)
    assert code == 0, f"svara serve exited {code} on SIGTERM"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = parser.parse_args()
    dockerfile = REPO / "Dockerfile"
    scratch = Path(tempfile.mkdtemp(prefix="svara-dockerfile-"))
    started = time.monotonic()
    try:
        done: dict[str, Stage] = {}
        all_stages = stages(dockerfile)
        for stage in all_stages:
            run_stage(stage, done, scratch)
        final = all_stages[-1]
        python = str(final.venv / "bin" / "python")
        scored = subprocess.run([str(final.venv / "bin" / "svara"), "score", "7c", "Kh", "Kd"],
                                capture_output=True, text=True, check=True).stdout
        assert scored == "7c Kh Kd\t31\n", scored
        compiled = subprocess.run(
            [python, "-c", "import service.game.scoring as m, service.tables.live as l;"
                           "print(m.__file__); print(l.__file__)"],
            capture_output=True, text=True, check=True, cwd=scratch,
        ).stdout.split()
        assert all(path.endswith(".so") for path in compiled), compiled
        cmd = next(json.loads(rest) for word, rest in final.steps if word == "CMD")
        serve_check(final, cmd)
        print(f"dockerfile_dry_run: ok in {time.monotonic() - started:.0f} s "
              f"(compiled: {', '.join(Path(p).name for p in compiled)})")
        return 0
    finally:
        if args.keep:
            print(f"kept {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
