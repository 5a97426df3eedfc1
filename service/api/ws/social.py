"""The table socket's social frames: quick chat (sent and followed) and "away".

Chat rides on the table's socket beside the events: `{"type": "chat", "message": {...}}` for
each message after the resume's `chat_after` (absent: from now on), then live ones, in seq
order, without a gap or a repeat (`Chat.follow`, on the process's one XREAD reader, so a
message posted through any replica reaches every socket of the table).

"Away" rides on it too: after the resume, `{"type": "away", "user_id", "seat", "away"}` for
every seated player, then one for each change (`AwayFeed.follow`, across replicas), so the
other players see a minimised app or a lost socket at the seat without asking.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import msgspec
from aiohttp import WSMsgType

from service.api import schemas
from service.api.context import charge
from service.api.errors import classify
from service.tables.facade import ServiceError

if TYPE_CHECKING:
    from service.api.ws.session import Session

log = logging.getLogger("svara.api.ws")
_encode = msgspec.json.Encoder().encode


async def follow_chat(session: Session, after: int | None) -> None:
    """Send the chat's messages to the socket until cancelled (a failure ends only the chat:
    the events go on)."""
    try:
        async for batch in session.tables.social.chat.follow(
            session.user, session.table_id, after, session.invite
        ):
            for message in batch:
                await session.ws.send_frame(
                    _encode({"type": "chat", "message": message}), WSMsgType.TEXT
                )
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        known = classify(exc)
        if known is None:
            log.exception("chat feed failed")
            known = (500, "internal_error", "the chat feed failed; resume to restart it", {})
        status, code, text, extra = known
        if status in (404, 410):  # the event feed closes the socket with 4404 for it
            return
        await session._send_error(None, status, code, text, **extra)


async def follow_away(session: Session) -> None:
    """Send who is away at the table until cancelled (a failure ends only this feed: the
    GET view still says it)."""
    try:
        async for batch in session.tables.social.away.follow(
            session.user, session.table_id, session.invite
        ):
            for seat in batch:
                await session.ws.send_frame(_encode({"type": "away", **seat}), WSMsgType.TEXT)
    except asyncio.CancelledError:
        raise
    except ServiceError:  # not theirs to watch: the event feed closes the socket with 4404
        return
    except Exception:
        log.warning("away feed failed at %s", session.table_id, exc_info=True)


async def post_chat(session: Session, frame: schemas.ChatFrame) -> None:
    """A chat frame: answered `{"type": "chat_ack", "seq"}` or an error frame, as POST chat."""
    assert session.user is not None
    try:
        charge(session.app, session.user)
        seq = await session.tables.social.chat.post(
            session.user, session.table_id, phrase=frame.phrase, reaction=frame.reaction,
            invite=session.invite,
        )
    except Exception as exc:
        known = classify(exc)
        if known is None:
            log.exception("chat over the socket failed")
            known = (500, "internal_error", "something went wrong on our side", {})
        status, code, message, extra = known
        await session._send_error(None, status, code, message, **extra)
        return
    await session.ws.send_frame(_encode({"type": "chat_ack", "seq": seq}), WSMsgType.TEXT)


async def set_away(session: Session, away: bool) -> None:
    """The app was minimised or brought back: other players see "away" at the seat, and the
    bot calls the player at once if it is their turn (`Presence.away`)."""
    token = session.presence_token
    if token is None:
        return
    try:
        await session.tables.presence.away(token, away)
    except Exception:  # presence is a courtesy: an outage costs only the bot's judgement
        log.warning("could not record away at %s", session.table_id, exc_info=True)
