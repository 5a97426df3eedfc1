"""Free loopback ports for the servers the suites start, each suite in its own range."""

from __future__ import annotations

import random
import socket


def free_port(ports: range) -> int:
    """A free port of `ports`, tried from a random start: other checkouts of this project run
    the same suites on the same machine, and the first free port of a fixed order is the one
    they would all take."""
    start = random.randrange(len(ports))
    for offset in range(len(ports)):
        port = ports[(start + offset) % len(ports)]
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {ports.start}-{ports.stop - 1}")
