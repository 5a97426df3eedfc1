"""What the bot shows of a tournament: its card (the terms, who registered, how it stands)
with Register and Open buttons, and a finished tournament's final standings.

Plain text, no parse mode: the names are the players' own, so nothing in them is markup.
The card is drawn from the service's tournament JSON (`Tournaments.get`), the standings
from the tournament's state.
"""

from __future__ import annotations

from typing import Any

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from service.bot import tournament_texts as tt
from service.bot.config import BotConfig
from service.bot.keyboards import link_button, webapp_button
from service.bot.links import tournament_payload
from service.game.tournament.state import TournamentState
from service.tables.tournaments import summary


class TournamentJoin(CallbackData, prefix="tjoin"):
    """The card's Register button: register the one who taps it in `tournament`."""

    tournament: str


def render_card(tournament: dict[str, Any]) -> str:
    s = tournament["settings"]
    about = [
        tt.tournament_title(s["name"]),
        tt.tournament_terms(
            s["seats"], s["buy_in"], s["stack"], s["hands_per_level"],
            s.get("minutes_per_level", 0),
        ),
    ]
    status = tournament["status"]
    if status == "registering":
        about.append(tt.tournament_fill(max(1, round(s["fill_seconds"] / 60))))
    players = tournament["players"]
    names = ", ".join(p["name"] for p in players)
    standing = [
        tt.tournament_registered(len(players), s["seats"], names) if players
        else tt.tournament_nobody()
    ]
    if status == "running":
        standing.append(tt.tournament_running())
    elif status == "finished":
        standing.append(tt.tournament_over())
    elif status == "cancelled":
        standing.append(tt.tournament_cancelled())
    return "\n".join(about) + "\n\n" + "\n".join(standing)


def group_card_keyboard(
    config: BotConfig, bot_username: str, tournament_id: str
) -> InlineKeyboardMarkup:
    """In a group: Register here, and a link to the tournament (the Mini App's, or the bot's
    chat, which answers with the card and a web app button)."""
    register = InlineKeyboardButton(
        text=tt.register_button(),
        callback_data=TournamentJoin(tournament=tournament_id).pack(),
    )
    to_it = link_button(
        config, bot_username, tournament_payload(tournament_id), tt.open_tournament_button()
    )
    return InlineKeyboardMarkup(inline_keyboard=[[register, to_it]])


def private_card_keyboard(config: BotConfig, tournament_id: str) -> InlineKeyboardMarkup:
    """In the bot's own chat: Register, and the web app opened at the tournament."""
    register = InlineKeyboardButton(
        text=tt.register_button(),
        callback_data=TournamentJoin(tournament=tournament_id).pack(),
    )
    rows = [[register]]
    url = config.tournament_url(tournament_id)
    if url:
        rows.append([webapp_button(url, tt.open_tournament_button())])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def render_standings(state: TournamentState) -> str:
    """Every place, best first, with the play chips won (none for a place out of the
    prizes)."""
    by_place = sorted(state.places.items(), key=lambda item: item[1])
    lines = [tt.standings_header(str(summary(state)["name"]))]
    for user_id, place in by_place:
        entry = state.entries.get(user_id)
        name = entry.name if entry is not None else f"player {user_id}"
        lines.append(tt.standings_line(place, name, state.prizes.get(user_id, 0)))
    return "\n".join(lines)
