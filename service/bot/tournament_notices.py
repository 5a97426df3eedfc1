""""Your tournament starts": when a Sit & Go's table seats its players (all at once, by the
tournament), each player the bot may write to is told, with an Open table button. Sent once
across replicas (the mark names the table and the player)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from aiogram.exceptions import TelegramForbiddenError

from events.table import PlayerSeated, TableEvent
from service.bot import texts
from service.bot.keyboards import table_keyboard
from service.bot.reach import Reach
from service.game.state import TableState

log = logging.getLogger(__name__)

DAY = 86_400.0


def tournament_seated(events: Sequence[TableEvent], state: TableState) -> list[int]:
    """The players a tournament table has just seated (none on a cash table)."""
    if not state.tournament_id:
        return []
    return [e.user_id for e in events if isinstance(e, PlayerSeated)]


class TournamentNotices:
    def __init__(self, reach: Reach) -> None:
        self.reach = reach

    async def started(self, table_id: str, user_ids: Sequence[int]) -> None:
        reach = self.reach
        for user_id in user_ids:
            profile = await reach.reachable(user_id)
            if profile is None or not await reach.once(f"tstart:{table_id}:{user_id}", DAY):
                continue
            with reach.i18n.speaking(reach.language(profile)):
                text = texts.tournament_starts(table_id)
                markup = table_keyboard(reach.config, table_id)
            try:
                await reach.bot.send_message(user_id, text, reply_markup=markup)
            except TelegramForbiddenError:  # blocked: the sender has recorded it
                log.info("tournament notice to %s: the player blocked the bot", user_id)
