"""Sharing, with real aiogram against the fake Bot API and the real TableService on the real
Redis: prepared messages for the Mini App's share button (`POST /api/share`), the inline
mode's cards, and the Mini App links (`?startapp=`) wherever an invitation goes when
MINI_APP_NAME is set (`?start=` when not)."""

from __future__ import annotations

import random

import pytest

from service.bot import share_texts, texts
from service.bot.links import share_url
from service.tables.facade import User
from tests.bot.api_app import StartApp, api_app  # noqa: F401 (fixture)
from tests.bot.botkit import PUBLIC_URL, BotApp, say
from tests.bot.live import Table, open_table, people, to_chat
from tests.support.clock import FakeClock
from tests.support.fake_bot_api import FakeBotAPI, inline_query_update, message_update
from tests.support.services import Factory

pytestmark = pytest.mark.redis

APP = "play"
BOT = "svara_test_bot"


def link(payload: str | None = None, app: str | None = APP) -> str:
    """What every invitation should link to: the Mini App's link, or the bot's chat."""
    if app:
        return f"https://t.me/{BOT}/{app}" + (f"?startapp={payload}" if payload else "")
    return f"https://t.me/{BOT}" + (f"?start={payload}" if payload else "")


async def test_a_shared_table_is_a_prepared_message_with_a_join_button_to_the_mini_app(
    api_app: StartApp, fake_api: FakeBotAPI, clock: FakeClock  # noqa: F811
) -> None:
    app = await api_app(mini_app_name=APP)
    [base] = people("de")
    host = User(base.id, "<b>&Ana", language_code="de")  # markup in a name stays text
    [guest] = people("ru")
    table = await open_table(app.service, clock, [host], ante=20, max_seats=4)

    status, answer = await app.call("POST", "/api/share", guest,
                                    {"kind": "table", "table_id": table.id})
    assert status == 200, answer
    [call] = fake_api.calls_of("savePreparedInlineMessage")
    assert int(call.params["user_id"]) == guest.id
    assert str(call.params["allow_group_chats"]).lower() == "true"
    result = call.params["result"]
    assert result["type"] == "article" and result["id"] == f"table_{table.id}"
    name = say("ru", share_texts.hosted_table, "<b>&Ana")
    text = say("ru", share_texts.table_message, name, table.id, 20, 3, 4)
    assert "<b>&Ana" in text
    assert result["input_message_content"] == {"message_text": text}  # no parse mode
    assert result["title"] == say("ru", share_texts.table_title, name, table.id)
    # Inline messages take no Web App button: a URL one to the Mini App's own link.
    assert result["reply_markup"] == {"inline_keyboard": [[
        {"text": say("ru", share_texts.join_button), "url": link(f"table_{table.id}")}]]}
    assert answer == {
        "prepared_message_id": call.result["id"],
        "expires_at": call.result["expiration_date"],
        "fallback_url": share_url(link(f"table_{table.id}"), text),
    }


async def test_a_shared_hand_has_its_result_and_a_watch_button_once_it_is_settled(
    api_app: StartApp, fake_api: FakeBotAPI, clock: FakeClock  # noqa: F811
) -> None:
    app = await api_app()  # no MINI_APP_NAME: the bot's ?start= link
    ana, boris = people("en", "tr")
    table = await open_table(app.service, clock, [ana, boris])
    while await table.turn() is None:  # deal hand 1
        await table.tick()
    status, answer = await app.call("POST", "/api/share", boris,
                                    {"kind": "hand", "table_id": table.id, "hand": 1})
    assert (status, answer["error"]["code"]) == (409, "hand_in_progress")

    await table.play([ana, boris], 1)
    status, answer = await app.call("POST", "/api/share", boris,
                                    {"kind": "hand", "table_id": table.id, "hand": 1})
    assert status == 200, answer
    [call] = fake_api.calls_of("savePreparedInlineMessage")
    result = call.params["result"]
    hand_link = link(f"hand_{table.id}_1", app=None)
    assert result["reply_markup"] == {"inline_keyboard": [[
        {"text": say("tr", share_texts.watch_button), "url": hand_link}]]}
    text = result["input_message_content"]["message_text"]
    assert text.startswith(say("tr", texts.result_header, table.id, 1) + "\n")
    assert "Ana" in text or "Boris" in text
    assert answer["fallback_url"] == share_url(hand_link, text)


async def test_share_refusals(
    api_app: StartApp, fake_api: FakeBotAPI, clock: FakeClock  # noqa: F811
) -> None:
    app = await api_app(mini_app_name=APP)
    [ana] = people("en")
    table = await open_table(app.service, clock, [ana])
    for body, expected in [
        ({"kind": "table", "table_id": "nosuchtable"}, (404, "table_not_found")),
        ({"kind": "hand", "table_id": "nosuchtable", "hand": 1}, (404, None)),
        ({"kind": "hand", "table_id": table.id, "hand": 7}, (404, None)),
        ({"kind": "hand", "table_id": table.id, "hand": 0}, (404, None)),
        ({"kind": "chair", "table_id": table.id}, (400, "invalid_body")),
        ({"kind": "table"}, (400, "invalid_body")),
        ({"kind": "hand", "table_id": table.id, "hand": "one"}, (400, "invalid_body")),
        ([1, 2], (400, "invalid_body")),
    ]:
        status, answer = await app.call("POST", "/api/share", ana, body)
        assert status == expected[0], (body, answer)
        assert expected[1] is None or answer["error"]["code"] == expected[1], (body, answer)
    async with app.session.post(app.url + "/api/share", json={"kind": "table",
                                                                "table_id": table.id}) as resp:
        assert resp.status == 401
    assert fake_api.calls_of("savePreparedInlineMessage") == []


async def test_without_a_bot_sharing_is_503_with_a_link_to_the_web_app(
    api_app: StartApp, fake_api: FakeBotAPI, clock: FakeClock  # noqa: F811
) -> None:
    app = await api_app(bot=False)  # dev mode
    [ana] = people("en")
    table = await open_table(app.service, clock, [ana])
    status, answer = await app.call("POST", "/api/share", ana,
                                    {"kind": "table", "table_id": table.id})
    assert status == 503 and answer["error"]["code"] == "bot_unavailable"
    assert "bot" in answer["error"]["message"]
    text = share_texts.table_message(share_texts.hosted_table("Ana"), table.id, 10, 5, 6)
    assert answer["fallback_url"] == share_url(f"{PUBLIC_URL}/?table={table.id}", text)
    status, answer = await app.call("POST", "/api/share", ana,
                                    {"kind": "table", "table_id": "nosuchtable"})
    assert status == 404  # what cannot be shared is refused first, bot or none
    assert fake_api.calls_of("savePreparedInlineMessage") == []


async def test_inline_mode_offers_the_players_tables_newest_first_and_a_new_table_card(
    services: Factory, clock: FakeClock, fake_api: FakeBotAPI, bot_app: BotApp
) -> None:
    service = await services()
    await bot_app(service, mode="polling", mini_app_name=APP)
    [base, boris] = people("bg", "en")
    ana = User(base.id, "<b>&Ana", language_code="bg")
    older = await open_table(service, clock, [ana, boris], ante=10, max_seats=3)
    clock.advance(5)
    newer = await open_table(service, clock, [boris, ana], ante=20)
    elsewhere = await open_table(service, clock, [boris])  # Ana does not sit there

    fake_api.push_update(inline_query_update("", user_id=ana.id, first_name=ana.name,
                                             language_code="bg"))
    call = await fake_api.wait_for("answerInlineQuery", within=10)
    assert str(call.params["cache_time"]) == "10"
    assert str(call.params["is_personal"]).lower() == "true"
    results = call.params["results"]
    assert [r["id"] for r in results] == [f"table_{newer.id}", f"table_{older.id}", "new"]
    assert elsewhere.id not in str(results)
    first, second, new = results
    assert first["reply_markup"] == {"inline_keyboard": [[
        {"text": say("bg", share_texts.join_button), "url": link(f"table_{newer.id}")}]]}
    assert first["description"] == say("bg", share_texts.table_description, 20, 4, 6)
    hosted = say("bg", share_texts.hosted_table, "<b>&Ana")
    assert second["input_message_content"] == {
        "message_text": say("bg", share_texts.table_message, hosted, older.id, 10, 1, 3)}
    assert new["title"] == say("bg", share_texts.new_table_title)
    assert new["reply_markup"] == {"inline_keyboard": [[
        {"text": say("bg", texts.play_button), "url": link()}]]}


@pytest.mark.parametrize("app", [APP, None])
async def test_every_invitation_links_to_the_mini_app_when_it_is_named(
    services: Factory, clock: FakeClock, fake_api: FakeBotAPI, bot_app: BotApp,
    app: str | None,
) -> None:
    service = await services()
    await bot_app(service, mode="polling", mini_app_name=app)
    ana, boris = people("en", "en")
    group = -random.randrange(10**9, 10**12)
    fake_api.push_update(message_update("/newtable", user_id=ana.id, chat_id=group,
                                        chat_type="supergroup", first_name="<b>&Ana"))
    invite = await fake_api.wait_for("sendMessage", to_chat(group), within=10)
    assert "parse_mode" not in invite.params and "<b>&Ana" in invite.params["text"]
    [[button]] = invite.params["reply_markup"]["inline_keyboard"]
    table_id = button["url"].split("table_", 1)[1]
    assert button["url"] == link(f"table_{table_id}", app)
    for user in (ana, boris):
        await service.seat(user, table_id, 300)

    fake_api.push_update(message_update("/tables", user_id=ana.id, chat_id=group,
                                        chat_type="supergroup"))
    listed = await fake_api.wait_for(
        "sendMessage", lambda c: to_chat(group)(c) and c is not invite, within=10)
    [[button]] = listed.params["reply_markup"]["inline_keyboard"]
    assert button["url"] == link(f"table_{table_id}", app)

    await Table(service, clock, table_id).play([ana, boris], 1)
    posted = await fake_api.wait_for(
        "sendMessage", lambda c: to_chat(group)(c)
        and c.params["text"].startswith(texts.result_header(table_id, 1)), within=5)
    assert "parse_mode" not in posted.params
    assert posted.params["reply_markup"] == {"inline_keyboard": [
        [{"text": texts.join_or_watch_button(), "url": link(f"table_{table_id}", app)}],
        [{"text": texts.watch_again_button(), "url": link(f"hand_{table_id}_1", app)}]]}

    # The ?start= fallback of "Watch again" opens that hand in the web app.
    fake_api.push_update(message_update(f"/start hand_{table_id}_1", user_id=boris.id))
    answer = await fake_api.wait_for("sendMessage", to_chat(boris.id), within=10)
    assert answer.params["text"] == texts.hand_invite(table_id, 1)
    assert answer.params["reply_markup"] == {"inline_keyboard": [[
        {"text": texts.watch_again_button(),
         "web_app": {"url": f"{PUBLIC_URL}/?hand={table_id}_1"}}]]}
