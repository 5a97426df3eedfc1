"""A player's preferences (language, turn pings): chosen once, kept on the server (real
Redis), seen the same by every replica; the language falls back to Telegram's."""

from __future__ import annotations

import pytest

from events.profile import BotBlocked, BotStarted, PreferencesSet
from service.game import profile as p
from service.game.errors import GameError
from service.game.profile import effective_language, supported_language
from service.tables.facade import ServiceError, User
from tests.support.services import Factory

pytestmark = pytest.mark.redis


def test_the_profile_decider_records_only_changes() -> None:
    """`decide` answers each command with what changed, nothing when nothing does."""
    assert p.decide(p.EMPTY, p.SetPreferences(pings=True)) == []  # pings are on already
    chosen = p.decide(p.EMPTY, p.SetPreferences(language="bg", pings=False))
    assert chosen == [PreferencesSet(language="bg", pings=False)]
    profile = p.fold(chosen)
    assert p.decide(profile, p.SetPreferences(language="bg")) == []
    with pytest.raises(GameError) as info:
        p.decide(profile, p.SetPreferences(language="klingon"))
    assert info.value.code == "unknown_language"
    assert p.decide(profile, p.BlockBot()) == []  # never started: nothing to block
    started = p.decide(profile, p.StartBot(language_code="ru-RU"))
    assert started == [BotStarted(language_code="ru-RU")]
    profile = p.fold(started, profile)
    assert profile.reachable
    assert p.decide(profile, p.StartBot(language_code="ru-RU")) == []
    assert p.decide(profile, p.BlockBot()) == [BotBlocked()]
    assert not p.fold([BotBlocked()], profile).reachable


@pytest.mark.parametrize(
    ("code", "language"),
    [("ru-RU", "ru"), ("ru", "ru"), ("bg", "bg"), ("tr-TR", "tr"), ("de_AT", "de"),
     ("AR", "ar"), ("en-GB", "en"), ("uk", None), ("xx-YY", None), ("", None), (None, None)],
)
def test_telegram_language_codes_map_to_supported_languages(
    code: str | None, language: str | None
) -> None:
    assert supported_language(code) == language


async def test_the_language_follows_telegram_until_the_player_chooses(services: Factory) -> None:
    service = await services()
    russian = User(id=910_001, name="Olga", language_code="ru-RU")
    unknown = User(id=910_002, name="Kim", language_code="ko")
    assert (await service.me(russian))["language"] == "ru"
    assert (await service.me(unknown))["language"] == "en"
    me = await service.me(russian)
    assert me["settings"] == {"language": None, "pings": True}

    me = await service.set_preferences(russian, language="ar")
    assert me["language"] == "ar" and me["settings"] == {"language": "ar", "pings": True}
    me = await service.set_preferences(russian, pings=False)
    assert me["settings"] == {"language": "ar", "pings": False}

    other_replica = await services()  # another process on the same store sees the choice
    assert (await other_replica.me(russian))["language"] == "ar"
    assert (await other_replica.profile(russian.id)).pings is False
    assert effective_language(await other_replica.profile(unknown.id), "de-DE") == "de"


async def test_a_bad_language_is_refused_and_nothing_is_written(services: Factory) -> None:
    service = await services()
    user = User(id=910_003, name="Ana", language_code="bg")
    with pytest.raises(ServiceError) as info:
        await service.set_preferences(user, language="klingon")
    assert info.value.status == 400 and info.value.code == "unknown_language"
    assert await service.store.version(service.streams.profile(user.id)) == 0


async def test_unchanged_preferences_append_nothing(services: Factory) -> None:
    service = await services()
    user = User(id=910_004, name="Ivo")
    await service.set_preferences(user, language="bg", pings=True)
    stream = service.streams.profile(user.id)
    version = await service.store.version(stream)
    assert version == 1
    await service.set_preferences(user, language="bg")
    await service.set_preferences(user, pings=True)
    assert await service.store.version(stream) == version
