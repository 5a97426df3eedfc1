"""Players' profiles on the event store: read a player's `profile:<user_id>` stream and fold
it, change it through a decision with the expected version. Chosen in the web app (or the
bot's /settings), kept on the server, so every replica, the web app and the bot agree. The
rules (languages, what a change records) are the domain's, `service.game.profile`; the names
the adapters use are re-exported here, the application's face to them.
"""

from __future__ import annotations

from collections.abc import Callable

from events.profile import AnyProfileEvent, decode_profile_event, encode_profile_event
from events.store.base import EventStore
from service.game.profile import (
    DEFAULT_LANGUAGE,
    EMPTY,
    LANGUAGES,
    BotStatus,
    Profile,
    block_bot,
    effective_language,
    fold,
    grant_writes,
    set_preferences,
    start_bot,
    supported_language,
)
from service.tables.facade import ServiceError
from service.tables.streams import Streams

ProfileDecision = Callable[[Profile], list[AnyProfileEvent]]


class Profiles:
    """Profiles on the event store: read a player's stream and fold it; change it through a
    decision with the expected version (a concurrent change is retried on the new state)."""

    def __init__(self, store: EventStore, streams: Streams) -> None:
        self.store = store
        self.streams = streams

    async def load(self, user_id: int) -> tuple[int, Profile]:
        stored = await self.store.read(self.streams.profile(user_id))
        profile = fold(decode_profile_event(e.data) for e in stored)
        return (stored[-1].version if stored else 0), profile

    async def get(self, user_id: int) -> Profile:
        return (await self.load(user_id))[1]

    async def update(self, user_id: int, decision: ProfileDecision) -> Profile:
        stream = self.streams.profile(user_id)
        for _ in range(20):
            version, profile = await self.load(user_id)
            events = decision(profile)
            if not events:
                return profile
            result = await self.store.append(
                stream, [encode_profile_event(e) for e in events], expected_version=version
            )
            if result.status == "appended":
                return fold(events, profile)
        raise ServiceError(503, "busy", "the profile is too busy right now; try again")


__all__ = [
    "DEFAULT_LANGUAGE",
    "EMPTY",
    "LANGUAGES",
    "BotStatus",
    "Profile",
    "Profiles",
    "block_bot",
    "effective_language",
    "grant_writes",
    "set_preferences",
    "start_bot",
    "supported_language",
]
