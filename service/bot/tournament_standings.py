"""A group's tournament is over: its final standings (places, names, prizes) are posted in
the group it was opened in (/tournament), once across replicas (the mark names the
tournament), in the group's language (its opener's, kept by `GroupTables`).

Told by the tournaments' observers: a replica learns of the batch it appends itself, and
whichever replica appends the finish or, later, the prizes' payment tries; the first to
claim the mark posts.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError

from events.tournament import AnyTournamentEvent, PrizesPaid, TournamentFinished
from service.bot.groups import GroupTables
from service.bot.reach import Reach
from service.bot.tournament_cards import render_standings
from service.game.tournament.state import TournamentState
from service.tables.profiles import DEFAULT_LANGUAGE

log = logging.getLogger(__name__)

WEEK = 7 * 86_400.0


def group_finished(events: Sequence[AnyTournamentEvent], state: TournamentState) -> bool:
    """A batch that ends a group's tournament (its finish, or the payment after it)."""
    return (
        state.group_chat_id is not None
        and state.status == "finished"
        and any(isinstance(e, TournamentFinished | PrizesPaid) for e in events)
    )


class GroupStandings:
    def __init__(self, reach: Reach, groups: GroupTables) -> None:
        self.reach = reach
        self.groups = groups

    async def finished(self, state: TournamentState) -> None:
        chat_id = state.group_chat_id
        if chat_id is None:
            return
        reach, tid = self.reach, state.tournament_id
        if not await reach.once(f"tstandings:{tid}", WEEK):
            log.info("standings of %s: another replica posts them", tid)
            return
        binding = await self.groups.group_of_tournament(tid)
        language = binding.language if binding is not None else DEFAULT_LANGUAGE
        with reach.i18n.speaking(language):
            text = render_standings(state)
        try:
            await reach.bot.send_message(chat_id, text)
        except (TelegramForbiddenError, TelegramBadRequest) as exc:  # the bot left the group
            log.info("could not post the standings of %s in %s: %s", tid, chat_id, exc)
