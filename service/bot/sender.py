"""One sender per process: every Bot API call goes through it (an aiogram request middleware
on the bot's session), so handler replies and notifications share Telegram's limits.

Calls that put something in a chat (send, edit, delete, copy, forward) are paced:
- at most one per `per_chat_interval` seconds per chat (Telegram: about 1 message/s);
- at most `group_limit` per `group_window` seconds per group (20 per minute);
- at most `overall_limit` per `overall_window` seconds in all (30 per second).
Calls to one chat leave in the order they were made (a FIFO lock per chat); a chat that is
waiting holds up no other chat.

Failures:
- `429` (`TelegramRetryAfter`): the chat waits `retry_after` seconds and the same call is
  sent again, as often as Telegram asks -- so it is delivered once, never dropped, never twice
  (a 429 means Telegram did not take it).
- `403` (`TelegramForbiddenError`) in a private chat: the user blocked the bot; `on_blocked`
  hooks are told (the bot records it in the player's profile) and the error goes to the caller.
- A network or server error is retried (with backoff, `retries` times) only where sending again
  cannot show anything twice: a connection that was never made, or an edit/delete/answer.
  A send whose request may have reached Telegram is not repeated; the caller gets the error.

Hooks for metrics: `on_sent(method, chat_id)` per call Telegram accepted, `on_retry_after(
method, chat_id, seconds)` per 429, `on_blocked(user_id)` per 403 in a private chat; `method`
is the Bot API's name (`sendMessage`). With service/metrics.py (ops) they wire as
`sender.on_sent.append(lambda m, _: metrics.bot_message_sent(m))` and
`sender.on_retry_after.append(lambda m, _c, _s: metrics.bot_message_rate_limited(m))`.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from aiogram import Bot
from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.exceptions import (
    TelegramForbiddenError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.methods import Response, TelegramMethod
from aiogram.methods.base import TelegramType

log = logging.getLogger(__name__)

# What puts something into a chat (and so counts against its limits).
_PACED_PREFIXES = ("Send", "Edit", "Delete", "Copy", "Forward")
# Sent twice, these show nothing twice.
_IDEMPOTENT_PREFIXES = ("Edit", "Delete", "Answer", "Set", "Get")


class Limits(msgspec.Struct, frozen=True, kw_only=True):
    per_chat_interval: float = 1.0
    group_limit: int = 20
    group_window: float = 60.0
    overall_limit: int = 30
    overall_window: float = 1.0
    retries: int = 5  # network/server errors, where sending again is safe
    backoff: float = 0.5  # seconds, doubled per retry


def chat_of(method: TelegramMethod[Any]) -> int | None:
    """The chat a paced call writes to; None for calls that are not paced."""
    if not type(method).__name__.startswith(_PACED_PREFIXES):
        return None
    chat = getattr(method, "chat_id", None)
    if isinstance(chat, int):
        return chat
    if isinstance(chat, str) and chat.lstrip("-").isdigit():
        return int(chat)
    return None  # an @username or an inline message: Telegram paces those itself


def _never_sent(error: TelegramNetworkError) -> bool:
    """aiogram names the aiohttp error: a connector error means no request left."""
    return error.message.startswith(("ClientConnectorError", "ClientConnectorDNSError"))


BlockedHook = Callable[[int], Awaitable[object] | object]


class Sender(BaseRequestMiddleware):
    def __init__(
        self,
        limits: Limits | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.limits = limits or Limits()
        self.clock = clock
        self.sleep = sleep
        self.on_sent: list[Callable[[str, int | None], None]] = []
        self.on_retry_after: list[Callable[[str, int | None, float], None]] = []
        self.on_blocked: list[BlockedHook] = []
        self._locks: dict[int, tuple[asyncio.Lock, list[int]]] = {}  # chat -> lock, users
        self._next: dict[int, float] = {}  # chat -> earliest time of its next call
        self._groups: dict[int, deque[float]] = {}  # group chat -> its recent call times
        self._overall: deque[float] = deque()

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        chat = chat_of(method)
        if chat is None:
            return await self._deliver(make_request, bot, method, None)
        lock, users = self._locks.setdefault(chat, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                return await self._deliver(make_request, bot, method, chat)
        finally:
            users[0] -= 1
            if users[0] == 0:
                del self._locks[chat]
                self._forget_idle()

    async def _deliver(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
        chat: int | None,
    ) -> Response[TelegramType]:
        name = type(method).__name__
        api_name: str = getattr(method, "__api_method__", name)
        failures = 0
        while True:
            if chat is not None:
                await self._take_slot(chat)
            try:
                response = await make_request(bot, method)
            except TelegramRetryAfter as exc:
                log.info("Telegram asks to wait %s s (chat %s)", exc.retry_after, chat)
                for hook in self.on_retry_after:
                    hook(api_name, chat, exc.retry_after)
                if chat is not None:
                    self._hold(chat, exc.retry_after)
                else:
                    await self.sleep(exc.retry_after)
                continue
            except TelegramForbiddenError:
                if chat is not None and chat > 0:
                    await self._blocked(chat)
                raise
            except (TelegramNetworkError, TelegramServerError) as exc:
                safe = name.startswith(_IDEMPOTENT_PREFIXES) or (
                    isinstance(exc, TelegramNetworkError) and _never_sent(exc)
                )
                failures += 1
                if not safe or failures > self.limits.retries:
                    raise
                await self.sleep(self.limits.backoff * 2 ** (failures - 1))
                continue
            for sent in self.on_sent:
                sent(api_name, chat)
            return response

    # -- pacing -------------------------------------------------------------------------------

    def wait_for(self, chat: int, now: float) -> float:
        """Seconds until a call to `chat` may leave (0: now)."""
        limits = self.limits
        wait = self._next.get(chat, now) - now
        if chat < 0:
            recent = self._groups.get(chat)
            if recent is not None:
                # `t + window <= now`, the very sum the wait is computed from: a float
                # rounded the other way must not let a call through with the window full.
                while recent and recent[0] + limits.group_window <= now:
                    recent.popleft()
                if len(recent) >= limits.group_limit:
                    wait = max(wait, recent[0] + limits.group_window - now)
        overall = self._overall
        while overall and overall[0] + limits.overall_window <= now:
            overall.popleft()
        if len(overall) >= limits.overall_limit:
            wait = max(wait, overall[0] + limits.overall_window - now)
        return max(0.0, wait)

    async def _take_slot(self, chat: int) -> None:
        while (wait := self.wait_for(chat, self.clock())) > 0:
            await self.sleep(wait)
        # No await between the check and the booking: nobody else can take this slot.
        now = self.clock()
        self._next[chat] = now + self.limits.per_chat_interval
        if chat < 0:
            self._groups.setdefault(chat, deque()).append(now)
        self._overall.append(now)

    def _hold(self, chat: int, seconds: float) -> None:
        self._next[chat] = max(self._next.get(chat, 0.0), self.clock() + seconds)

    def _forget_idle(self) -> None:
        """Drop what no longer limits anyone (bounded memory with many chats)."""
        if len(self._next) < 4096:
            return
        now = self.clock()
        window = self.limits.group_window
        self._next = {c: t for c, t in self._next.items() if t > now or c in self._locks}
        self._groups = {
            c: q for c, q in self._groups.items() if q and q[-1] > now - window
        }

    async def _blocked(self, user_id: int) -> None:
        for hook in self.on_blocked:
            try:
                result = hook(user_id)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                log.exception("a blocked-user hook failed for %s", user_id)
