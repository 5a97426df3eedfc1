"""A player with the table open is not called to their turn; minimising the app (the web
app's `away` frame) or losing the socket during their turn calls them at once -- not after
the presence's expiry, nor at the bot's next poll of the table."""

from __future__ import annotations

import pytest

from service.api.auth import sign_init_data
from tests.bot.api_app import StartApp, api_app  # noqa: F401 (fixture)
from tests.bot.live import Live, expected_ping, people, ping_to, pings_to
from tests.support.clock import FakeClock
from tests.support.fake_bot_api import FakeBotAPI

pytestmark = pytest.mark.redis


@pytest.mark.parametrize("how", ["away", "closed"])
async def test_going_away_on_your_turn_pings_at_once(
    live: Live, fake_api: FakeBotAPI, how: str
) -> None:
    ana, boris = people("en", "ru")
    await live.start_bot(ana)
    table = await live.table([ana, boris], turn_seconds=30)
    token = await live.service.presence.opened(table.id, ana.id)
    await table.until_turn_of(ana, [boris])
    assert pings_to(fake_api, ana) == []
    assert not await table.service.presence.watching(table.id, boris.id)
    wanted = await expected_ping(table, "en")
    if how == "away":
        await live.service.presence.away(token, True)
    else:
        await live.service.presence.closed(token)
    # well inside the bot's poll of 2 s: the presence change itself wakes the waiting ping
    ping = await fake_api.wait_for("sendMessage", ping_to(ana), within=1.0)
    assert ping.params["text"] == wanted
    assert "parse_mode" not in ping.params  # nothing of a player's reaches HTML parsing
    assert len(pings_to(fake_api, ana)) == 1


async def test_back_from_away_counts_as_watching_again(live: Live, fake_api: FakeBotAPI) -> None:
    (ana,) = people("en")
    table = await live.table([ana], turn_seconds=30)
    token = await live.service.presence.opened(table.id, ana.id)
    await live.service.presence.away(token, True)
    assert not await live.service.presence.watching(table.id, ana.id)
    await live.service.presence.away(token, False)
    assert await live.service.presence.watching(table.id, ana.id)
    await live.service.presence.refresh()  # a refresh keeps it, and an away one stays out
    assert await live.service.presence.watching(table.id, ana.id)
    await live.service.presence.away(token, True)
    await live.service.presence.refresh()
    assert not await live.service.presence.watching(table.id, ana.id)


async def test_the_apps_away_frame_on_its_socket_pings_at_once(
    api_app: StartApp, fake_api: FakeBotAPI, clock: FakeClock  # noqa: F811
) -> None:
    """End to end: the web app's socket (what it sends on Telegram's `deactivated`), through
    the API, to the bot's ping -- at once, not after the presence's expiry."""
    app = await api_app(mode="polling")
    live = Live(app.service, clock, fake_api)
    ana, boris = people("en", "ru")
    await live.start_bot(ana)
    table = await live.table([ana, boris], turn_seconds=30)
    async with app.session.ws_connect(f"{app.url}/api/tables/{table.id}/ws") as ws:
        await ws.send_json({"type": "auth", "init_data": sign_init_data(
            app.token, user_id=ana.id, name=ana.name, language_code="en")})
        ready = await ws.receive_json()
        assert ready["type"] == "ready", ready
        await ws.send_json({"type": "resume", "after": ready["version"]})
        await table.until_turn_of(ana, [boris])
        assert pings_to(fake_api, ana) == []  # she has the table open
        wanted = await expected_ping(table, "en")
        await ws.send_json({"type": "away", "away": True})
        ping = await fake_api.wait_for("sendMessage", ping_to(ana), within=1.0)
        assert ping.params["text"] == wanted
        assert len(pings_to(fake_api, ana)) == 1
