"""What /top says (the leaderboards, docs/BOT.md): English source, translated like every other
text (`service.bot.texts`). Players' names never go through these: the router sets them as
plain text beside formatting entities, so no parse mode ever reads user data."""

from __future__ import annotations

from service.bot.texts import _


def header(*, group: bool, all_time: bool) -> str:
    if group:
        if all_time:
            return _("This group's top players of all time, by chips won")
        return _("This group's top players this week, by chips won")
    if all_time:
        return _("Top players of all time, by chips won")
    return _("Top players this week, by chips won")


def empty() -> str:
    return _("No hands counted yet. Play a hand at a table to get on the board.")


def your_place(rank: int, net: int) -> str:
    return _("Your place: {rank} ({net} chips)").format(rank=rank, net=f"{net:+d}")


def hint(*, all_time: bool) -> str:
    if all_time:
        return _("/top: this week's board")
    return _("/top all: the board of all time")
