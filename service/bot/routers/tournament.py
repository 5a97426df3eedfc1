"""Tournaments from the bot: `/tournament [seats] [buy-in]` in a group opens a Sit & Go bound
to the group (its chat id is recorded on the tournament; its final standings are posted
there) and posts its card; the card's Register button registers whoever taps it.
`/start tournament_<id>` answers with the same card (`send_private_card`, used by `start`).

The defaults (as docs/BOT.md lists them under /tournament): 4 seats, a buy-in of 100 play
chips, 500 tournament chips each, antes 10, 20, 30, 50, 80, 120, 200, 300, 500 rising every
5 hands, 20 seconds a turn, cancelled (every buy-in refunded) when not full within 30
minutes.
"""

from __future__ import annotations

import logging

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, InaccessibleMessage, Message

from events.tournament import TournamentSettings
from service.bot import tournament_texts as tt
from service.bot.config import BotConfig
from service.bot.groups import GroupTables
from service.bot.i18n import Catalogs, as_user
from service.bot.ports import BotTables
from service.bot.routers.group import GROUP_CHATS, UsageError
from service.bot.tournament_cards import (
    TournamentJoin,
    group_card_keyboard,
    private_card_keyboard,
    render_card,
)
from service.game.errors import GameError
from service.game.settings import MAX_CHIPS
from service.game.tournament.decider import validated
from service.tables.facade import ServiceError

log = logging.getLogger(__name__)

DEFAULT_SEATS = 4
DEFAULT_BUY_IN = 100
STACK = 500
ANTES = (10, 20, 30, 50, 80, 120, 200, 300, 500)
HANDS_PER_LEVEL = 5
TURN_SECONDS = 20
FILL_SECONDS = 1800


def parse_tournament_args(args: str | None) -> TournamentSettings:
    """`[seats] [buy-in]` → validated settings; UsageError (with a message) otherwise."""
    parts = (args or "").split()
    if len(parts) > 2 or not all(part.isdigit() for part in parts):
        raise UsageError(tt.tournament_usage())
    numbers = [int(part) for part in parts]
    seats = numbers[0] if numbers else DEFAULT_SEATS
    buy_in = numbers[1] if len(numbers) > 1 else DEFAULT_BUY_IN
    if not 2 <= seats <= 10 or not 1 <= buy_in <= MAX_CHIPS:
        raise UsageError(tt.tournament_usage())
    settings = TournamentSettings(
        seats=seats, buy_in=buy_in, stack=STACK, antes=ANTES, hands_per_level=HANDS_PER_LEVEL,
        fill_seconds=FILL_SECONDS, turn_seconds=TURN_SECONDS,
    )
    try:
        return validated(settings)
    except GameError:  # nothing else /tournament sets can be wrong; say how to use it
        raise UsageError(tt.tournament_usage()) from None


def make_router() -> Router:
    router = Router(name="tournament")
    in_group = F.chat.type.in_(GROUP_CHATS)
    router.message.register(on_tournament_group, Command("tournament"), in_group)
    router.message.register(on_tournament_private, Command("tournament"))
    router.callback_query.register(on_register, TournamentJoin.filter())
    return router


async def on_tournament_group(
    message: Message,
    command: CommandObject,
    bot: Bot,
    tables: BotTables,
    config: BotConfig,
    groups: GroupTables,
    i18n: Catalogs,
) -> None:
    sender = message.from_user
    if sender is None or sender.is_bot:  # anonymous admins and channels post without a user
        await message.reply(tt.tournament_anonymous())
        return
    tournaments = tables.tournaments
    if tournaments is None:
        await message.reply(tt.tournaments_off())
        return
    try:
        settings = parse_tournament_args(command.args)
    except UsageError as exc:
        await message.reply(str(exc))
        return
    chat_id = message.chat.id
    try:
        tournament_id = await tournaments.create(
            as_user(sender), settings, group_chat_id=chat_id
        )
        # Before anyone can register: the standings must find the group's language.
        await groups.bind_tournament(chat_id, tournament_id, i18n.current_locale)
        tournament = await tournaments.get(tournament_id)
    except (ServiceError, GameError) as exc:
        log.warning("/tournament in %s failed: %s", chat_id, exc)
        await message.reply(tt.tournament_failed())
        return
    me = await bot.me()
    if me.username is None:  # every real bot has one; a misconfigured fake might not
        log.error("bot has no username; cannot build a deep link")
        await message.reply(render_card(tournament))
        return
    markup = group_card_keyboard(config, me.username, tournament_id)
    await message.reply(render_card(tournament), reply_markup=markup)


async def on_tournament_private(message: Message) -> None:
    await message.answer(tt.tournament_private())


async def send_private_card(
    message: Message, tables: BotTables, config: BotConfig, tournament_id: str
) -> bool:
    """`/start tournament_<id>`: the card with Register and Open; False when this server
    runs no tournaments (the caller greets instead)."""
    tournaments = tables.tournaments
    if tournaments is None:
        return False
    try:
        tournament = await tournaments.get(tournament_id)
    except ServiceError as exc:
        if exc.status != 404:
            raise
        await message.answer(tt.tournament_gone())
        return True
    markup = private_card_keyboard(config, tournament_id)
    await message.answer(render_card(tournament), reply_markup=markup)
    return True


async def on_register(
    query: CallbackQuery, callback_data: TournamentJoin, bot: Bot, tables: BotTables,
    config: BotConfig, groups: GroupTables, i18n: Catalogs,
) -> None:
    tournament_id = callback_data.tournament
    tournaments = tables.tournaments
    if tournaments is None:
        await query.answer(tt.tournaments_off(), show_alert=True)
        return
    try:
        tournament = await tournaments.register(as_user(query.from_user), tournament_id)
    except ServiceError as exc:
        buy_in = 0
        if exc.code == "insufficient_chips":
            buy_in = (await tournaments.get(tournament_id))["settings"]["buy_in"]
        elif exc.status >= 500 or exc.code not in _EXPECTED:
            log.warning("registering in %s refused: %s", tournament_id, exc.code)
        await query.answer(tt.register_refused(exc.code, buy_in), show_alert=True)
        return
    await query.answer(tt.registered(tournament["settings"]["name"]))
    message = query.message
    if message is None or isinstance(message, InaccessibleMessage):
        return
    # The card shows who registered, in the language it was written in (a group's: its
    # opener's), with the keyboard as it was (an edit without it drops it).
    language = i18n.current_locale
    me = await bot.me()
    if message.chat.type != "private" and me.username is not None:
        binding = await groups.group_of_tournament(tournament_id)
        language = binding.language if binding is not None else language
        with i18n.speaking(language):
            text = render_card(tournament)
            markup = group_card_keyboard(config, me.username, tournament_id)
    else:
        text = render_card(tournament)
        markup = private_card_keyboard(config, tournament_id)
    if text != (message.text or ""):
        await message.edit_text(text, reply_markup=markup)


_EXPECTED = frozenset({
    "already_registered", "tournament_full", "tournament_started", "tournament_cancelled",
    "insufficient_chips", "tournament_not_found",
})
