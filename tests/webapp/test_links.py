"""Links into the web app (docs/WEBAPP.md, "Links, sharing and downloads"): js/links.js's
strict reading of every start_param and query form; a hand's link opening that hand through
Telegram's launch parameters (Telegram's own script, tests/support/telegram.py); a private
table's link whose invite reaches the view and the seat; malformed links giving the lobby
and a message in the player's language (en, ru) and nothing of theirs on the page. In a
plain browser: a hand's link, sharing it without Telegram (the clipboard) and saving its
transcript.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from playwright.async_api import Page

from tests.support.browser import Contexts
from tests.support.http_player import HttpPlayer
from tests.support.serve import DEV_TOKEN, REPO, Server
from tests.support.telegram import open_in_telegram, receive, sign, wait_sent
from tests.webapp.tables import new_user_id, play_hands

# The browser (a session fixture) lives in the session's event loop.
pytestmark = pytest.mark.asyncio(loop_scope="session")



def catalog(lang: str) -> dict[str, Any]:
    path = REPO / "service" / "api" / "static" / "i18n" / f"{lang}.json"
    return dict(json.loads(path.read_text(encoding="utf-8")))


T = {"kind": "table"}
BAD = {"kind": "bad"}
START_CASES: list[tuple[Any, Any]] = [
    ("table_ab12", {**T, "id": "ab12", "invite": None}),
    ("table_ab12_Inv-_x9", {**T, "id": "ab12", "invite": "Inv-_x9"}),
    ("hand_ab-12_7", {"kind": "hand", "id": "ab-12", "hand": 7}),
    ("hand_ab12_123456789", {"kind": "hand", "id": "ab12", "hand": 123456789}),
    ("tournament_t1", {"kind": "tournament", "id": "t1"}),
    ("", None), (None, None),
    *[(bad, BAD) for bad in [
        "hand_ab12_0", "hand_ab12_07", "hand_ab12", "hand_ab12_1234567890", "hand__3",
        "table_", "table_<b>", "table_a b", "table_ab12_", "table_" + "a" * 33,
        "table_ab_" + "i" * 25, "tournament_a_b", "tournament_", "x", "TABLE_ab",
        "table_ab12\n", " hand_ab_1", "hand_ab12_1#x"]],
]
QUERY_CASES: list[tuple[str, Any]] = [
    ("?table=ab_12", {**T, "id": "ab_12", "invite": None, "screenHand": None}),
    ("?table=ab&invite=Inv-_9", {**T, "id": "ab", "invite": "Inv-_9", "screenHand": None}),
    ("?table=ab&screen=audit&hand=4", {**T, "id": "ab", "invite": None, "screenHand": 4}),
    ("?hand=ab12_3", {"kind": "hand", "id": "ab12", "hand": 3}),
    ("?hand=a_b_3", {"kind": "hand", "id": "a_b", "hand": 3}),
    ("?tournament=t-1", {"kind": "tournament", "id": "t-1"}),
    ("", None), ("?screen=rules", None),
    *[(bad, BAD) for bad in [
        "?hand=ab12", "?hand=ab12_0", "?hand=_3", "?invite=abc", "?table=%3Cb%3E",
        "?table=", "?table=a&hand=x", "?table=a&table=b", "?table=a&invite=a%20b",
        "?tournament=t&table=a", "?tournament=a_b", "?hand=ab_1&hand=cd_2"]],
]

LINKS_JS = """async ([starts, queries]) => {
  const links = await import("/js/links.js");
  return {
    starts: starts.map(([param]) => links.parseStartParam(param)),
    queries: queries.map(([query]) => links.parseQuery(query)),
    queryFirst: links.requestedLink("?table=q1", ["table_s1"]),
    startAfterEmpty: links.requestedLink("", [undefined, "", "hand_s1_2"]),
    backToQuery: ["table_ab12_Inv9", "hand_ab12_3", "tournament_t1"].map(
      (p) => links.linkQuery(links.parseStartParam(p))),
  };
}"""


async def test_links_js_reads_every_form_strictly(server: Server, browser: Contexts) -> None:
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto(f"{server.url}/?screen=rules")
    got = await page.evaluate(LINKS_JS, [START_CASES, QUERY_CASES])
    for (param, expected), parsed in zip(START_CASES, got["starts"], strict=True):
        assert parsed == expected, param
    for (query, expected), parsed in zip(QUERY_CASES, got["queries"], strict=True):
        assert parsed == expected, query
    assert got["queryFirst"]["id"] == "q1"
    assert got["startAfterEmpty"] == {"kind": "hand", "id": "s1", "hand": 2}
    assert got["backToQuery"] == ["?table=ab12&invite=Inv9", "?hand=ab12_3", "?tournament=t1"]


async def settled_table(server: Server, http: aiohttp.ClientSession, hands: int = 1,
                        ) -> tuple[str, HttpPlayer, HttpPlayer]:
    """A table where Ana and Boris (over the API) have settled `hands` hands."""
    ana = await HttpPlayer.login(http, server.url, new_user_id(), "Ana")
    boris = await HttpPlayer.login(http, server.url, new_user_id(), "Boris")
    table = await ana.create(ante=5, max_seats=2, next_hand_seconds=0)
    await ana.seat(table, 200)
    await boris.seat(table, 200)
    await play_hands(table, [ana, boris], hands)
    return table, ana, boris


async def test_a_hands_start_param_opens_that_hand_and_back_leads_to_the_lobby(
    server: Server, browser: Contexts
) -> None:
    async with aiohttp.ClientSession() as http:
        table, ana, _ = await settled_table(server, http)
    # Telegram puts the link's payload in the signed initData's start_param.
    init_data = await sign(DEV_TOKEN, {"id": ana.user_id, "first_name": "Ana"},
                           start_param=f"hand_{table}_1")
    page = await open_in_telegram(browser, f"{server.url}/", init_data)
    await page.wait_for_function(
        f"document.body.dataset.screen === 'replay' && svara.current.tableId === '{table}'"
        " && svara.current.hand === 1")  # the replayer
    await page.wait_for_selector("#replay #steps li")
    assert "hand=1" in page.url and f"table={table}" in page.url
    await wait_sent(page, "web_app_setup_back_button", {"is_visible": True})
    await receive(page, "back_button_pressed")
    await page.wait_for_selector("#balance")  # the lobby, under the hand it opened
    assert not page.errors  # type: ignore[attr-defined]


async def test_a_private_tables_link_carries_its_invite_to_the_view_and_the_seat(
    server: Server, browser: Contexts
) -> None:
    async with aiohttp.ClientSession() as http:
        host = await HttpPlayer.login(http, server.url, new_user_id(), "Host")
        made = await host.ok("POST", "/api/tables", {"ante": 5, "max_seats": 3, "private": True})
        table, invite = made["table_id"], made["invite"]
        await host.seat(table, 100)
    guest = {"id": new_user_id(), "first_name": "Gala"}
    init_data = await sign(DEV_TOKEN, guest, start_param=f"table_{table}_{invite}")
    page = await open_in_telegram(browser, f"{server.url}/", init_data)
    seats: list[Any] = []
    page.on("request", lambda r: seats.append(r.post_data_json)
            if r.method == "POST" and r.url.endswith(f"/api/tables/{table}/seat") else None)
    await page.wait_for_selector(".action-bar [data-action=seat]")  # a stranger with the link
    assert f"invite={invite}" in page.url  # the page's own address now, for a reload
    await page.click(".action-bar [data-action=seat]")
    await page.wait_for_selector(".felt .seat.me >> text=Gala")
    assert seats and seats[0]["invite"] == invite
    assert not page.errors  # type: ignore[attr-defined]


MALFORMED = ["hand_abc_0", "table_<img src=x onerror=window.pwned=1>", "tournament_a_b",
             "hand_x"]


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_a_malformed_link_is_the_lobby_with_a_message_in_the_players_language(
    server: Server, browser: Contexts, lang: str
) -> None:
    message = catalog(lang)["links.bad"]
    user = {"id": new_user_id(), "first_name": "Mal", "language_code": lang}
    for payload in MALFORMED:
        init_data = await sign(DEV_TOKEN, user, start_param=payload)
        page = await open_in_telegram(browser, f"{server.url}/", init_data)
        await expect_lobby_and_message(page, message, payload)
    for query in ["?hand=nope", "?invite=abc", "?table=%3Cb%3Ex", "?hand=ab_0"]:
        init_data = await sign(DEV_TOKEN, user)
        page = await open_in_telegram(browser, f"{server.url}/{query}", init_data)
        await expect_lobby_and_message(page, message, query)


async def expect_lobby_and_message(page: Page, message: str, link: str) -> None:
    await page.wait_for_selector("#balance")
    await page.wait_for_function("(m) => document.getElementById('toast').textContent === m"
                                 " && !document.getElementById('toast').hidden", arg=message)
    assert await page.evaluate("document.body.dataset.screen") == "lobby", link
    assert "?" not in page.url.split("#")[0], link  # the link is gone from the address
    # nothing the link carried became markup (the lobby's own faces are <img> too)
    assert await page.locator("img[onerror], img[src='x'], b").count() == 0, link
    assert not await page.evaluate("window.pwned"), link
    assert not page.errors, link  # type: ignore[attr-defined]
    await page.context.close()


async def dev_page(browser: Contexts, server: Server, user: HttpPlayer, query: str,
                   **options: Any) -> Page:
    """A plain browser (no Telegram) where `user` has logged in on this device before."""
    context = await browser.new_context(viewport={"width": 390, "height": 844}, **options)
    who = json.dumps({"id": user.user_id, "name": user.name})
    await context.add_init_script(f"localStorage.setItem('svara.devUser', {json.dumps(who)})")
    page = await context.new_page()
    page.set_default_timeout(10_000)
    await page.goto(f"{server.url}/{query}")
    return page


async def test_in_a_plain_browser_a_hand_link_opens_it_share_copies_and_the_transcript_saves(
    server: Server, browser: Contexts, tmp_path: Path
) -> None:
    async with aiohttp.ClientSession() as http:
        table, ana, _ = await settled_table(server, http)
        status, refused = await ana.call("POST", "/api/share",
                                         {"kind": "hand", "table_id": table, "hand": 1})
        async with http.get(f"{server.url}/api/tables/{table}/hands/1/transcript",
                            headers={"Authorization": f"tma {ana.init_data}"}) as resp:
            transcript = await resp.text()
    assert status == 503 and refused["error"]["code"] == "bot_unavailable"  # dev mode
    page = await dev_page(browser, server, ana, f"?hand={table}_1",
                          permissions=["clipboard-read", "clipboard-write"])
    await page.wait_for_selector("#replay #steps li")  # a hand's link opens the replayer
    await page.goto(f"{server.url}/?table={table}&screen=audit&hand=1")
    await page.wait_for_selector("#audit[data-verified=true]")
    await page.click("#share")  # no bot here: the link itself, to the clipboard
    await page.wait_for_function("(m) => document.getElementById('toast').textContent === m",
                                 arg=catalog("en")["share.copied"])
    copied = await page.evaluate("navigator.clipboard.readText()")
    assert copied == f"{server.url}/?hand={table}_1"
    async with page.expect_download() as info:
        await page.click("#download-transcript")
    download = await info.value
    assert download.suggested_filename == f"svara-{table}-hand-1.txt"
    saved = await asyncio.to_thread(Path(await download.path()).read_text, encoding="utf-8")
    assert saved == transcript and "Ana" in saved
