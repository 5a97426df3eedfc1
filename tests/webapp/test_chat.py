"""The quick chat and "away" in Chromium, inside Telegram's real script: two `svara serve`
processes sharing one Redis (two replicas), a Russian viewer on one and an English one on
the other; each sees a phrase in their own language, a dropped socket resumes without
repeats or gaps, the rate limit shows and turns the buttons off, a mute hides a player and
lasts across a reload, a spectator has no phrase buttons, and Telegram's `deactivated`
shows the player away to the other."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.browser import Contexts
from tests.support.redis import REDIS_TEST_URL, fresh_id
from tests.support.serve import APP_ENV, DEV_TOKEN, Server
from tests.support.telegram import receive
from tests.webapp.chatting import bubble_at, person, seqs, until_bubble, until_seq

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.redis]


@pytest.fixture(scope="module")
def replicas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Server]]:
    env = {"DEV_TOKEN": DEV_TOKEN, "REDIS_URL": REDIS_TEST_URL,
           "SVARA_NAMESPACE": f"chatui{fresh_id()}"}
    logs = tmp_path_factory.mktemp("replicas")
    started: list[Server] = []
    try:
        for name in ("a", "b"):
            server = Server({**APP_ENV, **env}, log=logs / f"{name}.log").spawn()
            started.append(server)
            server.wait_ready()
        yield started[0], started[1]
    finally:
        for server in started:
            server.stop()


async def test_a_phrase_reaches_each_viewer_in_their_language_and_resumes_without_repeats(
    replicas: tuple[Server, Server], browser: Contexts
) -> None:
    a, b = replicas
    ana, bob = await person("Аня", "ru"), await person("Bob", "en")
    table = await ana.table(a.url)
    await ana.sit(a.url, table)
    await bob.sit(b.url, table)
    ana_page = await ana.open(browser, a.url, table)  # on one replica
    bob_page = await bob.open(browser, b.url, table)  # on the other
    await ana_page.click(".chat-open")
    await ana_page.click("#chat-phrases [data-phrase=good_luck]")
    await until_bubble(ana_page, 0, "Удачи!")
    await until_bubble(bob_page, 0, "Good luck!")
    await bob_page.click(".chat-open")
    await bob_page.click("[data-action=chat-log]")
    line = bob_page.locator("#chat-lines .chat-line").first
    assert await line.locator(".chat-who").text_content() == "Аня"
    assert await line.locator(".chat-said").text_content() == "Good luck!"
    await bob_page.click("#chat-log [data-action=close]")

    # Bob's socket is gone while Ana says two more things; back, he has each of them once.
    await bob_page.context.set_offline(True)
    await bob_page.wait_for_function("window.svara.current.socket.ws === null")
    await ana.say(a.url, table, reaction="fire")
    last = await ana.say(a.url, table, phrase="wow")
    await bob_page.context.set_offline(False)
    await until_seq(bob_page, last)
    assert await seqs(bob_page) == [1, 2, 3]
    assert await seqs(ana_page) == [1, 2, 3]
    await until_bubble(bob_page, 0, "Wow!")
    assert ana_page.errors == [] and bob_page.errors == []  # type: ignore[attr-defined]


async def test_the_rate_limit_is_shown_and_holds_the_buttons(
    replicas: tuple[Server, Server], browser: Contexts
) -> None:
    a, b = replicas
    ana, bob = await person("Аня", "ru"), await person("Bob", "en")
    table = await ana.table(a.url)
    await ana.sit(a.url, table)
    await bob.sit(b.url, table)
    page = await ana.open(browser, a.url, table)
    for _ in range(3):  # the burst, spent over the API on the other replica
        await ana.say(b.url, table, reaction="clap")
    await page.click(".chat-open")
    await page.click("#chat-reactions [data-reaction=heart]")
    await page.wait_for_selector("#toast:not([hidden]) >> text=Слишком много сообщений")
    assert await page.is_disabled(".chat-open")
    await page.wait_for_selector(".chat-open:not([disabled])", timeout=5000)  # retry_after
    await page.click(".chat-open")
    await page.click("#chat-reactions [data-reaction=heart]")
    await until_bubble(page, 0, "❤️")


async def test_a_spectator_sends_reactions_only(
    replicas: tuple[Server, Server], browser: Contexts
) -> None:
    a, b = replicas
    ana, fan = await person("Ana", "en"), await person("Фан", "ru")
    table = await ana.table(a.url)
    await ana.sit(a.url, table)
    ana_page = await ana.open(browser, a.url, table)
    fan_page = await fan.open(browser, b.url, table)
    await fan_page.click(".chat-open")
    await fan_page.wait_for_selector("#chat-spectator")
    assert await fan_page.locator("#chat-phrases, [data-phrase]").count() == 0
    assert await fan_page.locator("#chat-reactions [data-reaction]").count() == 8
    await fan_page.click("#chat-reactions [data-reaction=laugh]")
    await until_seq(ana_page, 1)
    await ana_page.click(".chat-open")
    await ana_page.click("[data-action=chat-log]")
    line = ana_page.locator("#chat-lines .chat-line").first
    assert await line.locator(".chat-who").text_content() == "Фан"
    assert await line.locator(".chat-said").text_content() == "😂"
    # the server agrees: a spectator's phrase is refused
    status, body = await fan.call(a.url, "POST", f"/api/tables/{table}/chat", {"phrase": "gg"})
    assert (status, body["error"]["code"]) == (403, "not_seated")


async def test_a_mute_hides_a_player_and_lasts_across_a_reload(
    replicas: tuple[Server, Server], browser: Contexts
) -> None:
    a, b = replicas
    ana, bob = await person("Ana", "en"), await person("Боб", "ru")
    table = await ana.table(a.url)
    await ana.sit(a.url, table)
    await bob.sit(b.url, table)
    page = await bob.open(browser, b.url, table)
    first = await ana.say(a.url, table, phrase="hello")
    await until_bubble(page, 0, "Привет!")
    await page.click(".chat-open")
    await page.click("[data-action=chat-log]")
    await page.click(f"#chat-lines [data-mute='{ana.user_id}']")
    await page.wait_for_selector(f"#chat-muted [data-unmute='{ana.user_id}']")
    assert await page.locator("#chat-lines .chat-line").count() == 0  # her line is hidden
    await page.click("#chat-log [data-action=close]")
    assert await bubble_at(page, 0) is None  # and her bubble

    await page.reload()
    await page.wait_for_selector(".felt-wrap .chat-open")
    await page.wait_for_function("window.svara.current?.socket?.open === true")
    await until_seq(page, first)  # the kept messages came back with the resume ...
    muted = await ana.say(a.url, table, phrase="gg")
    await until_seq(page, muted)
    assert await bubble_at(page, 0) is None  # ... and the mute lasted
    await page.click(".chat-open")
    await page.click("[data-action=chat-log]")
    assert await page.locator("#chat-lines .chat-line").count() == 0
    await page.click(f"#chat-muted [data-unmute='{ana.user_id}']")  # unmute from the log
    await page.wait_for_selector("#chat-lines .chat-line")
    await page.click("#chat-log [data-action=close]")
    await ana.say(a.url, table, reaction="cool")
    await until_bubble(page, 0, "😎")


async def test_deactivated_shows_the_player_away_to_the_other(
    replicas: tuple[Server, Server], browser: Contexts
) -> None:
    a, b = replicas
    ana, bob = await person("Ana", "en"), await person("Боб", "ru")
    table = await ana.table(a.url)
    await ana.sit(a.url, table)
    await bob.sit(b.url, table)
    ana_page = await ana.open(browser, a.url, table)
    bob_page = await bob.open(browser, b.url, table)
    away = ".seat[data-seat='0'] .tag.away"
    await bob_page.wait_for_selector(".seat[data-seat='0']:not(.away)")
    # Telegram minimised Ana's app: it tells the page so, and its script says `deactivated`
    await receive(ana_page, "visibility_changed", {"is_visible": False})
    await bob_page.wait_for_selector(f"{away} >> text=Нет на месте")
    assert await ana_page.locator(".tag.away").count() == 0  # nobody is away to herself
    await receive(ana_page, "visibility_changed", {"is_visible": True})  # `activated`
    await bob_page.wait_for_selector(away, state="detached")
    await ana_page.close()  # the socket is gone: away too
    await bob_page.wait_for_selector(away)

