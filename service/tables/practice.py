"""Practice bots in the application layer: seating one (funded through its own wallet, with
its fixed client seed), buying a broke one in again, and its action -- each through the same
paths a player's requests take. Who the bots are and what they choose is `bots`; when they
act is the driver's.
"""

from __future__ import annotations

from collections.abc import Callable

from service.game import wallet
from service.game.commands import SetClientSeed
from service.game.settings import TableSettings
from service.tables import bots, guards
from service.tables.actions import Actions
from service.tables.bank import Bank
from service.tables.errors import service_errors
from service.tables.facade import User
from service.tables.repo import TableRepo
from service.tables.transfers import Transfers


class PracticeBots:
    def __init__(
        self,
        repo: TableRepo,
        bank: Bank,
        transfers: Transfers,
        actions: Actions,
        *,
        clock: Callable[[], float],
    ) -> None:
        self.repo = repo
        self.bank = bank
        self.transfers = transfers
        self.actions = actions
        self.clock = clock

    async def add(self, table_id: str, index: int, settings: TableSettings) -> int:
        """Seat practice bot `index`, funded through its own wallet. Returns its user id."""
        bot = User(id=bots.bot_user_id(table_id, index), name=bots.bot_name(index))
        await self._fund_and_seat(bot, table_id, settings)
        return bot.id

    async def _seed_bot(self, bot: User, table_id: str) -> None:
        """A practice bot's fixed client seed, set whenever it sits down."""
        await self.repo.execute(
            table_id,
            lambda: SetClientSeed(
                user_id=bot.id, client_seed=bots.bot_client_seed(bot.id), now=self.clock()
            ),
        )

    async def _fund_and_seat(self, bot: User, table_id: str, settings: TableSettings) -> None:
        buy_in = bots.bot_buy_in(settings)
        state = await self.bank.open(bot.id, grant=max(self.bank.starting_grant, buy_in))
        if state.balance < buy_in:
            short = buy_in - state.balance
            now = self.clock()
            await self.bank.update(
                bot.id, lambda s: wallet.grant(s, reason="practice", amount=short, now=now)
            )
        await self.transfers.buy_in(bot, table_id, buy_in)
        await self._seed_bot(bot, table_id)

    async def rebuy(self, table_id: str, user_id: int, name: str) -> None:
        """A broke practice bot stands up (cashing out what is left) and buys in again (the
        driver's `BotRebuy`)."""
        async with service_errors():
            table = await guards.existing(self.repo, table_id)
            bot = User(id=user_id, name=name)
            await self.transfers.cash_out(bot, table_id)
            await self._fund_and_seat(bot, table_id, table.state.settings)

    async def act(
        self, user_id: int, name: str, table_id: str, action_id: str, type: str, amount: int | None
    ) -> object:
        """The bot's action, as a player's (the driver's `BotAct`)."""
        return await self.actions.act(
            User(id=user_id, name=name), table_id, action_id=action_id, type=type, amount=amount
        )
