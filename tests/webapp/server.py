"""The real `svara serve` as a subprocess: dev mode, embedded store, a free port of ours."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests import ports as _ports

REPO = Path(__file__).resolve().parents[2]
PORTS = range(8250, 8300)  # the web app tests' half of this suite's range 8200-8299
# The dev-mode server's signing token, known to the tests: they sign initData with Telegram's
# own library too (tests/webapp/telegram.py), start_param and all.
DEV_TOKEN = f"{secrets.randbelow(10**9)}:webapp-tests-{secrets.token_urlsafe(12)}"


def free_port(ports: range = PORTS) -> int:
    return _ports.free_port(ports)


class Server:
    """`extra_env` adds configuration (e.g. a bot token); `port` defaults to a free one."""

    def __init__(
        self, log_path: Path, *, extra_env: dict[str, str] | None = None, port: int | None = None
    ) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {k: v for k, v in os.environ.items()
               if k not in {"REDIS_URL", "BOT_TOKEN", "PUBLIC_URL", "BOT_MODE", "TELEGRAM_API_URL"}}
        env["WORKERS"] = "1"  # one process unless a test asks for more (its /metrics, its log)
        env["PRACTICE_BOTS"] = "0"  # no practice table at start: the tests open their own
        # The tests drive other players over the API as fast as the server answers.
        env["RATE_LIMIT_PER_SECOND"] = "500"
        env["RATE_LIMIT_BURST"] = "1000"
        env.update(extra_env or {})
        self.log = log_path.open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve", "--host", "127.0.0.1",
             "--port", str(self.port)],
            cwd=REPO, env=env, stdout=self.log, stderr=subprocess.STDOUT,
        )
        self.log_path = log_path

    def wait_ready(self, within: float = 60.0) -> None:
        # A cold start on a busy shared machine (2 cores, many test runs) takes a while.
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"svara serve exited: {self.log_path.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/health", timeout=1) as resp:
                    if resp.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"svara serve not ready: {self.log_path.read_text()[-2000:]}")

    def stop(self) -> int:
        """SIGTERM, then SIGKILL after 5 s; the exit code (negative: killed by a signal)."""
        self.proc.terminate()
        try:
            code = self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait(5)
        self.log.close()
        return code
