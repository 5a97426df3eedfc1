"""`svara serve --workers N`: N processes serving one port, each a full replica.

The replicas share nothing but Redis (docs/ARCHITECTURE.md), so a worker is just another
replica that happens to listen on the same port. How they share it:

- where the kernel balances connections over sockets bound with `SO_REUSEPORT` (Linux), each
  worker binds its own listening socket on the port: the kernel spreads new connections over
  them by a hash of the addresses, and a busy worker's queue does not take its neighbours'
  connections;
- elsewhere (no `SO_REUSEPORT`, or one that does not balance, as on macOS and the BSDs; or
  `REUSE_PORT=0`) this process binds one socket before the workers start and every worker
  accepts on the inherited copy (`web.SockSite`): the kernel wakes one of them per connection,
  less evenly.

This process (the parent) serves nothing itself: it forks the workers before any event loop
exists, forwards SIGTERM/SIGINT to them, waits for them to drain (each within its own 5 s)
and exits 0 when every one exited 0. A worker that dies on its own after it was serving is
started again with the same index (index 0 keeps the bot's updates: there is exactly one
poller). One that died before it served (the port is taken, the configuration cannot work)
would only die again, and so would one restarted `RESTARTS` times within `RESTART_WINDOW`
seconds: then the parent stops the others and exits 1, for the orchestrator to see.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

log = logging.getLogger("svara.workers")

RESTARTS = 5
RESTART_WINDOW = 60.0
# The workers' own drain is bounded at 5 s (serve.py's shutdown_timeout); past this the
# parent kills what is left and says so in its exit code.
STOP_GRACE_SECONDS = 8.0
POLL_SECONDS = 0.05

# What a worker runs: (index, the inherited listening socket or None to bind with
# SO_REUSEPORT, what to call once it serves) -> exit code.
Serve = Callable[[int, socket.socket | None, Callable[[], None]], int]


def default_count() -> int:
    """One worker per core this process may run on (a container's CPU set, not the host's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def reuse_port_balances(env: dict[str, str] | None = None) -> bool:
    """Whether each worker binds its own socket: Linux's SO_REUSEPORT balances connections
    over the sockets of a port; macOS and the BSDs accept the option but hand every connection
    to one socket (FreeBSD's balancing variant is another option)."""
    if (env if env is not None else os.environ).get("REUSE_PORT", "1").strip() == "0":
        return False
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def shared_socket(host: str, port: int, backlog: int) -> socket.socket:
    """The fallback: one listening socket, bound here, inherited by every worker."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    sock.setblocking(False)
    return sock


@dataclass
class _Worker:
    index: int
    pid: int
    ready: int  # the pipe's read end: a byte there once the worker serves
    started: float = field(default_factory=time.monotonic)

    def served(self) -> bool:
        try:
            return os.read(self.ready, 1) == b"1"
        except BlockingIOError:
            return False
        finally:
            os.close(self.ready)


class Supervisor:
    def __init__(self, count: int, serve: Serve, sock: socket.socket | None) -> None:
        self.count = count
        self.serve = serve
        self.sock = sock
        self.workers: dict[int, _Worker] = {}  # pid -> worker
        self.restarts: list[float] = []
        self.stopping = False
        self.stop_started = 0.0
        self.killed = False
        self.failed = False

    def run(self) -> int:
        previous = {sig: signal.signal(sig, self._on_signal)
                    for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            for index in range(self.count):
                self._start(index)
            mode = "SO_REUSEPORT" if self.sock is None else "one shared socket"
            log.info("started %d workers on %s: pids %s", self.count, mode,
                     " ".join(str(pid) for pid in self.workers))
            while self.workers:
                self._reap()
                if self.workers:
                    time.sleep(POLL_SECONDS)
                if self.stopping and not self.killed and self._stopped_for() > STOP_GRACE_SECONDS:
                    self._kill_the_rest()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return 1 if self.failed else 0

    def _on_signal(self, signum: int, _frame: object) -> None:
        if not self.stopping:
            self.stopping = True
            self.stop_started = time.monotonic()
            log.info("stopping %d workers", len(self.workers))
        # Again on a second signal: each worker then logs what it is still waiting for.
        self._forward(signal.SIGTERM)

    def _stopped_for(self) -> float:
        return time.monotonic() - self.stop_started

    def _forward(self, sig: int) -> None:
        for pid in list(self.workers):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)

    def _start(self, index: int) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: never returns into the parent's loop
            os.close(read)
            code = 1
            try:
                for sig in (signal.SIGTERM, signal.SIGINT):
                    signal.signal(sig, signal.SIG_DFL)  # the worker's loop installs its own
                code = self.serve(index, self.sock, lambda: _say_ready(write))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:
                log.exception("worker %d failed", index)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        os.close(write)
        os.set_blocking(read, False)
        self.workers[pid] = _Worker(index, pid, read)

    def _reap(self) -> None:
        while self.workers:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                self.workers.clear()
                return
            if pid == 0:
                return
            worker = self.workers.pop(pid, None)
            if worker is None:
                continue
            code = os.waitstatus_to_exitcode(status)
            served = worker.served()
            if self.stopping:
                if code != 0:
                    log.warning("worker %d (pid %d) exited with %d", worker.index, pid, code)
                    self.failed = True
                continue
            self._died(worker, code, served)

    def _died(self, worker: _Worker, code: int, served: bool) -> None:
        now = time.monotonic()
        self.restarts = [t for t in self.restarts if now - t < RESTART_WINDOW]
        if not served or len(self.restarts) >= RESTARTS:
            why = ("before it served" if not served else
                   f"the {RESTARTS + 1}th time within {RESTART_WINDOW:.0f} s")
            log.error("worker %d (pid %d) exited with %d %s: stopping the others",
                      worker.index, worker.pid, code, why)
            self.failed = True
            self.stopping = True
            self.stop_started = now
            self._forward(signal.SIGTERM)
            return
        log.error("worker %d (pid %d) exited with %d after %.0f s: starting it again",
                  worker.index, worker.pid, code, now - worker.started)
        self.restarts.append(now)
        self._start(worker.index)

    def _kill_the_rest(self) -> None:
        for worker in self.workers.values():
            log.error("worker %d (pid %d) did not stop within %.0f s: killing it",
                      worker.index, worker.pid, STOP_GRACE_SECONDS)
        self._forward(signal.SIGKILL)
        self.failed = True
        self.killed = True


def _say_ready(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.write(fd, b"1")
        os.close(fd)


def supervise(count: int, serve: Serve, *, host: str, port: int, backlog: int) -> int:
    """Run `count` workers until SIGTERM/SIGINT; the exit code for the command."""
    sock = None if reuse_port_balances() else shared_socket(host, port, backlog)
    try:
        return Supervisor(count, serve, sock).run()
    finally:
        if sock is not None:
            sock.close()
