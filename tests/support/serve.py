"""The real `svara serve` as a subprocess on a free loopback port: the one wrapper every suite
starts it through (end-to-end API tests, the web app's browser tests, the bot's replicas, the
deploy topology)."""

from __future__ import annotations

import itertools
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path

from tests.support import ports

REPO = Path(__file__).resolve().parents[2]
PORTS = range(8100, 8200)
# Configuration a server must never take from the shell that runs the tests: each test says
# which store, which bot and which Telegram it means.
_UNSET = {"REDIS_URL", "BOT_TOKEN", "PUBLIC_URL", "BOT_MODE", "TELEGRAM_API_URL"}
# The web app's and the bot's servers: no practice table at start (the tests open their own),
# and other players driven over the API as fast as the server answers.
APP_ENV = {"PRACTICE_BOTS": "0", "RATE_LIMIT_PER_SECOND": "500", "RATE_LIMIT_BURST": "1000",
           "LOG_LEVEL": "INFO"}
# The dev-mode server's signing token, known to the tests: they sign initData with Telegram's
# own library too (tests/support/telegram.py), start_param and all.
DEV_TOKEN = f"{secrets.randbelow(10**9)}:webapp-tests-{secrets.token_urlsafe(12)}"
_servers = itertools.count(1)


def free_port() -> int:
    """A free loopback port in the servers' range."""
    return ports.free_port(PORTS)


class Server:
    """One `python -m service.cli serve` process with `env` over the test's environment;
    `kill()` is kill -9, `stop()` is SIGTERM."""

    def __init__(self, env: Mapping[str, str], port: int | None = None, *,
                 log: Path | None = None, args: tuple[str, ...] = ()) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        base = {k: v for k, v in os.environ.items() if k not in _UNSET}
        # One process unless a test asks for more: tests that read a server's /metrics or
        # its log mean one process, and a scrape of several workers reaches any one of them.
        self.env = {**base, "LOG_LEVEL": "WARNING", "WORKERS": "1", **env}
        self.args = args
        self.proc: subprocess.Popen[bytes] | None = None
        # One log per Server (a restart of it appends): a port is reused by later tests of the
        # same run, and a log named by port and pid once handed one test another's lines.
        self.log = log or Path(
            f"/tmp/svara-serve-test-{self.port}-{os.getpid()}-{next(_servers)}.log")

    def spawn(self) -> Server:
        """Start the process without waiting for it to answer."""
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "serve", "--host", "127.0.0.1",
                 "--port", str(self.port), *self.args],
                cwd=REPO, env=self.env, stdout=out, stderr=subprocess.STDOUT,
            )
        return self

    def wait_ready(self, within: float = 120.0, *, healthy: bool = True) -> Server:
        """Wait until it answers /api/health (with 200 unless `healthy` is False): importing
        the service took 35 s, and over 60 s, on a loaded 2-core machine."""
        assert self.proc is not None, "spawn() first"
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"svara serve exited: {self.output()[-2000:]}")
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
        raise RuntimeError(f"svara serve did not start: {self.output()[-2000:]}")

    def start(self, timeout: float = 120.0, *, healthy: bool = True) -> Server:
        """Start and wait until it answers /api/health (with 200 unless `healthy` is False)."""
        return self.spawn().wait_ready(timeout, healthy=healthy)

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(5)

    def stop(self) -> int | None:
        """SIGTERM; the exit code (negative: killed by a signal)."""
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
