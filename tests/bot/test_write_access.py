"""Turn pings to players who came from a link and never started the bot, but let it write
to them: through the signed initData (`allows_write_to_pm`), the app's report after
`requestWriteAccess` (`POST /api/me/write-access`), or Telegram's `write_access_allowed`
service message. Real aiogram against the fake Bot API, the real TableService on Redis."""

from __future__ import annotations

import pytest

from service.tables import profiles
from service.tables.facade import User
from service.tables.service import TableService
from tests.bot.api_app import ApiApp, StartApp, api_app  # noqa: F401 (fixture)
from tests.bot.live import Table, open_table, people, to_chat
from tests.support.clock import FakeClock
from tests.support.fake_bot_api import Call, FakeBotAPI, write_access_update
from tests.support.waiting import eventually

pytestmark = pytest.mark.redis


def is_ping(call: Call) -> bool:
    return "?table=" in str(call.params.get("reply_markup")) and "sitin" not in str(
        call.params.get("reply_markup"))


async def pinged(app: ApiApp, fake_api: FakeBotAPI, clock: FakeClock, ana: User,
                 boris: User) -> Call:
    """Ana's turn comes at a table she does not have open: the ping she gets."""
    table = await open_table(app.service, clock, [ana, boris], turn_seconds=30)
    await Table(app.service, clock, table.id).until_turn_of(ana, [boris])
    return await fake_api.wait_for("sendMessage", lambda c: to_chat(ana.id)(c) and is_ping(c),
                                   within=5)


async def can_ping(app: ApiApp, user: User) -> bool:
    status, me = await app.call("GET", "/api/me", user)
    assert status == 200, me
    return bool(me["can_ping"])


async def test_the_apps_report_of_granted_write_access_lets_pings_reach_the_player(
    api_app: StartApp, fake_api: FakeBotAPI, clock: FakeClock  # noqa: F811
) -> None:
    app = await api_app()
    ana, boris = people("ru", "en")
    assert not await can_ping(app, ana)  # never started the bot: the app may ask
    status, me = await app.call("POST", "/api/me/write-access", ana, {"allowed": True})
    assert status == 200 and me["can_ping"] is True and me["user"]["id"] == ana.id
    assert await can_ping(app, ana)
    ping = await pinged(app, fake_api, clock, ana, boris)
    assert ping.status == 200
    assert not fake_api.sent_to(boris.id)  # Boris granted nothing

    status, me = await app.call("POST", "/api/me/write-access", ana, {"allowed": False})
    assert status == 200 and me["can_ping"] is False
    for body in [{}, {"allowed": "yes"}, {"allowed": True, "x": 1}, [True]]:
        status, answer = await app.call("POST", "/api/me/write-access", ana, body)
        assert (status, answer["error"]["code"]) == (400, "invalid_body"), body


async def test_signed_init_data_that_allows_writes_lets_pings_reach_the_player(
    api_app: StartApp, fake_api: FakeBotAPI, clock: FakeClock  # noqa: F811
) -> None:
    app = await api_app()
    ana, boris = people("de", "en")
    status, _ = await app.call("GET", "/api/tables", ana, allows_write_to_pm=True)
    assert status == 200
    service: TableService = app.service
    await eventually(lambda: _reachable(service, ana), 5)
    assert await can_ping(app, ana)
    await pinged(app, fake_api, clock, ana, boris)


async def _reachable(service: TableService, user: User) -> bool:
    return (await service.profile(user.id)).reachable


async def test_the_write_access_allowed_service_message_lets_pings_reach_the_player(
    api_app: StartApp, fake_api: FakeBotAPI, clock: FakeClock  # noqa: F811
) -> None:
    app = await api_app(mode="polling")
    ana, boris = people("tr", "en")
    fake_api.push_update(write_access_update(user_id=ana.id, first_name=ana.name,
                                             language_code="tr"))
    await eventually(lambda: _granted(app.service, ana), 10)
    assert await can_ping(app, ana)
    await pinged(app, fake_api, clock, ana, boris)
    # The service message got no answer of its own: the ping is all Ana was sent.
    assert [c for c in fake_api.sent_to(ana.id) if not is_ping(c)] == []


async def _granted(service: TableService, user: User) -> bool:
    return (await service.profile(user.id)).write_access


def test_a_block_holds_against_init_data_but_not_against_a_fresh_grant() -> None:
    never = profiles.EMPTY
    granted = profiles.fold(profiles.grant_writes(never, allowed=True, explicit=False), never)
    assert granted.reachable and granted.bot == "never"
    assert profiles.grant_writes(granted, allowed=True, explicit=False) == []  # no change
    # A 403 to who never started the bot but granted it from the app: blocked all the same
    refused = profiles.fold(profiles.block_bot(granted), granted)
    assert not refused.reachable and refused.bot == "blocked"
    blocked = profiles.fold(profiles.block_bot(profiles.fold(
        profiles.start_bot(granted, None), granted)), granted)
    assert not blocked.reachable and not blocked.write_access
    assert profiles.grant_writes(blocked, allowed=True, explicit=False) == []
    regranted = profiles.fold(profiles.grant_writes(blocked, allowed=True, explicit=True),
                              blocked)
    assert regranted.reachable
    declined = profiles.fold(profiles.grant_writes(never, allowed=False, explicit=True), never)
    assert not declined.reachable
    started = profiles.fold(profiles.start_bot(never, "ru"), never)
    kept = profiles.fold(profiles.grant_writes(started, allowed=False, explicit=True), started)
    assert kept.reachable  # who started the bot may be written to whatever the app says
