"""Real `svara serve` subprocesses for the end-to-end tests (HTTP ports 8100-8199)."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests import ports

REPO = Path(__file__).resolve().parents[2]
PORTS = range(8100, 8200)
_servers = itertools.count(1)


def free_port() -> int:
    """A free loopback port in this suite's range."""
    return ports.free_port(PORTS)


class Server:
    """One `python -m service.cli serve` process; `kill()` is kill -9, `stop()` is SIGTERM."""

    def __init__(self, env: dict[str, str], port: int | None = None,
                 args: tuple[str, ...] = ()) -> None:
        self.port = port or free_port()
        # One process unless a test asks for more: tests that read a server's /metrics or
        # its log mean one process, and a scrape of several workers reaches any one of them.
        self.env = {**os.environ, "LOG_LEVEL": "WARNING", "WORKERS": "1", **env}
        self.args = args
        self.proc: subprocess.Popen[bytes] | None = None
        # One log per Server (a restart of it appends): a port is reused by later tests of the
        # same run, and a log named by port and pid once handed one test another's lines.
        self.log = Path(f"/tmp/svara-api-test-{self.port}-{os.getpid()}-{next(_servers)}.log")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0, *, healthy: bool = True) -> Server:
        """Start and wait until it answers /api/health (with 200 unless `healthy` is False).
        A busy machine may take half a minute just to import aiogram's models."""
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "serve", "--port", str(self.port),
                 *self.args],
                cwd=REPO, env=self.env, stdout=out, stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/health", timeout=1) as resp:
                    if resp.status == 200:
                        return self
            except urllib.error.HTTPError:
                if not healthy:
                    return self
                time.sleep(0.1)
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"server did not start: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(5)

    def stop(self) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.send_signal(signal.SIGTERM)  # a second one logs the pending tasks
                time.sleep(0.5)
                with self.log.open("a") as out:
                    out.write("\n[did not stop within 10 s of SIGTERM]\n")
                self.kill()
        return self.proc.returncode

    def output(self) -> str:
        return self.log.read_text() if self.log.exists() else ""
