"""The one contract every EventStore passes (embedded, Redis, Redis Cluster).

A test module subclasses `StoreContract` and provides a `make_store` fixture: a factory that
opens a fresh store on the module's backend (several calls = several "processes" sharing one
dataset). Streams are uuid-named, so the shared Redis is safe.
"""

from tests.store.contract_appends import AppendContract
from tests.store.contract_base import MakeStore, indexed_stream, new_index
from tests.store.contract_chain import ChainContract
from tests.store.contract_indexes import IndexContract
from tests.store.contract_subscriptions import SubscriptionContract

# What the backends' test modules and the other contracts take from here.
__all__ = ["MakeStore", "StoreContract", "indexed_stream", "new_index"]


class StoreContract(AppendContract, SubscriptionContract, IndexContract, ChainContract):
    """The whole contract, its parts in the modules beside this one."""
