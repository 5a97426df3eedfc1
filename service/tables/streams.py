"""Stream names, in one place. A namespace prefix keeps test runs on a shared Redis apart."""

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
    def tables(self) -> str:
        """The directory of tables: one entry per table ever created."""
        return f"{self.namespace}tables"

    @property
    def wallets(self) -> str:
        """The directory of wallets: one entry per user ever seen (the reconciler scans it)."""
        return f"{self.namespace}wallets"
