"""Private redis-server processes for tests that need a server of their own (AOF, kill -9,
FUNCTION FLUSH, Cluster). They listen on free ports in 7000-7099 (this suite's range, so the
shared Redis at 6379 is never touched) with --dir in a temp dir, and are always stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from tests.support import ports

PORT_RANGE = range(7000, 7100)


def free_port() -> int:
    """A free port of 7000-7099 whose Cluster bus port, 10000 up, is free too."""
    return ports.free_port(PORT_RANGE, also=(10000,))


class RedisServer:
    """One redis-server child process; `restart()` keeps its port and data dir."""

    def __init__(self, directory: Path, port: int, *extra: str, config: Path | None = None) -> None:
        self.dir = directory
        self.port = port
        self.extra = extra
        self.config = config
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.dir.mkdir(parents=True, exist_ok=True)
        args = [
            "redis-server",
            *([str(self.config)] if self.config else []),
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.dir),
            "--save", "",
            "--daemonize", "no",
            "--logfile", str(self.dir / "redis.log"),
            *self.extra,
        ]  # fmt: skip
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._wait_ready()
        return self

    def _wait_ready(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                log = (self.dir / "redis.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"redis-server on {self.port} exited: {log}")
            try:
                out = subprocess.run(
                    ["redis-cli", "-p", str(self.port), "ping"],
                    capture_output=True,
                    timeout=2,
                    check=False,
                )
                if b"PONG" in out.stdout and self._answering_is_mine():
                    return
            except subprocess.TimeoutExpired:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"redis-server on {self.port} did not become ready")

    def _answering_is_mine(self) -> bool:
        """The server on our port is our process, not one that another test run (the machine
        is shared; the port was free when picked) started there first: then ours fails to
        bind and exits, and `_wait_ready` says so instead of handing out the wrong server."""
        assert self.proc is not None
        info = subprocess.run(
            ["redis-cli", "-p", str(self.port), "info", "server"],
            capture_output=True, timeout=2, check=False,
        ).stdout
        return f"process_id:{self.proc.pid}\r".encode() in info

    def kill9(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill9()
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()


def start_cluster(base: Path, masters: int = 3, replicas: int = 0) -> list[RedisServer]:
    """A real `masters`-primary Redis Cluster with `replicas` replicas per primary, ready (and
    every replica in sync) when this returns. The first `masters` nodes are the primaries."""
    nodes: list[RedisServer] = []
    try:
        for i in range(masters * (1 + replicas)):
            port = free_port()
            node = RedisServer(
                base / f"node{i}",
                port,
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", "15000",  # a loaded CI box must not look like a failure
                "--appendonly", "no",
            )  # fmt: skip
            nodes.append(node.start())
        subprocess.run(
            ["redis-cli", "--cluster", "create", *[f"127.0.0.1:{n.port}" for n in nodes],
             "--cluster-replicas", str(replicas), "--cluster-yes"],
            capture_output=True, timeout=30, check=True,
        )  # fmt: skip
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            ok = all(
                b"cluster_state:ok"
                in subprocess.run(
                    ["redis-cli", "-p", str(n.port), "cluster", "info"],
                    capture_output=True,
                    timeout=2,
                    check=False,
                ).stdout
                for n in nodes
            )
            if ok and all(_in_sync(n) for n in nodes):
                return nodes
            time.sleep(0.1)
        raise RuntimeError("cluster did not reach cluster_state:ok")
    except BaseException:
        for n in nodes:
            n.kill9()
        raise


def _in_sync(node: RedisServer) -> bool:
    """A primary, or a replica whose link to its primary is up."""
    info = subprocess.run(
        ["redis-cli", "-p", str(node.port), "info", "replication"],
        capture_output=True, timeout=2, check=False,
    ).stdout
    return b"role:master" in info or b"master_link_status:up" in info


# -- a running cluster, as an operator sees it ------------------------------------------------

def cli(port: int, *args: str) -> str:
    return subprocess.run(["redis-cli", "-p", str(port), *args], capture_output=True,
                          text=True, timeout=5, check=True).stdout


def slot_owners(nodes: list[RedisServer]) -> dict[int, int]:
    """slot -> port of the primary serving it, as the cluster says now."""
    owners: dict[int, int] = {}
    for line in cli(nodes[0].port, "cluster", "nodes").splitlines():
        fields = line.split()
        if "master" not in fields[2] or "fail" in fields[2]:
            continue
        port = int(fields[1].split("@")[0].rsplit(":", 1)[1])
        for part in fields[8:]:
            if part.startswith("["):
                continue
            low, _, high = part.partition("-")
            for slot in range(int(low), int(high or low) + 1):
                owners[slot] = port
    return owners


def replica_of(nodes: list[RedisServer], primary_port: int) -> int:
    """The port of a replica of the primary on `primary_port` (the cluster's gossip may take
    a moment to show it everywhere: asked of every node, for up to 10 s)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for node in nodes:
            lines = [line.split() for line in cli(node.port, "cluster", "nodes").splitlines()]
            ids = [f[0] for f in lines if f[1].split("@")[0].endswith(f":{primary_port}")]
            for f in lines:
                if ids and "slave" in f[2] and f[3] == ids[0] and "fail" not in f[2]:
                    return int(f[1].split("@")[0].rsplit(":", 1)[1])
        time.sleep(0.1)
    raise AssertionError(f"no replica of {primary_port}")


def fail_over(nodes: list[RedisServer], replica_port: int) -> None:
    """CLUSTER FAILOVER on the replica; wait until it is a primary and the cluster agrees.
    A manual failover gives up after 5 s when the primary and the replica cannot complete
    the hand-over in time (a loaded machine): then it is asked again."""
    deadline = time.monotonic() + 60
    asked = 0.0
    while time.monotonic() < deadline:
        promoted = "role:master" in cli(replica_port, "info", "replication")
        if not promoted and time.monotonic() - asked > 8:
            assert cli(replica_port, "cluster", "failover").strip() == "OK"
            asked = time.monotonic()
        ok = all("cluster_state:ok" in cli(n.port, "cluster", "info") for n in nodes)
        if promoted and ok and replica_port in set(slot_owners(nodes).values()):
            return
        time.sleep(0.1)
    raise AssertionError(f"replica {replica_port} was not promoted")
