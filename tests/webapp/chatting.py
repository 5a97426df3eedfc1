"""People at a table for the quick chat's browser tests: signed by Telegram's own library
(tests/support/telegram.py), seated and chatting over the HTTP API, and read back from the
page (its chat's state and what the felt shows)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import aiohttp
from playwright.async_api import Page

from tests.support.browser import Contexts
from tests.support.serve import DEV_TOKEN
from tests.support.telegram import LIGHT, open_in_telegram, sign
from tests.webapp.tables import new_user_id


@dataclass
class Person:
    user_id: int
    name: str
    language: str
    init_data: str

    async def call(self, base: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        async with aiohttp.ClientSession() as http, http.request(
            method, f"{base}{path}", json=body,
            headers={"Authorization": f"tma {self.init_data}"}) as resp:
            return resp.status, await resp.json(content_type=None)

    async def ok(self, base: str, method: str, path: str, body: Any = None) -> Any:
        status, data = await self.call(base, method, path, body)
        assert 200 <= status < 300, (method, path, status, data)
        return data

    async def table(self, base: str, **settings: Any) -> str:
        data = await self.ok(base, "POST", "/api/tables",
                             {"ante": 5, "max_seats": 3, "turn_seconds": 60, **settings})
        return str(data["table_id"])

    async def sit(self, base: str, table: str) -> None:
        await self.ok(base, "POST", f"/api/tables/{table}/seat", {"buy_in": 100})

    async def say(self, base: str, table: str, **body: str) -> int:
        return int((await self.ok(base, "POST", f"/api/tables/{table}/chat", body))["seq"])

    async def open(self, browser: Contexts, base: str, table: str,
                   theme: dict[str, str] | None = None) -> Page:
        """The app at `table`, inside Telegram, once its socket is live."""
        page = await open_in_telegram(browser, f"{base}/?table={table}", self.init_data,
                                      theme=theme or LIGHT)
        await page.wait_for_selector(".felt-wrap .chat-open")
        await page.wait_for_function("document.body.dataset.connection === 'live'"
                                     " && window.svara.current?.socket?.open === true")
        return page


async def person(name: str, language: str) -> Person:
    user_id = new_user_id()
    init_data = await sign(DEV_TOKEN, {"id": user_id, "first_name": name,
                                       "language_code": language})
    return Person(user_id, name, language, init_data)


async def seqs(page: Page) -> list[int]:
    """The seqs of the messages the page's chat holds, in the order it took them."""
    found: list[int] = await page.evaluate("svara.current.chat.messages.map((m) => m.seq)")
    return found


async def until_seq(page: Page, seq: int) -> None:
    await page.wait_for_function(
        "(seq) => svara.current.chat.messages.some((m) => m.seq === seq)", arg=seq)


async def bubble_at(page: Page, seat: int) -> str | None:
    """The text of the bubble over seat `seat`, or None."""
    found: str | None = await page.evaluate(
        "(seat) => document.querySelector(`.seat[data-seat=\"${seat}\"] .bubble`)?.textContent"
        " ?? null", seat)
    return found


async def until_bubble(page: Page, seat: int, text: str) -> None:
    await page.wait_for_function(
        """([seat, text]) => document.querySelector(`.seat[data-seat="${seat}"] .bubble`)
             ?.textContent === text""", arg=[seat, text])
