"""Sharing a private table from the Mini App: the prepared message's Join button carries the
table's current invite (`table_<id>_<invite>`), for its host (who reads it in their own view),
a player seated there and a guest who holds it; a guest who left after the host replaced
their link may watch but hands out no link. Real aiogram against the fake Bot API, the real
TableService on the real Redis."""

from __future__ import annotations

import pytest

from service.game.settings import TableSettings
from tests.bot.api_app import StartApp, api_app  # noqa: F401 (fixture)
from tests.bot.live import people
from tests.support.clock import FakeClock
from tests.support.fake_bot_api import FakeBotAPI

pytestmark = pytest.mark.redis

APP = "play"


def link(payload: str) -> str:
    return f"https://t.me/svara_test_bot/{APP}?startapp={payload}"


def button_url(call_params: dict[str, object]) -> str:
    result = call_params["result"]
    assert isinstance(result, dict)
    return str(result["reply_markup"]["inline_keyboard"][0][0]["url"])


async def test_a_shared_private_table_links_with_its_current_invite(
    api_app: StartApp, fake_api: FakeBotAPI, clock: FakeClock  # noqa: F811
) -> None:
    app = await api_app(mini_app_name=APP)
    host, guest, stranger = people("en", "ru", "de")
    table = await app.service.create_table(host, TableSettings(ante=10), name="Friday",
                                           private=True)
    invite = await app.service.social.issue_invite(host, table)

    status, view = await app.call("GET", f"/api/tables/{table}", host)
    assert status == 200, view
    assert (view["name"], view["private"], view["created_by"]) == ("Friday", True, host.id)
    assert view["invite"] == invite  # the host shares from any device without a new link
    status, answer = await app.call("POST", "/api/share", host,
                                    {"kind": "table", "table_id": table})
    assert status == 200, answer
    assert button_url(fake_api.calls_of("savePreparedInlineMessage")[-1].params) == link(
        f"table_{table}_{invite}")

    status, seated = await app.call("POST", f"/api/tables/{table}/seat", guest,
                                    {"buy_in": 100, "invite": invite})
    assert status == 200 and "invite" not in seated  # only its creator reads the invite
    status, view = await app.call("GET", f"/api/tables/{table}", guest)
    assert status == 200 and "invite" not in view
    status, answer = await app.call("POST", "/api/share", guest,
                                    {"kind": "table", "table_id": table, "invite": invite})
    assert status == 200, answer
    assert f"table_{table}_{invite}" in answer["fallback_url"]

    status, answer = await app.call("POST", "/api/share", stranger,
                                    {"kind": "table", "table_id": table})
    assert (status, answer["error"]["code"]) == (404, "unknown_table")

    renewed = await app.service.social.issue_invite(host, table)
    status, answer = await app.call("POST", "/api/share", guest,  # seated: the current link
                                    {"kind": "table", "table_id": table})
    assert status == 200 and f"table_{table}_{renewed}" in answer["fallback_url"]
    await app.service.leave(guest, table)
    status, answer = await app.call("POST", "/api/share", guest,
                                    {"kind": "table", "table_id": table, "invite": invite})
    assert (status, answer["error"]["code"]) == (404, "invite_revoked")
    status, _ = await app.call("GET", f"/api/tables/{table}", guest)
    assert status == 200  # they may still watch the table they played at
    status, answer = await app.call("POST", "/api/share", host,
                                    {"kind": "table", "table_id": table})
    assert status == 200 and f"table_{table}_{renewed}" in answer["fallback_url"]
