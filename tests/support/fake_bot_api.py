"""A fake Telegram Bot API server: enough of it for aiogram to poll, answer, edit and delete,
and to meet Telegram's refusals (429 with `retry_after`, 403 from a user who blocked the bot).

It records every method call (name, decoded parameters, time) so tests can assert on what the
bot really sent over HTTP; it keeps the chats' messages as Telegram would (sent, edited,
deleted); and it can hand updates to the bot both ways Telegram does: queued for `getUpdates`
(polling) or POSTed to the webhook the bot registered.
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

# The updates it hands the bot, built beside it; tests take them from here too.
from tests.support.bot_updates import (
    callback_update,
    inline_query_update,
    member_update,
    message_update,
    write_access_update,
)

__all__ = ["CHAT_WRITES", "Call", "FakeBotAPI", "Refusal", "callback_update",
           "inline_query_update", "member_update", "message_update", "write_access_update"]

JSON = dict[str, Any]
# What puts something in a chat: what a 429 or a 403 applies to.
CHAT_WRITES = {"sendmessage", "editmessagetext", "deletemessage"}


class Call(msgspec.Struct, frozen=True):
    method: str  # as aiogram spells it, e.g. "sendMessage"
    params: JSON
    at: float = 0.0  # time.monotonic() when it arrived
    status: int = 200  # what the fake answered
    result: Any = None  # what it answered with, when it accepted the call


class Refusal(Exception):
    def __init__(self, status: int, description: str, parameters: JSON | None = None) -> None:
        super().__init__(description)
        self.status = status
        self.description = description
        self.parameters = parameters


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
        self.messages: dict[tuple[int, int], JSON] = {}  # (chat, message id) -> as it is now
        self.deleted: list[tuple[int, int]] = []
        self.blocked: set[int] = set()  # users who blocked the bot: their chat answers 403
        self.prepared: dict[str, JSON] = {}  # prepared inline message id -> its parameters
        self._too_many: dict[int, list[int]] = {}  # chat -> [429s left, retry_after]
        self._too_many_calls: dict[str, list[int]] = {}  # method -> [429s left, retry_after]
        self.server_errors: dict[str, int] = {}  # method (lower case) -> 500s left to answer
        self._updates: list[JSON] = []
        self.polling = 0  # getUpdates being answered now
        self.most_polling = 0  # the most at once: more than one means a second poller
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
    def too_many_requests(self, chat_id: int, times: int, retry_after: int = 1) -> None:
        """The next `times` writes to `chat_id` are refused with 429 and `retry_after`."""
        self._too_many[chat_id] = [times, retry_after]

    def too_many_calls(self, method: str, times: int, retry_after: int = 1) -> None:
        """The next `times` calls of `method` (any chat or none) are refused with 429."""
        self._too_many_calls[method.lower()] = [times, retry_after]

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

    def calls_of(self, method: str, where: Callable[[Call], bool] = lambda _: True) -> list[Call]:
        return [call for call in self.calls if call.method == method and where(call)]

    def sent_to(self, chat_id: int) -> list[Call]:
        """The sendMessage calls to `chat_id` that Telegram (the fake) accepted."""
        return self.calls_of(
            "sendMessage", lambda c: int(c.params["chat_id"]) == chat_id and c.status == 200
        )

    async def wait_for(
        self,
        method: str,
        where: Callable[[Call], bool] = lambda _: True,
        *,
        within: float = 5.0,
    ) -> Call:
        """The first recorded call of `method` matching `where` that was accepted, waiting up
        to `within` seconds."""

        def found() -> Call | None:
            return next(
                (c for c in self.calls if c.method == method and c.status == 200 and where(c)),
                None,
            )

        async with asyncio.timeout(within), self._changed:
            while (call := found()) is None:
                await self._changed.wait()
            return call

    async def wait_until(self, condition: Callable[[], bool], *, within: float = 5.0) -> None:
        """Wait until `condition()` holds (checked after every call the fake records)."""
        async with asyncio.timeout(within), self._changed:
            while not condition():
                await self._changed.wait()

    # --- the server --------------------------------------------------------------------
    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def _remember_chat(self, update: JSON) -> None:
        for kind in ("message", "my_chat_member"):
            chat = (update.get(kind) or {}).get("chat")
            if chat:
                self._chat_types[chat["id"]] = chat["type"]

    async def _handle(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return _error(Refusal(401, "Unauthorized"))
        method = request.match_info["method"]
        params: JSON = {}
        if request.can_read_body:
            if request.content_type == "application/json":
                params = await request.json()
            else:
                params = {k: _decode(v) for k, v in (await request.post()).items()
                          if isinstance(v, str)}
        at = time.monotonic()
        handler = getattr(self, f"_m_{method.lower()}", None)
        try:
            if handler is None:
                raise Refusal(404, f"Not Found: method {method} is not faked")
            self._refuse_if_told(method, params)
            result = await handler(params)
        except Refusal as refusal:
            self.calls.append(Call(method, params, at, refusal.status))
            await self._notify()
            return _error(refusal)
        self.calls.append(Call(method, params, at, 200, result))
        await self._notify()
        return web.json_response({"ok": True, "result": result})

    def _refuse_if_told(self, method: str, params: JSON) -> None:
        if self.server_errors.get(method.lower(), 0) > 0:
            self.server_errors[method.lower()] -= 1
            raise Refusal(500, "Internal Server Error")
        calls = self._too_many_calls.get(method.lower())
        if calls is not None and calls[0] > 0:
            calls[0] -= 1
            raise Refusal(429, f"Too Many Requests: retry after {calls[1]}",
                          {"retry_after": calls[1]})
        if method.lower() not in CHAT_WRITES or "chat_id" not in params:
            return
        chat_id = int(params["chat_id"])
        if chat_id in self.blocked:
            raise Refusal(403, "Forbidden: bot was blocked by the user")
        left = self._too_many.get(chat_id)
        if left is not None and left[0] > 0:
            left[0] -= 1
            raise Refusal(429, f"Too Many Requests: retry after {left[1]}",
                          {"retry_after": left[1]})

    async def _m_getme(self, _: JSON) -> JSON:
        return {"id": self.bot_id, "is_bot": True, "first_name": "Svara",
                "username": self.username, "can_join_groups": True}

    async def _m_getupdates(self, params: JSON) -> list[JSON]:
        offset = int(params.get("offset", 0))
        self._updates = [u for u in self._updates if u["update_id"] >= offset]
        self.polling += 1
        self.most_polling = max(self.most_polling, self.polling)
        try:
            if not self._updates:  # long poll, but never for long in tests
                wait = min(float(params.get("timeout", 0)), 1.0)
                async with self._changed:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._changed.wait(), wait)
        finally:
            self.polling -= 1
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
        self.messages[(chat_id, message["message_id"])] = message
        return message

    async def _m_editmessagetext(self, params: JSON) -> JSON:
        key = (int(params["chat_id"]), int(params["message_id"]))
        message = self.messages.get(key)
        if message is None:
            raise Refusal(400, "Bad Request: message to edit not found")
        edited = {**message, "text": params.get("text", ""), "edit_date": int(time.time())}
        edited.pop("reply_markup", None)
        if "reply_markup" in params:
            edited["reply_markup"] = params["reply_markup"]
        if (edited["text"], edited.get("reply_markup")) == (
            message["text"], message.get("reply_markup")
        ):
            raise Refusal(400, "Bad Request: message is not modified")
        self.messages[key] = edited
        return edited

    async def _m_deletemessage(self, params: JSON) -> bool:
        key = (int(params["chat_id"]), int(params["message_id"]))
        if self.messages.pop(key, None) is None:
            raise Refusal(400, "Bad Request: message to delete not found")
        self.deleted.append(key)
        return True

    async def _m_answercallbackquery(self, _: JSON) -> bool:
        return True

    async def _m_setwebhook(self, params: JSON) -> bool:
        self.webhook = params
        return True

    async def _m_deletewebhook(self, _: JSON) -> bool:
        self.webhook = None
        return True

    async def _m_setmycommands(self, _: JSON) -> bool:
        return True

    async def _m_setchatmenubutton(self, _: JSON) -> bool:
        return True

    async def _m_answerinlinequery(self, params: JSON) -> bool:
        if not isinstance(params.get("results"), list):
            raise Refusal(400, "Bad Request: results must be a list")
        return True

    async def _m_savepreparedinlinemessage(self, params: JSON) -> JSON:
        """Bot API 8.0: kept for one user for a day (Telegram's own lifetime of them)."""
        result = params.get("result")
        if not isinstance(result, dict) or "user_id" not in params:
            raise Refusal(400, "Bad Request: user_id and result are required")
        for row in (result.get("reply_markup") or {}).get("inline_keyboard", []):
            if any("web_app" in button for button in row):  # Telegram refuses them inline
                raise Refusal(400, "Bad Request: BUTTON_TYPE_INVALID")
        prepared = f"prep{next(self._message_ids)}"
        self.prepared[prepared] = params
        return {"id": prepared, "expiration_date": int(time.time()) + 86_400}


def _error(refusal: Refusal) -> web.Response:
    body: JSON = {"ok": False, "error_code": refusal.status, "description": refusal.description}
    if refusal.parameters:
        body["parameters"] = refusal.parameters
    return web.json_response(body, status=refusal.status)
