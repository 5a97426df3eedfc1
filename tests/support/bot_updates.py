"""The updates Telegram hands a bot, as the fake Bot API (fake_bot_api.py) queues or POSTs
them: a message, an inline query, a write-access grant, a button tap, a membership change."""

from __future__ import annotations

import itertools
import time
from typing import Any

JSON = dict[str, Any]

_ids = itertools.count(1000)


def message_update(
    text: str,
    *,
    user_id: int = 501,
    first_name: str = "Ana",
    chat_id: int | None = None,
    chat_type: str = "private",
    language_code: str | None = None,
) -> JSON:
    """An update carrying a text message (a command when it starts with '/')."""
    chat: JSON = {"id": chat_id if chat_id is not None else user_id, "type": chat_type}
    if chat_type != "private":
        chat["title"] = "Svara club"
    else:
        chat["first_name"] = first_name
    sender: JSON = {"id": user_id, "is_bot": False, "first_name": first_name}
    if language_code:
        sender["language_code"] = language_code
    message: JSON = {
        "message_id": next(_ids),
        "date": int(time.time()),
        "chat": chat,
        "from": sender,
        "text": text,
    }
    if text.startswith("/"):
        length = len(text.split()[0])
        message["entities"] = [{"type": "bot_command", "offset": 0, "length": length}]
    return {"message": message}


def inline_query_update(
    query: str = "", *, user_id: int = 501, first_name: str = "Ana",
    language_code: str | None = None,
) -> JSON:
    """The user typed `@bot <query>` in some chat."""
    sender: JSON = {"id": user_id, "is_bot": False, "first_name": first_name}
    if language_code:
        sender["language_code"] = language_code
    return {"inline_query": {"id": str(next(_ids)), "from": sender, "query": query,
                             "offset": "", "chat_type": "group"}}


def write_access_update(
    *, user_id: int, first_name: str = "Ana", language_code: str | None = None
) -> JSON:
    """Telegram's service message in the private chat: the user let the bot write to them
    from the Mini App (`requestWriteAccess`)."""
    message = message_update("", user_id=user_id, first_name=first_name,
                             language_code=language_code)["message"]
    del message["text"]
    message["write_access_allowed"] = {"from_request": True}
    return {"message": message}


def callback_update(
    data: str,
    message: JSON,
    *,
    user_id: int,
    first_name: str = "Ana",
    language_code: str | None = None,
) -> JSON:
    """The user pressed a button with callback `data` on `message` (as the fake stored it)."""
    sender: JSON = {"id": user_id, "is_bot": False, "first_name": first_name}
    if language_code:
        sender["language_code"] = language_code
    return {"callback_query": {
        "id": str(next(_ids)), "from": sender, "message": message,
        "chat_instance": "ci", "data": data,
    }}


def member_update(
    user_id: int, *, old: str, new: str, first_name: str = "Ana", language_code: str | None = None
) -> JSON:
    """Telegram telling the bot its status in a private chat changed (`kicked`: blocked)."""
    user: JSON = {"id": user_id, "is_bot": False, "first_name": first_name}
    if language_code:
        user["language_code"] = language_code
    bot: JSON = {"id": 123456, "is_bot": True, "first_name": "Svara"}

    def member(status: str) -> JSON:
        extra: JSON = {"until_date": 0} if status == "kicked" else {}
        return {"status": status, "user": bot, **extra}

    return {"my_chat_member": {
        "chat": {"id": user_id, "type": "private", "first_name": first_name},
        "from": user, "date": int(time.time()),
        "old_chat_member": member(old), "new_chat_member": member(new),
    }}
