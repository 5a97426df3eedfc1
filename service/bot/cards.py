"""Shared cards: a table (its name, stakes and free seats, a Join button) or a settled hand (its
result, a Watch button), as the inline results Telegram sends on a player's behalf -- the
prepared messages of the Mini App's share button and the bot's inline mode alike.

An inline message may carry no Web App button, so the button is a URL one to the link
`BotConfig.link` builds (the Mini App's own `?startapp=` link when its name is configured).
The text is plain (no parse mode): names from players go in as they are, never as markup.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from aiogram.types import (
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
)

from service.bot import share_texts, texts
from service.bot.config import BotConfig
from service.bot.keyboards import link_button
from service.bot.links import hand_payload, table_payload
from service.bot.results import Outcome, Shown, render
from service.tables.facade import JSON, Tables, User

HISTORY = 50  # the newest hands whose names the history knows; older ones are named by seat


class TableCard(NamedTuple):
    table_id: str
    name: str | None  # the table's own name, if it has one
    host: str | None  # whom it is named after otherwise (`view.table_host`)
    ante: int
    seats: int
    free: int
    private: bool = False
    invite: str | None = None  # a private table's: its link seats whoever follows it


class HandCard(NamedTuple):
    outcome: Outcome


Card = TableCard | HandCard


def table_card(view: JSON) -> TableCard:
    """A table's card from its view (`Tables.view`)."""
    settings: dict[str, Any] = view["settings"]
    seats = int(settings["max_seats"])
    name = settings.get("name") or None
    host = view.get("host") or None
    return TableCard(
        table_id=str(view["table_id"]),
        name=str(name) if name else None,
        host=str(host) if host else None,
        ante=int(settings["ante"]),
        seats=seats,
        free=max(0, seats - len(view["seats"])),
        private=bool(view.get("private")),
    )


async def load_table(tables: Tables, table_id: str, user: User | None = None,
                     invite: str | None = None) -> TableCard:
    """404 (ServiceError) for a table that does not exist or `user` may not see."""
    return table_card(await tables.view(user, table_id, invite))


async def load_hand(tables: Tables, table_id: str, hand: int) -> HandCard:
    """The settled hand `hand` at `table_id`: 404 for no such table or hand, 409
    `hand_in_progress` until it is settled (the audit's own answers: whoever may read the
    audit may share the hand)."""
    audit = await tables.audit(table_id, hand)
    summary = next((h for h in await tables.hands(table_id, HISTORY) if h["number"] == hand),
                   None)
    if summary is not None:
        return HandCard(outcome_of_summary(table_id, summary))
    result: JSON = audit.get("result") or {}
    winners = tuple(f"#{int(seat) + 1}" for seat in result.get("winner_seats", []))
    pot = int(result.get("pot", 0))
    return HandCard(Outcome(table_id, hand, "showdown", pot, winners, pot, ()))


def outcome_of_summary(table_id: str, summary: JSON) -> Outcome:
    """A hand of the table's history (`Tables.hands`) as the group results tell it."""
    names: dict[str, str | None] = summary["names"]

    def name(seat: int | str) -> str:
        return names.get(str(seat)) or f"#{int(seat) + 1}"

    showdowns: list[JSON] = summary.get("showdowns") or []
    shown = showdowns[-1]["hands"] if showdowns else {}
    return Outcome(
        table_id=table_id,
        number=int(summary["number"]),
        reason=str(summary["reason"]),
        pot=int(summary["pot"]),
        winners=tuple(name(seat) for seat in summary["winners"]),
        won=sum(int(a) for a in summary["amounts"].values()),
        shown=tuple(
            Shown(name(seat), tuple(hand["cards"]), int(hand["score"]))
            for seat, hand in sorted(shown.items(), key=lambda item: int(item[0]))
        ),
    )


def payload_of(card: Card) -> str:
    if isinstance(card, TableCard):
        return table_payload(card.table_id, card.invite)
    return hand_payload(card.outcome.table_id, card.outcome.number)


def message_of(card: Card) -> str:
    """What the shared message says, in the current locale."""
    if isinstance(card, HandCard):
        return render(card.outcome)
    return share_texts.table_message(_named(card), card.table_id, card.ante, card.free,
                                     card.seats)


def _named(card: TableCard) -> str:
    if card.name is not None:
        return card.name
    return share_texts.hosted_table(card.host) if card.host else texts.table_label(card.table_id)


def article(config: BotConfig, bot_username: str, card: Card, result_id: str
            ) -> InlineQueryResultArticle:
    """The card as an inline result, its button a URL one to the card's link."""
    if isinstance(card, TableCard):
        title = share_texts.table_title(_named(card), card.table_id)
        description = share_texts.table_description(card.ante, card.free, card.seats)
        label = share_texts.join_button()
    else:
        outcome = card.outcome
        title = share_texts.hand_title(outcome.number, outcome.table_id)
        description = render(outcome).split("\n")[1] if outcome.winners else ""
        label = share_texts.watch_button()
    button = link_button(config, bot_username, payload_of(card), label)
    return InlineQueryResultArticle(
        id=result_id,
        title=title,
        description=description or None,
        input_message_content=InputTextMessageContent(message_text=message_of(card)),
        reply_markup=InlineKeyboardMarkup(inline_keyboard=[[button]]),
    )


def new_table_article(config: BotConfig, bot_username: str) -> InlineQueryResultArticle:
    """The inline mode's "New table" card: an invitation to the lobby, where a table opens."""
    button = link_button(config, bot_username, None, texts.play_button())
    return InlineQueryResultArticle(
        id="new",
        title=share_texts.new_table_title(),
        description=share_texts.new_table_description(),
        input_message_content=InputTextMessageContent(
            message_text=share_texts.new_table_message()
        ),
        reply_markup=InlineKeyboardMarkup(inline_keyboard=[[button]]),
    )


