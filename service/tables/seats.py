"""Taking a seat, buying in again, and standing up: the table commands that move chips between
a wallet and a table, as two-step transfers (`transfers`).

The game core's verifiers are asked before the wallet is touched, so a refusal here writes
nothing anywhere; the table asks the same rules again, atomically with its append, so a table
that changed in between still refuses (and the transfer is released: `Transfers`).
"""

from __future__ import annotations

from service.game.legal import seated, verify_rebuy, verify_sit_down
from service.tables import guards
from service.tables.bank import Bank
from service.tables.facade import ServiceError, User
from service.tables.repo import TableRepo
from service.tables.transfers import Transfers


class Seats:
    def __init__(self, repo: TableRepo, bank: Bank, transfers: Transfers) -> None:
        self.repo = repo
        self.bank = bank
        self.transfers = transfers

    async def seat(self, user: User, table_id: str, buy_in: int) -> None:
        guards.chips(buy_in)
        table = await guards.existing(self.repo, table_id)
        verify_sit_down(table.state, user.id, buy_in, None)
        await self.bank.open(user.id)
        await self.transfers.buy_in(user, table_id, buy_in)

    async def rebuy(self, user: User, table_id: str, buy_in: int) -> None:
        guards.chips(buy_in)
        table = await guards.existing(self.repo, table_id)
        # Asked here first for a quick answer; the stand-up asks the same rules again,
        # atomically with itself (so a refusal there changes nothing either).
        seat = verify_rebuy(table.state, user.id, buy_in)
        # What the player can pay with: the wallet and the chips the stand-up gives back
        # (the wallet's own check, `wallet.reserve`, sees only the first).
        purse = (await self.bank.open(user.id)).balance + seat.stack
        if buy_in > purse:
            raise ServiceError(
                422, "insufficient_funds", f"the buy-in is {buy_in} chips; you have {purse}"
            )
        await self.transfers.rebuy(user, table_id, buy_in, seat=seat.seat)

    async def leave(self, user: User, table_id: str) -> None:
        table = await guards.existing(self.repo, table_id)
        seated(table.state, user.id)  # 403 not_seated, before a transfer is begun
        await self.transfers.cash_out(user, table_id)
