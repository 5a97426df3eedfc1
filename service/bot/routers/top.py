"""`/top`: the leaderboard by net chips won (docs/BOT.md). In a private chat the global board,
in a group that group's (the tables opened there with /newtable); this ISO week, or with
`/top all` all time. Names are plain text inside aiogram's formatting nodes: the message goes
out with entities and no parse mode, so a name like `<b>` is shown as typed."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message
from aiogram.utils.formatting import Bold, Text, as_list

from service.bot import top_texts
from service.bot.ports import BotTables

GROUP_CHATS = {"group", "supergroup"}
SHOWN = 10  # lines a chat message shows (the web app shows the top 50)


def make_router() -> Router:
    router = Router(name="top")
    router.message.register(on_top, Command("top"), F.chat.type.in_(GROUP_CHATS | {"private"}))
    return router


async def on_top(message: Message, command: CommandObject, tables: BotTables) -> None:
    all_time = (command.args or "").strip().lower() == "all"
    in_group = message.chat.type in GROUP_CHATS
    sender = message.from_user
    board = await tables.leaderboard(
        "all" if all_time else "week",
        message.chat.id if in_group else None,
        sender.id if sender is not None else None,
    )
    lines: list[Text] = [Bold(top_texts.header(group=in_group, all_time=all_time))]
    entries = board["entries"][:SHOWN]
    if not entries:
        lines.append(Text(top_texts.empty()))
    for entry in entries:
        lines.append(Text(f"{entry['rank']}. ", Bold(entry["name"] or "…"),
                          f"  {entry['net']:+d}"))  # fmt: skip
    you = board.get("you")
    if you is not None:
        lines.append(Text(top_texts.your_place(int(you["rank"]), int(you["net"]))))
    lines.append(Text(top_texts.hint(all_time=all_time)))
    await message.answer(**as_list(*lines).as_kwargs())
