"""Named and private tables in the web app, against the real dev-mode server: the create form
(a name, "Friends only"), the invite sheet and its link, joining with the link only, a
replaced link leading back to the lobby, a refused name, and the lobby's rows with names,
free seats and faces (Telegram photos from signed initData, initials otherwise)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import aiohttp
import pytest
from playwright.async_api import Page, Route

from tests.support.browser import Contexts, check_layout, snap
from tests.support.http_player import HttpPlayer, seat_of
from tests.support.serve import DEV_TOKEN, Server
from tests.support.telegram import sign
from tests.webapp.catalogs import catalog
from tests.webapp.player import Player
from tests.webapp.tables import new_user_id

pytestmark = pytest.mark.asyncio(loop_scope="session")

PHOTO = "https://t.me/i/userpic/320/pia-photo.jpg"


def png(width: int = 8, height: int = 8, rgb: tuple[int, int, int] = (230, 120, 40)) -> bytes:
    """A small solid PNG (a stand-in for a Telegram profile photo)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0,
                                                              0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


async def serve_photos(page: Page) -> None:
    async def photo(route: Route) -> None:
        await route.fulfill(status=200, content_type="image/png", body=png())
    await page.route("https://t.me/i/userpic/**", photo)


async def as_api(http: aiohttp.ClientSession, server: Server, player: Player) -> HttpPlayer:
    """The page's own dev-mode user over the API."""
    return await HttpPlayer.login(http, server.url, player.user_id, player.name)


async def invite_link(page: Page) -> str:
    await page.wait_for_function(
        "document.querySelector('#invite-link')?.textContent.startsWith('http')")
    return await page.inner_text("#invite-link")


async def test_a_private_table_from_the_form_is_unlisted_and_joined_with_its_link_only(
    server: Server, browser: Contexts, shots: Path
) -> None:
    async with aiohttp.ClientSession() as http:
        opener = await HttpPlayer.login(http, server.url, new_user_id(), "Opener")
        public = await opener.create(ante=10, name="Open doors")
        await opener.seat(public, 100)
        ana = await Player.open(browser, server.url, "Ana Host", locale="ru-RU")
        page = ana.page
        await page.fill(".create input[name=table_name]", "  Пятница у Ани  ")
        await page.fill(".create input[name=practice_bots]", "0")
        await page.check(".create input[name=private]")
        await page.click(".create [data-action=create]")
        await page.wait_for_selector(".felt .seat.me")
        await page.wait_for_selector("#invite")  # a new private table shows its invite first
        table = page.url.split("table=")[1]
        link = await invite_link(page)
        assert link.startswith(f"{server.url}/?table={table}&invite=")
        ru = catalog("ru")
        assert await page.inner_text("#title .title-main") == "Пятница у Ани"  # trimmed
        assert await page.inner_text("#invite .invite-private") == ru["invite.private_note"]
        assert await page.locator("#invite [data-action=renew-invite]").count() == 1  # the host
        await snap(page, shots, "invite-sheet-ru")
        host = await as_api(http, server, ana)
        created = await host.view(table)
        assert (created["name"], created["private"]) == ("Пятница у Ани", True)
        assert link.endswith(created["invite"])

        boris = await Player.open(browser, server.url, "Boris Guest")
        await boris.page.wait_for_selector(f".table-row[data-table='{public}']")
        assert await boris.page.locator(f".table-row[data-table='{table}']").count() == 0
        await boris.page.goto(f"{server.url}/?table={table}")  # no invite: no such table
        await boris.page.wait_for_selector(
            f".panel >> text={catalog('en')['error.table_not_found']}")
        await boris.page.goto(link)
        await boris.page.click(".action-bar [data-action=seat]")
        await boris.page.wait_for_selector(".felt .seat.me")
        assert seat_of(await host.view(table), boris.user_id) is not None
        assert not ana.errors and not boris.errors


async def test_a_replaced_link_leads_to_the_lobby_saying_so_and_seats_nobody(
    server: Server, browser: Contexts
) -> None:
    async with aiohttp.ClientSession() as http:
        owner = await Player.open(browser, server.url, "Owner Rev")
        host = await as_api(http, server, owner)
        made = await host.ok("POST", "/api/tables", {"ante": 10, "private": True,
                                                     "name": "Closed door"})
        table, old = made["table_id"], made["invite"]
        page = owner.page
        await page.goto(f"{server.url}/?table={table}")
        await page.click("[data-action=invite]")
        assert old in await invite_link(page)
        await page.click("#invite [data-action=renew-invite]")
        await page.wait_for_function(
            f"document.querySelector('#invite-link')?.textContent.startsWith('http')"
            f" && !document.querySelector('#invite-link').textContent.includes('{old}')")
        assert await page.inner_text("#toast") == catalog("en")["invite.renewed"]
        renewed = await invite_link(page)

        carl = await Player.open(browser, server.url, "Carl Late", locale="ru-RU")
        await carl.page.goto(f"{server.url}/?table={table}&invite={old}")
        await carl.page.wait_for_function(
            "document.body.dataset.screen === 'lobby' && !location.search.includes('table')")
        assert await carl.page.inner_text("#toast") == catalog("ru")["invite.revoked"]
        carl_api = await as_api(http, server, carl)
        assert (await carl_api.me())["tables"] == []
        assert seat_of(await host.view(table), carl.user_id) is None
        await carl.page.goto(renewed)  # the new link works
        await carl.page.click(".action-bar [data-action=seat]")
        await carl.page.wait_for_selector(".felt .seat.me")
        assert not carl.errors and not owner.errors


async def test_a_refused_name_is_said_in_the_players_language_and_nothing_is_made(
    server: Server, browser: Contexts
) -> None:
    async with aiohttp.ClientSession() as http:
        dana = await Player.open(browser, server.url, "Dana Names", locale="de-DE")
        page = dana.page
        de = catalog("de")
        asked: list[str] = []
        page.on("request", lambda r: asked.append(r.method) if r.url.endswith("/api/tables")
                else None)
        await page.fill(".create input[name=table_name]", "x" * 33)
        await page.click(".create [data-action=create]")
        await page.wait_for_selector(f"#name-error >> text={de['create.name_long']}")
        assert "POST" not in asked  # too long: said before asking the server
        await page.fill(".create input[name=table_name]", "Bad\u200bname")  # a format char
        await page.click(".create [data-action=create]")
        await page.wait_for_selector(f"#name-error >> text={de['create.invalid_name']}")
        assert await page.inner_text("#toast") == de["create.invalid_name"]
        assert "POST" in asked
        me = await (await as_api(http, server, dana)).me()
        assert me["tables"] == [] and me["balance"] == 1000
        assert await page.evaluate("document.body.dataset.screen") == "lobby"
        assert not dana.errors


async def test_lobby_rows_show_the_name_free_seats_players_and_their_faces(
    server: Server, browser: Contexts, shots: Path
) -> None:
    async with aiohttp.ClientSession() as http:
        pia_id = new_user_id()
        signed = await sign(DEV_TOKEN, {"id": pia_id, "first_name": "Pia", "last_name": "Photo",
                                        "photo_url": PHOTO})
        pia = HttpPlayer(http, server.url, pia_id, name="Pia Photo", init_data=signed)
        named = await pia.create(ante=25, max_seats=4, name="Стол Пии")
        await pia.seat(named, 500)  # her photo comes with her signed initData
        yuri = await HttpPlayer.login(http, server.url, new_user_id(), "Yuri Bond")
        await yuri.seat(named, 500)
        unnamed = await yuri.create(ante=5, max_seats=3)
        await yuri.seat(unnamed, 100)
        for lang, locale in (("ru", "ru-RU"), ("ar", "ar-EG")):
            words = catalog(lang)
            viewer = await Player.open(browser, server.url, f"Viewer {lang}", locale=locale)
            page = viewer.page
            await serve_photos(page)
            await page.reload()
            row = page.locator(f".table-row[data-table='{named}']")
            await row.wait_for()
            assert await row.locator(".table-name").inner_text() == "Стол Пии"
            assert str(words["lobby.seats_free"]).format(free=2, max=4) in await row.inner_text()
            listed = await page.evaluate(f"new Intl.ListFormat('{lang}', {{type: 'conjunction'}})"
                                         ".format(['Pia Photo', 'Yuri Bond'])")
            assert await row.locator(".player-names").inner_text() == listed
            await page.wait_for_function(
                f"[...document.querySelectorAll(\".table-row[data-table='{named}'] img.avatar\")]"
                ".some((img) => img.complete && img.naturalWidth > 0)")
            assert await row.locator("img.avatar").get_attribute("src") == PHOTO
            assert await row.locator(".avatar.initials").inner_text() == "YB"
            other = page.locator(f".table-row[data-table='{unnamed}'] .table-name")
            assert await other.inner_text() == str(words["table.of_host"]).format(
                name="Yuri Bond")
            await check_layout(page, bar=False)
            await snap(page, shots, f"lobby-named-{lang}")
            await page.check(".create input[name=private]")
            await page.fill(".create input[name=table_name]", "Пятница")
            await page.evaluate("document.querySelector('.create').scrollIntoView()")
            await snap(page, shots, f"create-form-{lang}")
            assert not viewer.errors
