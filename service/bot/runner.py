"""`attach_bot`: run the bot inside the API's aiohttp application, by webhook or polling, or
(`off`) with no updates at all, only sending.

Every Bot API call goes through one `Sender` (Telegram's limits, 429 retries, 403 = blocked).
The bot also watches the tables (`TableWatch`, on `LiveTables`: a `TableService`): turn
pings, timeout notices, group results. It does so in every mode: a replica learns of the moves
made through it (and of the tables it follows), and only it can tell their players, so a
replica with `off` (another one polls, Telegram allows one) still watches and sends; the
once-only marks keep replicas from sending the same thing twice.

Bot API failures at startup are logged, not fatal: the web app is the product and keeps
serving while Telegram is unreachable (polling retries by itself; a webhook is set again on
the next start).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Literal

from aiogram import Bot, Dispatcher
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.webhook.aiohttp_server import SimpleRequestHandler, setup_application
from aiohttp import web

from service import metrics
from service.bot.config import WEBHOOK_PATH, BotConfig, webhook_secret
from service.bot.dispatcher import build_dispatcher
from service.bot.groups import GroupTables
from service.bot.i18n import Catalogs, make_i18n
from service.bot.menu import set_commands, set_menu_button
from service.bot.notices import TimeoutNotices
from service.bot.pings import Pings
from service.bot.ports import LiveTables
from service.bot.reach import Reach
from service.bot.results import GroupResults
from service.bot.sender import Limits, Sender
from service.bot.sharing import SHARING_KEY, Sharing
from service.bot.watch import TableWatch

log = logging.getLogger(__name__)

BOT_KEY = web.AppKey("svara_bot", Bot)
DISPATCHER_KEY = web.AppKey("svara_bot_dispatcher", Dispatcher)
POLLING_KEY = web.AppKey("svara_bot_polling", asyncio.Task[None])
# The process's one sender: its on_sent / on_retry_after / on_blocked hooks are where metrics
# (Prometheus counters) attach.
SENDER_KEY = web.AppKey("svara_bot_sender", Sender)
WATCH_KEY = web.AppKey("svara_bot_watch", TableWatch)

Mode = Literal["webhook", "polling", "off"]
MODES = ("webhook", "polling", "off")


def make_bot(token: str, telegram_api_url: str | None) -> Bot:
    """A Bot talking to Telegram, or to `telegram_api_url` (a local Bot API server, a fake)."""
    if telegram_api_url:
        session = AiohttpSession(api=TelegramAPIServer.from_base(telegram_api_url))
        return Bot(token, session=session)
    return Bot(token)


def attach_bot(
    app: web.Application,
    tables: LiveTables,
    *,
    token: str,
    mode: str,
    public_url: str | None,
    telegram_api_url: str | None,
    limits: Limits | None = None,
    mini_app_name: str | None = None,
) -> None:
    """Register the bot's route (webhook mode) and startup/cleanup hooks on `app`."""
    if mode not in MODES:
        raise ValueError(f"bot mode must be one of {', '.join(MODES)}, not {mode!r}")
    if mode == "webhook" and not public_url:
        raise ValueError("webhook mode needs PUBLIC_URL (Telegram must reach the server)")
    bot = make_bot(token, telegram_api_url)
    sender = Sender(limits)
    bot.session.middleware(sender)
    sender.on_blocked.append(tables.bot_blocked)
    sender.on_sent.append(lambda method, _chat: metrics.bot_message_sent(method))
    sender.on_retry_after.append(
        lambda method, _chat, _seconds: metrics.bot_message_rate_limited(method)
    )
    i18n = make_i18n()
    config = BotConfig(public_url=public_url, mini_app_name=mini_app_name)
    groups = GroupTables(tables.kv, tables.streams.namespace)
    app[BOT_KEY] = bot
    app[SENDER_KEY] = sender
    app[SHARING_KEY] = Sharing(bot, tables, i18n, config)  # in every mode: it only sends
    _attach_watch(app, tables, bot, i18n, config, groups)
    if mode == "off":
        _attach_sending_only(app, bot)
        return
    dp = build_dispatcher(tables, config, i18n, groups)
    app[DISPATCHER_KEY] = dp
    if mode == "webhook":
        assert public_url is not None
        _attach_webhook(app, bot, dp, i18n, config, token=token, public_url=public_url)
    else:
        _attach_polling(app, bot, dp, i18n, config)


def _attach_watch(
    app: web.Application,
    tables: LiveTables,
    bot: Bot,
    i18n: Catalogs,
    config: BotConfig,
    groups: GroupTables,
) -> None:
    reach = Reach(tables, bot, i18n, config, clock=tables.clock)
    watch = TableWatch(
        tables, Pings(reach), TimeoutNotices(reach), GroupResults(reach, groups)
    )
    app[WATCH_KEY] = watch

    async def start(_: web.Application) -> None:
        watch.start()

    async def stop(_: web.Application) -> None:
        await watch.stop()  # on_shutdown: before the bot's session and the service close

    app.on_startup.append(start)
    app.on_shutdown.append(stop)


def _attach_sending_only(app: web.Application, bot: Bot) -> None:
    """`off`: no updates (another replica takes them); the bot's session only closes."""

    async def close(_: web.Application) -> None:
        await bot.session.close()  # on_cleanup: after the watch stopped (on_shutdown)

    app.on_cleanup.append(close)


async def _introduce(bot: Bot, i18n: Catalogs, config: BotConfig) -> None:
    """The command menu in every language and the menu button (a nicety: never fatal)."""
    try:
        await set_commands(bot, i18n)
        await set_menu_button(bot, config, i18n)
    except Exception:
        log.exception("could not set the bot's commands and menu button")


def _attach_webhook(
    app: web.Application,
    bot: Bot,
    dp: Dispatcher,
    i18n: Catalogs,
    config: BotConfig,
    *,
    token: str,
    public_url: str,
) -> None:
    secret = webhook_secret(token)
    # The handler closes the bot session on app shutdown.
    SimpleRequestHandler(dp, bot, secret_token=secret).register(app, path=WEBHOOK_PATH)
    setup_application(app, dp, bot=bot)
    url = public_url.rstrip("/") + WEBHOOK_PATH

    async def set_webhook(_: web.Application) -> None:
        try:
            await bot.set_webhook(
                url, secret_token=secret, allowed_updates=dp.resolve_used_update_types()
            )
        except Exception:  # a Bot API outage must not keep the web app down
            log.exception("could not set the Telegram webhook to %s", url)
        await _introduce(bot, i18n, config)

    app.on_startup.append(set_webhook)
    # No deleteWebhook on shutdown: other replicas keep serving the same webhook.


def _attach_polling(
    app: web.Application, bot: Bot, dp: Dispatcher, i18n: Catalogs, config: BotConfig
) -> None:
    async def poll() -> None:
        try:
            # getUpdates is refused while a webhook is set.
            await bot.delete_webhook(drop_pending_updates=False)
        except Exception:
            log.exception("Bot API unreachable at startup; polling will keep retrying")
        await _introduce(bot, i18n, config)
        await dp.start_polling(bot, handle_signals=False, close_bot_session=True)

    def report(task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("the bot stopped polling", exc_info=task.exception())

    async def start(app: web.Application) -> None:
        task = asyncio.create_task(poll(), name="svara-bot-polling")
        task.add_done_callback(report)  # e.g. a revoked token: say so now, not at shutdown
        app[POLLING_KEY] = task

    async def stop(app: web.Application) -> None:
        task = app.get(POLLING_KEY)
        if task is None:
            return
        with contextlib.suppress(RuntimeError):  # RuntimeError: polling had not started yet
            await dp.stop_polling()  # lets the dispatcher emit shutdown and close the session
        task.cancel()
        with contextlib.suppress(BaseException):  # already reported by `report`
            await task
        await bot.session.close()

    app.on_startup.append(start)
    app.on_cleanup.append(stop)
