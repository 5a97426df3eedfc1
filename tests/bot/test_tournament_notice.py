""""Your tournament starts": the real TableService on the real Redis, real aiogram against the
fake Bot API. Each registered player the bot may write to is told once, in their language;
one who never started the bot is not."""

from __future__ import annotations

import pytest

from events.tournament import TournamentSettings
from service.bot import texts
from tests.bot.botkit import say
from tests.bot.live import Live, people, to_chat
from tests.support.fake_bot_api import FakeBotAPI

pytestmark = pytest.mark.redis


async def test_registered_players_hear_their_tournament_start(
    live: Live, fake_api: FakeBotAPI
) -> None:
    ana, boris, cem = people("ru", "de", "tr")
    await live.start_bot(ana)
    await live.start_bot(boris)
    settings = TournamentSettings(seats=3, buy_in=10, stack=50, antes=(5,), hands_per_level=5)
    tid = await live.service.tournaments.create(ana, settings)
    for user in (ana, boris, cem):
        await live.service.tournaments.register(user, tid)
    table_id = (await live.service.tournaments.get(tid))["table_id"]
    for user, language in ((ana, "ru"), (boris, "de")):
        expected = say(language, texts.tournament_starts, table_id)
        assert expected != texts.tournament_starts(table_id)  # translated
        await fake_api.wait_for(
            "sendMessage",
            lambda c, u=user, t=expected: to_chat(u.id)(c) and c.params["text"] == t,
            within=5,
        )
        told = [c for c in fake_api.sent_to(user.id) if c.params.get("text") == expected]
        assert len(told) == 1
    # cem never started the bot: nothing was sent to him, ever
    assert fake_api.sent_to(cem.id) == []
