"""Everything the bot says, in English, marked for translation (gettext catalogs in
`locales/`, see `service.bot.i18n`). Each text is a function: it is translated when called, in
the locale of the moment (the player's, set by the i18n middleware or `Catalogs.speaking`);
called outside any (a unit test, a tool), it is the English source.

Our own words; docs/RULES.md is the authority on the game ("A hand, step by step").
"""

from __future__ import annotations

from aiogram.utils.i18n import I18n


def _(text: str) -> str:
    """`text` in the current locale (aiogram's gettext), English without one."""
    i18n = I18n.get_current(no_error=True)
    return text if i18n is None else i18n.gettext(text)


def ngettext(singular: str, plural: str, n: int) -> str:
    i18n = I18n.get_current(no_error=True)
    if i18n is None:
        return singular if n == 1 else plural
    return i18n.gettext(singular, plural, n)

# Each language's own name for itself (the /settings buttons): never translated.
LANGUAGE_NAMES = {
    "en": "English",
    "ru": "Русский",
    "bg": "Български",
    "tr": "Türkçe",
    "de": "Deutsch",
    "ar": "العربية",
}


def table_label(table_id: str) -> str:
    """How a table is named in messages: short enough to read, long enough to tell apart."""
    return "#" + table_id[:6]


# -- /start and deep links ------------------------------------------------------------------


def greeting() -> str:
    # The button's own label, so the text names what the button under it says.
    return _(
        "Welcome to Svara, the Bulgarian three-card game.\n\n"
        "Tap {button} to open the lobby: you get play chips to start with, can join a table "
        "or open your own, and practise against bots."
    ).format(button=play_button())


def greeting_no_app() -> str:
    return _(
        "Welcome to Svara, the Bulgarian three-card game.\n\n"
        "This server has no web app address configured yet, so there is no Play button."
    )


def table_invite(table_id: str) -> str:
    return _("You are invited to Svara table {table}. Tap the button to take a seat.").format(
        table=table_label(table_id)
    )


def hand_invite(table_id: str, hand: int) -> str:
    return _("Hand {hand} at Svara table {table}: tap the button to watch it again.").format(
        hand=hand, table=table_label(table_id)
    )


def table_gone(table_id: str) -> str:
    return _("Table {table} does not exist any more. Open the lobby to find another one.").format(
        table=table_label(table_id)
    )


def invite_replaced(table_id: str) -> str:
    text = _("The link to table {table} was replaced by its host. Ask them for the new one.")
    return text.format(table=table_label(table_id))


def play_button() -> str:
    return _("Play Svara")


def menu_button() -> str:
    return _("Play")


def open_table_button() -> str:
    return _("Open table")


def join_table_button() -> str:
    return _("Join the table")


def join_or_watch_button() -> str:
    return _("Join or watch the table")


def watch_again_button() -> str:
    return _("Watch again")


# -- groups ---------------------------------------------------------------------------------


def newtable_private() -> str:
    return _(
        "Use /newtable in a group to open a table for its members. "
        "Here, tap {button} and create a table in the lobby."
    ).format(button=play_button())


def newtable_usage() -> str:
    return _("Usage: /newtable [ante] [seats], for example /newtable 10 6 (2 to 10 seats).")


def newtable_bad_ante(most: int) -> str:
    return _("The ante must be a whole number between 1 and {most}.").format(most=most)


def newtable_bad_seats() -> str:
    return _("A table has between 2 and 10 seats.")


def newtable_anonymous() -> str:
    return _("Send /newtable as yourself, not anonymously, so that the table has an owner.")


def newtable_failed() -> str:
    return _("Could not open the table right now. Please try again in a moment.")


def newtable_created(name: str, ante: int, seats: int) -> str:
    return ngettext(
        "{name} opened a Svara table: ante {ante}, {seats} seat.\n"
        "Tap the button to sit down: the bot opens the table for you in a private chat.",
        "{name} opened a Svara table: ante {ante}, {seats} seats.\n"
        "Tap the button to sit down: the bot opens the table for you in a private chat.",
        seats,
    ).format(name=name, ante=ante, seats=seats)


def group_tables_header() -> str:
    return _("Tables of this group with a free seat:")


def group_table_line(table_id: str, ante: int, free: int) -> str:
    return ngettext(
        "{table}: ante {ante}, {free} seat free",
        "{table}: ante {ante}, {free} seats free",
        free,
    ).format(table=table_label(table_id), ante=ante, free=free)


def group_table_button(table_id: str) -> str:
    return _("Join {table}").format(table=table_label(table_id))


def group_no_tables() -> str:
    return _("This group has no table with a free seat. Open one with /newtable.")


def tables_private() -> str:
    return _(
        "/tables lists the tables of a group: send it in the group. "
        "Here, tap {button} to see every table."
    ).format(button=play_button())


# -- a hand's result, posted to the table's group ---------------------------------------------


def result_header(table_id: str, number: int) -> str:
    return _("Table {table}, hand {number}").format(table=table_label(table_id), number=number)


def result_last_player(winner: str, pot: int) -> str:
    return _("{winner} takes the pot of {pot}: everyone else folded.").format(
        winner=winner, pot=pot
    )


def result_showdown(winner: str, pot: int) -> str:
    return _("{winner} wins the pot of {pot} at the showdown.").format(winner=winner, pot=pot)


def result_split(winners: str, pot: int) -> str:
    return _("The pot of {pot} is split between {winners}.").format(winners=winners, pot=pot)


def result_walkover(winner: str, pot: int) -> str:
    return _("{winner} takes the pot of {pot}: nobody else played the svara.").format(
        winner=winner, pot=pot
    )


def result_earlier(number: int, winners: str, amount: int) -> str:
    return _("Hand {number}: {winners} won {amount}").format(
        number=number, winners=winners, amount=amount
    )


# -- turn pings and timeouts ----------------------------------------------------------------


def your_turn(table_id: str, pot: int, seconds: int) -> str:
    return ngettext(
        "Your turn at table {table}: pot {pot}, {seconds} second left.",
        "Your turn at table {table}: pot {pot}, {seconds} seconds left.",
        seconds,
    ).format(table=table_label(table_id), pot=pot, seconds=seconds)


def timed_out_folded(table_id: str) -> str:
    # What happened to the player, not who did it.
    return _("Time ran out on your turn at table {table}: your hand was folded.").format(
        table=table_label(table_id)
    )


def tournament_starts(table_id: str) -> str:
    return _("Your tournament starts now at table {table}. Good luck!").format(
        table=table_label(table_id)
    )


def timed_out_passed(table_id: str) -> str:
    return _(
        "Time ran out on your turn at table {table}: you passed automatically (no blind bet)."
    ).format(table=table_label(table_id))


def sat_out() -> str:
    return _(
        "You missed two turns in a row, so you are sitting out: you are not dealt in "
        "until you sit in again."
    )


def sit_in_button() -> str:
    return _("Sit in")


def sat_in() -> str:
    return _("You are back in: you will be dealt into the next hand.")


def sit_in_not_sat_out(table_id: str) -> str:
    return _("You are not sitting out at table {table}.").format(table=table_label(table_id))


def sit_in_no_seat(table_id: str) -> str:
    return _("You no longer have a seat at table {table}.").format(table=table_label(table_id))


def sit_in_failed() -> str:
    return _("Could not sit you in right now. Please try again in a moment.")


def stale_button() -> str:
    return _("This button no longer works.")


# -- /settings ------------------------------------------------------------------------------


def settings_text(language: str, pings: bool) -> str:
    lines = [
        _("Your settings"),
        "",
        _("Language: {language}").format(language=LANGUAGE_NAMES.get(language, language)),
        _("Turn pings: on. When it is your turn and the table is not open, I message you.")
        if pings
        else _("Turn pings: off. I do not message you when it is your turn."),
    ]
    return "\n".join(lines)


def pings_off_button() -> str:
    return _("Turn pings off")


def pings_on_button() -> str:
    return _("Turn pings on")


def settings_saved() -> str:
    return _("Saved.")


def settings_failed() -> str:
    return _("Could not save your settings right now. Please try again in a moment.")


def settings_in_group() -> str:
    return _("Settings are personal: open a private chat with me and send /settings.")


# -- everything else ------------------------------------------------------------------------


def sorry() -> str:
    return _("Something went wrong on our side. Please try again in a moment.")


def command_descriptions() -> dict[str, str]:
    """The command menu (setMyCommands), per command."""
    return {
        "start": _("Open the game"),
        "settings": _("Language and turn pings"),
        "newtable": _("Open a table for this group"),
        "tables": _("This group's tables with a free seat"),
        "tournament": _("Open a Sit & Go tournament for this group"),
        "rules": _("How Svara is played"),
        "help": _("What the bot can do"),
        "top": _("The leaderboard: top players by chips won"),
    }


def help_text() -> str:
    return _(
        "Svara bot commands:\n"
        "/start: open the game (Play button)\n"
        "/settings: your language and turn pings\n"
        "/newtable [ante] [seats]: in a group, open a table for the group\n"
        "/tables: in a group, its tables with a free seat\n"
        "/tournament [seats] [buy-in]: in a group, open a Sit & Go tournament\n"
        "/rules: how Svara is played\n"
        "/help: this list\n\n"
        "When it is your turn and the table is not open, I send you a message with a button "
        "to it. Everything else happens in the web app."
    )


def rules() -> str:
    return _(
        "Svara in brief\n\n"
        "Cards: 32, from 7 to ace. 7, 8 and 9 count their number, 10 and the picture cards "
        "count 10, an ace 11. The seven of clubs is the joker and also counts 11.\n\n"
        "You hold three cards and score the best of:\n"
        "• three sevens: 34, the best hand\n"
        "• three of a kind: three times the card (three aces 33)\n"
        "• joker and a pair: 11 plus the pair\n"
        "• two aces: 22; two sevens: 23\n"
        "• joker and two cards of one suit: 11 plus both; joker and anything else: 11 plus the "
        "higher card\n"
        "• otherwise the sum of your best suit (a single card counts too)\n\n"
        "A hand: everyone pays the ante and gets three cards face down. Before looking, players "
        "may bet blind, each blind double the one before. Then, in turn, you call the bet, "
        "raise it (at most three times) or fold; there is no checking. The last player left "
        "takes the pot; otherwise the best score wins at the showdown.\n\n"
        "A tie is a svara: the pot stays, the tied players play for it again for free, and "
        "the others may buy in for a share of the pot.\n\n"
        "Every turn has a time limit. When it runs out, the server passes or folds for you; "
        "after two missed turns in a row you sit out until you sit in again.\n\n"
        "Every deck is fixed and committed to before the deal and revealed afterwards, so any "
        "hand can be checked."
    )
