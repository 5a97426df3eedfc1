"""Free loopback ports for the servers the suites start, each suite in its own range.

Race-free between the test processes of one run: pytest-xdist workers each take their own
slice of a range (PYTEST_XDIST_WORKER gwN takes every Nth port), and a process never hands out
a port twice while others of its slice are free, so a server not yet bound cannot lose its port
to the next test's server. Other checkouts of this project run the same suites on the same
machine: the port is still tried by binding it, from a random start.
"""

from __future__ import annotations

import os
import random
import socket
from collections.abc import Iterable

_handed_out: set[int] = set()


def worker_index() -> tuple[int, int]:
    """(this xdist worker's index, the number of workers); (0, 1) outside xdist."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if not worker.startswith("gw") or count <= 1:
        return 0, 1
    return int(worker.removeprefix("gw")) % count, count


def mine(ports: range) -> range:
    """This worker's slice of `ports`."""
    index, count = worker_index()
    return ports[index::count] if len(ports) >= 2 * count else ports


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port(ports: range, *, also: Iterable[int] = ()) -> int:
    """A free port of this worker's slice of `ports` (and `port + offset` free for each offset
    of `also`: a Redis Cluster node binds its bus port 10000 up), tried from a random start."""
    offsets = (0, *also)
    slice_ = mine(ports)
    fresh = [p for p in slice_ if p not in _handed_out]
    if not fresh:  # every port was handed out once: the earliest servers are long gone
        _handed_out.difference_update(slice_)
        fresh = list(slice_)
    start = random.randrange(len(fresh))
    for port in fresh[start:] + fresh[:start]:
        if all(_bindable(port + offset) for offset in offsets):
            _handed_out.add(port)
            return port
    raise RuntimeError(f"no free port in {ports.start}-{ports.stop - 1}")
