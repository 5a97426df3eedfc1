"""The timeout notice: a player whose own turn timed out is told what the server did for them
(passed in the blind round, folded in the betting round) and, when that sat them out, gets a
Sit in button (`routers.sitin`). Not for a lapsed svara join window: that declines an offer,
it is no missed turn (docs/RULES.md "Time").

Sent once across replicas (the mark names the `timed_out` event's version), to players the
bot may write to, whether or not they have the table open: a missed turn is news either way.
"""

from __future__ import annotations

import logging

from aiogram.exceptions import TelegramForbiddenError

from events.table import TimedOut
from service.bot import texts
from service.bot.keyboards import timeout_keyboard
from service.bot.reach import Reach
from service.tables.bots import is_bot

log = logging.getLogger(__name__)

DAY = 86_400.0


def is_missed_turn(event: TimedOut) -> bool:
    return event.action in ("pass", "fold") and not is_bot(event.user_id)


class TimeoutNotices:
    def __init__(self, reach: Reach) -> None:
        self.reach = reach

    async def timed_out(
        self, table_id: str, version: int, event: TimedOut, *, sat_out: bool
    ) -> None:
        reach = self.reach
        profile = await reach.reachable(event.user_id)
        if profile is None:
            return
        if not await reach.once(f"timeout:{table_id}:{version}", ttl=DAY):
            return
        with reach.i18n.speaking(reach.language(profile)):
            what = (
                texts.timed_out_folded(table_id)
                if event.action == "fold"
                else texts.timed_out_passed(table_id)
            )
            text = f"{what}\n\n{texts.sat_out()}" if sat_out else what
            markup = timeout_keyboard(reach.config, table_id, sat_out=sat_out)
        try:
            await reach.bot.send_message(event.user_id, text, reply_markup=markup)
        except TelegramForbiddenError:  # blocked: the sender has recorded it
            log.info("timeout notice to %s: the player blocked the bot", event.user_id)
