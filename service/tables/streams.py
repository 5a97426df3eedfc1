"""Stream and index names, in one place. A namespace prefix keeps test runs on a shared Redis
apart (and several deployments on one Redis)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Streams:
    namespace: str = ""

    def table(self, table_id: str) -> str:
        return f"{self.namespace}table:{table_id}"

    def wallet(self, user_id: int) -> str:
        return f"{self.namespace}wallet:{user_id}"

    def profile(self, user_id: int) -> str:
        """A player's preferences (language, turn pings): `service.tables.profiles`."""
        return f"{self.namespace}profile:{user_id}"

    @property
    def lobby(self) -> str:
        """Index: every table not closed, with its summary (`service.tables.index`)."""
        return f"{self.namespace}lobby"

    @property
    def wake(self) -> str:
        """Index: every table that needs the timer worker, scored by when."""
        return f"{self.namespace}wake"

    @property
    def transfers(self) -> str:
        """Marks: `<user>:<transfer>` for every transfer that may be in flight."""
        return f"{self.namespace}transfers"

    @property
    def index_meta(self) -> str:
        """Marks: which index versions this namespace has been built for."""
        return f"{self.namespace}index-meta"

    @property
    def tables(self) -> str:
        """The directory of tables written before the lobby index existed (read once, to
        build the indexes of a deployment that predates them)."""
        return f"{self.namespace}tables"

    @property
    def wallets(self) -> str:
        """The directory of wallets written before the transfer marks existed (idem)."""
        return f"{self.namespace}wallets"
