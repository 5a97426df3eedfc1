"""A fake Telegram Bot API server: enough of it for aiogram to poll, answer and set webhooks.

It records every method call (name and decoded parameters) so tests can assert on what the
bot really sent over HTTP, and it can hand updates to the bot both ways Telegram does: queued
for `getUpdates` (polling) or POSTed to the webhook the bot registered.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Callable
from typing import Any

import aiohttp
import msgspec
from aiohttp import web

JSON = dict[str, Any]


class Call(msgspec.Struct, frozen=True):
    method: str  # as aiogram spells it, e.g. "sendMessage"
    params: JSON


def _decode(value: str) -> Any:
    """aiogram sends nested objects and lists as JSON strings inside the form."""
    if value[:1] in "{[":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


class FakeBotAPI:
    def __init__(self, token: str, *, username: str = "svara_test_bot") -> None:
        self.token = token
        self.bot_id = int(token.split(":", 1)[0])
        self.username = username
        self.calls: list[Call] = []
        self.webhook: JSON | None = None  # the last setWebhook parameters
        self._updates: list[JSON] = []
        self._update_ids = itertools.count(1)
        self._message_ids = itertools.count(1)
        self._chat_types: dict[int, str] = {}
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.url = ""

    # --- lifecycle ---------------------------------------------------------------------
    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        self._runner = web.AppRunner(app, shutdown_timeout=0.1)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        bound = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://{host}:{bound}"
        return self.url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    # --- what tests use ----------------------------------------------------------------
    def push_update(self, update: JSON) -> JSON:
        """Queue an update for getUpdates; it gets the next update_id."""
        update = {"update_id": next(self._update_ids), **update}
        self._remember_chat(update)
        self._updates.append(update)
        task = asyncio.get_running_loop().create_task(self._notify())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return update

    async def deliver(self, update: JSON, url: str | None = None, secret: str | None = None) -> int:
        """POST an update to the registered webhook (or `url`), as Telegram does; the status."""
        update = {"update_id": next(self._update_ids), **update}
        self._remember_chat(update)
        hook = self.webhook or {}
        target = url or hook["url"]
        token = secret if secret is not None else hook.get("secret_token", "")
        headers = {"X-Telegram-Bot-Api-Secret-Token": token} if token else {}
        async with aiohttp.ClientSession() as session, session.post(
            target, json=update, headers=headers
        ) as resp:
            await resp.read()
            return resp.status

    def calls_of(self, method: str) -> list[Call]:
        return [call for call in self.calls if call.method == method]

    async def wait_for(
        self,
        method: str,
        where: Callable[[Call], bool] = lambda _: True,
        *,
        within: float = 5.0,
    ) -> Call:
        """The first recorded call of `method` matching `where`, waiting up to `within` seconds."""

        def found() -> Call | None:
            return next((c for c in self.calls if c.method == method and where(c)), None)

        async with asyncio.timeout(within), self._changed:
            while (call := found()) is None:
                await self._changed.wait()
            return call

    # --- the server --------------------------------------------------------------------
    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def _remember_chat(self, update: JSON) -> None:
        chat = (update.get("message") or {}).get("chat")
        if chat:
            self._chat_types[chat["id"]] = chat["type"]

    async def _handle(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return _error(401, "Unauthorized")
        method = request.match_info["method"]
        params: JSON = {}
        if request.can_read_body:
            if request.content_type == "application/json":
                params = await request.json()
            else:
                params = {k: _decode(v) for k, v in (await request.post()).items()
                          if isinstance(v, str)}
        self.calls.append(Call(method, params))
        await self._notify()
        handler = getattr(self, f"_m_{method.lower()}", None)
        if handler is None:
            return _error(404, f"Not Found: method {method} is not faked")
        result = await handler(params)
        return web.json_response({"ok": True, "result": result})

    async def _m_getme(self, _: JSON) -> JSON:
        return {"id": self.bot_id, "is_bot": True, "first_name": "Svara",
                "username": self.username, "can_join_groups": True}

    async def _m_getupdates(self, params: JSON) -> list[JSON]:
        offset = int(params.get("offset", 0))
        self._updates = [u for u in self._updates if u["update_id"] >= offset]
        if not self._updates:  # long poll, but never for long in tests
            wait = min(float(params.get("timeout", 0)), 1.0)
            async with self._changed:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), wait)
        return list(self._updates)

    async def _m_sendmessage(self, params: JSON) -> JSON:
        chat_id = int(params["chat_id"])
        message: JSON = {
            "message_id": next(self._message_ids),
            "date": int(time.time()),
            "chat": {"id": chat_id, "type": self._chat_types.get(chat_id, "private")},
            "from": await self._m_getme({}),
            "text": params.get("text", ""),
        }
        if "reply_markup" in params:
            message["reply_markup"] = params["reply_markup"]
        return message

    async def _m_setwebhook(self, params: JSON) -> bool:
        self.webhook = params
        return True

    async def _m_deletewebhook(self, _: JSON) -> bool:
        self.webhook = None
        return True

    async def _m_setmycommands(self, _: JSON) -> bool:
        return True


def _error(status: int, description: str) -> web.Response:
    return web.json_response(
        {"ok": False, "error_code": status, "description": description}, status=status
    )


_ids = itertools.count(1000)


def message_update(
    text: str,
    *,
    user_id: int = 501,
    first_name: str = "Ana",
    chat_id: int | None = None,
    chat_type: str = "private",
) -> JSON:
    """An update carrying a text message (a command when it starts with '/')."""
    chat: JSON = {"id": chat_id if chat_id is not None else user_id, "type": chat_type}
    if chat_type != "private":
        chat["title"] = "Svara club"
    else:
        chat["first_name"] = first_name
    message: JSON = {
        "message_id": next(_ids),
        "date": int(time.time()),
        "chat": chat,
        "from": {"id": user_id, "is_bot": False, "first_name": first_name},
        "text": text,
    }
    if text.startswith("/"):
        length = len(text.split()[0])
        message["entities"] = [{"type": "bot_command", "offset": 0, "length": length}]
    return {"message": message}
