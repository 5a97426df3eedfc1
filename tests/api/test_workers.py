"""`svara serve --workers N` for real: processes on one port against the real Redis, each
answering, stopped together by one SIGTERM; the embedded store keeps to one process."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support.e2e_game import server_env
from tests.support.serve import REPO, Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]

WORKER = re.compile(r'svara_worker_info\{pid="(\d+)",worker="(\d+)"\} 1\.0')


def scrape(url: str) -> tuple[int, int]:
    """(pid, index) of the worker that answered a fresh connection's scrape."""
    with urllib.request.urlopen(f"{url}/metrics", timeout=5) as resp:
        found = WORKER.search(resp.read().decode())
    assert found is not None
    return int(found[1]), int(found[2])


def workers_seen(url: str, want: int, tries: int = 200) -> dict[int, int]:
    """pid -> index over fresh connections until `want` workers answered (the kernel picks
    a worker per connection)."""
    seen: dict[int, int] = {}
    for _ in range(tries):
        try:
            pid, index = scrape(url)
        except ConnectionResetError:  # queued at a worker just killed: the kernel resets it
            continue
        seen[pid] = index
        if len(seen) >= want:
            break
    return seen


def children(pid: int) -> set[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return {int(p) for p in path.read_text().split()} if path.exists() else set()


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def stop_within(server: Server, seconds: float) -> tuple[int, float]:
    assert server.proc is not None
    started = time.monotonic()
    server.proc.send_signal(signal.SIGTERM)
    try:
        code = server.proc.wait(seconds)
    except subprocess.TimeoutExpired:
        server.kill()
        raise AssertionError(f"not stopped within {seconds} s: {server.output()[-2000:]}") from None
    return code, time.monotonic() - started


@pytest.mark.parametrize("reuse_port", ["1", "0"], ids=["so_reuseport", "shared_socket"])
def test_two_workers_serve_one_port_and_stop_together(redis_url: str, reuse_port: str) -> None:
    server = Server(server_env(redis_url, REUSE_PORT=reuse_port), args=("--workers", "2"))
    server.start(timeout=60)
    try:
        assert server.proc is not None
        pids = children(server.proc.pid)
        assert len(pids) == 2, server.output()
        # Both processes answer on the one port: each scrape is a new connection.
        deadline = time.monotonic() + 60
        seen: dict[int, int] = {}
        while len(seen) < 2 and time.monotonic() < deadline:  # worker 1 may still be starting
            seen |= workers_seen(server.url, 2)
        assert set(seen) == pids, (seen, pids)
        assert sorted(seen.values()) == [0, 1]
        mode = "SO_REUSEPORT" if reuse_port == "1" else "one shared socket"
        assert f"(Redis, 2 workers on {mode}, bot off)" in server.output()
    finally:
        code, took = stop_within(server, 5.0)
    assert code == 0, server.output()
    assert took < 5.0
    assert not any(alive(pid) for pid in pids)


def test_the_embedded_store_keeps_one_process() -> None:
    server = Server({"WORKERS": "2", "LOG_LEVEL": "INFO"}, args=())
    server.start(timeout=60)
    try:
        assert server.proc is not None
        assert children(server.proc.pid) == set()
        assert scrape(server.url) == (server.proc.pid, 0)
        assert ("the embedded store lives in this process: serving with 1 worker, not 2"
                in server.output())
    finally:
        code, _took = stop_within(server, 5.0)
    assert code == 0


def test_a_worker_that_dies_is_started_again(redis_url: str) -> None:
    server = Server(server_env(redis_url), args=("--workers", "2"))
    server.start(timeout=60)
    assert server.proc is not None
    try:
        first = workers_seen(server.url, 2, tries=2000)
        [killed] = [pid for pid, index in first.items() if index == 1]
        subprocess.run(["kill", "-9", str(killed)], check=True)
        deadline = time.monotonic() + 60
        again: dict[int, int] = {}
        while time.monotonic() < deadline:  # a new worker 1 answers on the port
            again = {pid: index for pid, index in workers_seen(server.url, 2).items()
                     if index == 1 and pid != killed}
            if again:
                break
        assert again, server.output()[-2000:]
        assert server.running()
        assert children(server.proc.pid) == {*again, *(p for p in first if p != killed)}
        assert "exited with -9" in server.output() and "starting it again" in server.output()
    finally:
        code, _took = stop_within(server, 5.0)
    assert code == 0, server.output()


def test_a_worker_that_cannot_serve_stops_the_rest_with_an_error(redis_url: str) -> None:
    """Its port taken (by a socket without SO_REUSEPORT), a worker dies before it serves and
    would only die again: the parent stops the others and exits 1."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = Server(server_env(redis_url), port=port, args=("--workers", "2"))
        with server.log.open("ab") as out:
            server.proc = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "serve", "--port", str(port),
                 "--workers", "2"], cwd=REPO, env=server.env, stdout=out,
                stderr=subprocess.STDOUT)
        try:
            code = server.proc.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()
            raise
    assert code == 1, server.output()
    assert "before it served: stopping the others" in server.output()
