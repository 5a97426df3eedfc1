"""A command written to a connection redis-py is closing (a Cluster's failover resets a node's
pool under the commands in flight) fails with AttributeError or RuntimeError instead of a
ConnectionError: the store says "unavailable" (503 to the client), not a bug (500)."""

from __future__ import annotations

import pytest

from events.store.base import StoreUnavailable
from events.store.connection import Health


@pytest.mark.parametrize("exc", [
    AttributeError("'NoneType' object has no attribute 'writelines'"),
    RuntimeError("unable to perform operation on <TCPTransport closed=True reading=False "
                 "0x55bfe8b422a0>; the handler is closed"),
])
def test_the_closing_connection_race_is_unavailable(exc: Exception) -> None:
    with pytest.raises(StoreUnavailable), Health().errors():
        raise exc


@pytest.mark.parametrize("exc", [AttributeError("'Seat' object has no attribute 'stack'"),
                                 RuntimeError("dictionary changed size during iteration")])
def test_other_attribute_and_runtime_errors_stay_bugs(exc: Exception) -> None:
    with pytest.raises(type(exc)), Health().errors():
        raise exc
