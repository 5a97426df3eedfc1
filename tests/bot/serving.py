"""`svara serve` replicas of one deployment on the real Redis, with the bot talking to the
fake Bot API, and what the end-to-end bot tests do with them: players through the public HTTP
API, Telegram (the fake) handing updates to whichever replica takes them (webhook or polling),
and the servers' own metrics to see what they decided."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp

from service.bot import texts
from service.bot.config import WEBHOOK_PATH, webhook_secret
from tests.bot.botkit import TOKEN, free_port, say
from tests.support.fake_bot_api import Call, FakeBotAPI, message_update
from tests.support.http_player import HttpPlayer
from tests.support.serve import APP_ENV, Server

PUBLIC = "https://svara.example"
JSON = dict[str, Any]


class Deployment:
    """`svara serve` replicas of one deployment (one namespace on the shared Redis)."""

    def __init__(self, tmp: Path, fake: FakeBotAPI, redis_url: str, namespace: str) -> None:
        self.tmp = tmp
        self.fake = fake
        self.env = {
            "REDIS_URL": redis_url, "SVARA_NAMESPACE": namespace, "BOT_TOKEN": TOKEN,
            "BOT_MODE": "webhook", "TELEGRAM_API_URL": fake.url, "PUBLIC_URL": PUBLIC,
            "RATE_LIMIT_PER_SECOND": "500", "RATE_LIMIT_BURST": "1000", "LOG_LEVEL": "INFO",
        }
        self.servers: list[Server] = []
        self.modes: dict[int, str] = {}  # port -> BOT_MODE

    async def start(self, mode: str = "webhook") -> Server:
        """A replica with `BOT_MODE=mode`: `webhook`, `polling` (one per deployment: the fake,
        like Telegram, hands each update to one getUpdates) or `off`."""
        calls = len(self.fake.calls)
        port = free_port()
        server = Server({**APP_ENV, **self.env, "BOT_MODE": mode}, port,
                        log=self.tmp / f"serve-{len(self.servers)}.log").spawn()
        self.servers.append(server)
        self.modes[server.port] = mode
        # Importing aiogram alone takes 10 s on a loaded machine.
        await asyncio.to_thread(server.wait_ready, 60)
        # Ours, not another checkout's server on the same port: our process printed that it
        # serves there, and one taking updates called our fake Telegram for them.
        banner = f"svara: serving on {server.url}/"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while banner not in server.log.read_text():
            assert loop.time() < deadline, server.log.read_text()[-2000:]
            await asyncio.sleep(0.05)
        first = {"webhook": "setWebhook", "polling": "getUpdates"}.get(mode)
        if first is not None:
            await self.fake.wait_until(
                lambda: any(c.method == first for c in self.fake.calls[calls:]), within=30)
        await asyncio.to_thread(server.wait_ready, 30)
        assert server.running(), server.log.read_text()[-2000:]
        return server

    async def tell(self, server: Server, update: JSON) -> None:
        """Telegram delivers `update` to this replica: POSTed to its webhook, or queued for
        its getUpdates."""
        mode = self.modes[server.port]
        assert mode != "off", "a replica with BOT_MODE=off takes no updates"
        if mode == "polling":
            self.fake.push_update(update)
            return
        status = await self.fake.deliver(update, url=server.url + WEBHOOK_PATH,
                                         secret=webhook_secret(TOKEN))
        assert status == 200

    async def start_bot(self, server: Server, player: HttpPlayer, language: str) -> None:
        await self.tell(server, message_update("/start", user_id=player.user_id,
                                               first_name=player.name, language_code=language))
        await self.fake.wait_for("sendMessage", to_chat(player.user_id), within=15)

    def stop(self) -> list[int]:
        return [s.stop() for s in self.servers if s.running()]


def to_chat(chat_id: int) -> Callable[[Call], bool]:
    return lambda call: str(call.params["chat_id"]) == str(chat_id)


def is_ping(call: Call, table_id: str) -> bool:
    markup = str(call.params.get("reply_markup", ""))
    return f"?table={table_id}" in markup and "sitin" not in markup


def pings(fake: FakeBotAPI, player: HttpPlayer, table_id: str) -> list[Call]:
    return [c for c in fake.sent_to(player.user_id) if is_ping(c, table_id)]


def players(session: aiohttp.ClientSession, server: Server, names: list[str]) -> list[HttpPlayer]:
    base = int(uuid.uuid4().int % 10**11) + 10**12  # fresh wallets on the shared Redis
    return [HttpPlayer(session, server.url, base + i, TOKEN, name) for i, name in enumerate(names)]


async def open_table(owner: HttpPlayer, seated: list[HttpPlayer], **settings: Any) -> str:
    status, body = await owner.call("POST", "/api/tables", {"ante": 10, **settings})
    assert status == 201, body
    table_id = str(body["table_id"])
    for player in seated:
        await player.ok("POST", f"/api/tables/{table_id}/seat", {"buy_in": 300})
    return table_id


async def turn_of(player: HttpPlayer, table_id: str) -> tuple[int | None, JSON]:
    """The user whose turn it is now (None between turns) and the view."""
    view = await player.view(table_id)
    hand = view["hand"]
    if hand is None or hand["phase"] not in ("blind", "betting") or hand["turn"] is None:
        return None, view
    seat = next(s for s in view["seats"] if s["seat"] == hand["turn"])
    return int(seat["user_id"]), view


async def move(player: HttpPlayer, table_id: str) -> None:
    view = await player.view(table_id)
    legal = {a["type"]: a for a in view["you"]["legal"]}
    for kind in ("pass", "call", "raise", "fold"):
        if kind in legal:
            amount = legal[kind].get("min") if kind == "raise" else None
            status, body = await player.act(table_id, kind, amount,
                                            expected_version=view["version"])
            assert status in (200, 409), body  # 409: the timer moved first
            return


def ping_text(language: str, table_id: str, pot: int, text: str) -> bool:
    """Is `text` this table's ping in `language` (the seconds left are whatever they were)?"""
    seconds = re.findall(r"\d+", text)
    return any(text == say(language, texts.your_turn, table_id, pot, int(n)) for n in seconds)


async def ping_decisions(session: aiohttp.ClientSession, server: Server) -> dict[str, float]:
    """The server's `svara_bot_pings_total` by outcome (what it decided about each turn)."""
    async with session.get(f"{server.url}/metrics") as resp:
        text = await resp.text()
    found = re.findall(r'^svara_bot_pings_total\{outcome="(\w+)"\} ([0-9.e+]+)$', text, re.M)
    return {outcome: float(value) for outcome, value in found}


async def decided(session: aiohttp.ClientSession, server: Server, outcome: str,
                  at_least: int) -> None:
    """Wait until the server has decided `outcome` for `at_least` turns: the proof that it
    looked at a turn and sent nothing, instead of a sleep that hopes nothing comes."""
    async with asyncio.timeout(10):
        while True:
            if (await ping_decisions(session, server)).get(outcome, 0) >= at_least:
                return
            await asyncio.sleep(0.05)


