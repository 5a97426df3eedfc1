"""What shared cards say: the prepared messages a player sends from the Mini App, and the
cards of the bot's inline mode (`@bot` in any chat). English source, translated like every
other text (`service.bot.texts`, the catalogs in `locales/`). Names go in as plain text: these
messages are sent without a parse mode."""

from __future__ import annotations

from service.bot.texts import _, ngettext, table_label


def hosted_table(host: str) -> str:
    return _("{name}'s table").format(name=host)


def table_title(name: str, table_id: str) -> str:
    return _("Svara table: {name} ({table})").format(name=name, table=table_label(table_id))


def table_description(ante: int, free: int, seats: int) -> str:
    return ngettext(
        "Ante {ante} · {free} of {seats} seats free",
        "Ante {ante} · {free} of {seats} seats free",
        free,
    ).format(ante=ante, free=free, seats=seats)


def table_message(name: str, table_id: str, ante: int, free: int, seats: int) -> str:
    return ngettext(
        "Join me at Svara, {name} ({table}): ante {ante}, {free} of {seats} seats free.",
        "Join me at Svara, {name} ({table}): ante {ante}, {free} of {seats} seats free.",
        free,
    ).format(name=name, table=table_label(table_id), ante=ante, free=free, seats=seats)


def hand_title(hand: int, table_id: str) -> str:
    return _("Svara: hand {hand} at table {table}").format(hand=hand, table=table_label(table_id))


def new_table_title() -> str:
    return _("New table")


def new_table_description() -> str:
    return _("Invite this chat to a game of Svara")


def new_table_message() -> str:
    return _(
        "Let's play Svara, the Bulgarian three-card game! Tap the button to open the lobby, "
        "take your play chips and sit down at a table with me."
    )


def join_button() -> str:
    return _("Join")


def watch_button() -> str:
    return _("Watch")
