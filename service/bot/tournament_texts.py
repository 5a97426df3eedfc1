"""What the bot says about Sit & Go tournaments (/tournament, its card, its Register button
and a group's final standings), in English, marked for translation like `service.bot.texts`.
Labels with a colon rather than counted nouns, so no text needs plural forms."""

from __future__ import annotations

from service.bot.texts import _


def tournament_private() -> str:
    return _("Use /tournament in a group to open a Sit & Go tournament for its members.")


def tournament_usage() -> str:
    return _(
        "Usage: /tournament [seats] [buy-in], for example /tournament 4 100 "
        "(2 to 10 seats, a buy-in of at least 1 play chip)."
    )


def tournament_anonymous() -> str:
    return _(
        "Send /tournament as yourself, not anonymously, so that the tournament has an owner."
    )


def tournament_failed() -> str:
    return _("Could not open the tournament right now. Please try again in a moment.")


def tournaments_off() -> str:
    return _("This server runs no tournaments.")


def tournament_title(name: str) -> str:
    return f"🏆 {name}"  # the name says it all (by default "Sit & Go <id>")


def tournament_terms(seats: int, buy_in: int, stack: int, hands: int, minutes: int = 0) -> str:
    """The terms; `minutes` > 0: the ante rises by time (then `hands` is not used)."""
    if minutes > 0:
        return _(
            "Seats: {seats}. Buy-in: {buy_in} play chips. Starting stack: {stack} tournament "
            "chips. Minutes per ante level: {minutes}."
        ).format(seats=seats, buy_in=buy_in, stack=stack, minutes=minutes)
    return _(
        "Seats: {seats}. Buy-in: {buy_in} play chips. Starting stack: {stack} tournament "
        "chips. Hands per ante level: {hands}."
    ).format(seats=seats, buy_in=buy_in, stack=stack, hands=hands)


def tournament_fill(minutes: int) -> str:
    return _(
        "It starts as soon as every seat is taken. Not full within {minutes} min: it is "
        "cancelled and every buy-in refunded."
    ).format(minutes=minutes)


def tournament_registered(count: int, seats: int, names: str) -> str:
    return _("Registered ({count}/{seats}): {names}").format(
        count=count, seats=seats, names=names
    )


def tournament_nobody() -> str:
    return _("Nobody has registered yet.")


def tournament_running() -> str:
    return _("Playing now.")


def tournament_over() -> str:
    return _("Finished.")


def tournament_cancelled() -> str:
    return _("Cancelled: it was not full in time, every buy-in was refunded.")


def register_button() -> str:
    return _("Register")


def open_tournament_button() -> str:
    return _("Open tournament")


def registered(name: str) -> str:
    return _("You are registered for {name}.").format(name=name)


def register_refused(code: str, buy_in: int) -> str:
    """Why the Register button did not register (a ServiceError's code)."""
    if code == "already_registered":
        return _("You are registered already.")
    if code == "tournament_full":
        return _("Every seat is taken.")
    if code == "tournament_started":
        return _("The tournament has started already.")
    if code == "tournament_cancelled":
        return _("The tournament was cancelled.")
    if code == "insufficient_chips":
        return _("You need {buy_in} play chips for the buy-in.").format(buy_in=buy_in)
    if code == "tournament_not_found":
        return tournament_gone()
    return _("Could not register you right now. Please try again in a moment.")


def tournament_gone() -> str:
    return _("This tournament does not exist.")


def standings_header(name: str) -> str:
    return _("{name} is over. Final standings:").format(name=name)


def standings_line(place: int, name: str, prize: int) -> str:
    if prize > 0:
        return _("{place}. {name}: {prize} play chips").format(
            place=place, name=name, prize=prize
        )
    return f"{place}. {name}"  # nothing to translate
