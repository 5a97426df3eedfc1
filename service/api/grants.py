"""Whether the bot may write to a player who never started it, as the Mini App learns it.

Telegram signs `allows_write_to_pm` into initData when the player lets the bot write to them;
the first time this process accepts an initData string that says so, it is recorded in the
player's profile (in the background: authentication stays synchronous and cheap). After the
app's `requestWriteAccess` the app reports the answer: `POST /api/me/write-access
{"allowed": bool}`, which answers like `GET /api/me` (its `can_ping` says whether turn pings
can reach them now). The bot's `write_access_allowed` service message is the authoritative
signal (`service.bot.routers.access`).
"""

from __future__ import annotations

import asyncio
import logging

import msgspec
from aiohttp import web

from service.api import schemas
from service.api.auth import writes_allowed
from service.api.context import ON_NEW_INIT_DATA, TABLES, authenticate
from service.api.routes import json_response
from service.tables.facade import Tables, User

log = logging.getLogger("svara.api")
DRAIN_SECONDS = 2.0


class WriteAccessBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    allowed: bool


write_access_decoder = msgspec.json.Decoder(WriteAccessBody)


async def write_access(request: web.Request) -> web.Response:
    user = authenticate(request)
    body: WriteAccessBody = schemas.decode_body(write_access_decoder, await request.read())
    answer = await request.app[TABLES].write_access(user, allowed=body.allowed, explicit=True)
    return json_response(answer)


async def _record(tables: Tables, user: User) -> None:
    try:
        await tables.write_access(user, allowed=True, explicit=False)
    except Exception:  # the store briefly down: the next session's initData says it again
        log.warning("could not record that user %s allows the bot to write", user.id,
                    exc_info=True)


def install_grants(app: web.Application) -> None:
    """Record `allows_write_to_pm` from each new initData this process accepts."""
    pending: set[asyncio.Task[None]] = set()

    def on_new_init_data(user: User, init_data: str) -> None:
        if not writes_allowed(init_data):
            return
        task = asyncio.get_running_loop().create_task(_record(app[TABLES], user))
        pending.add(task)
        task.add_done_callback(pending.discard)

    async def drain(_app: web.Application) -> None:
        if pending:
            await asyncio.wait(set(pending), timeout=DRAIN_SECONDS)

    app.setdefault(ON_NEW_INIT_DATA, []).append(on_new_init_data)
    app.on_shutdown.append(drain)
