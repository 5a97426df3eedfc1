"""What a few texts must say, in every language of the bot: a timeout notice tells the player
what happened to them (not who did it), and a text that says to tap a button names that
button by its label."""

from __future__ import annotations

import pytest

from service.bot import texts
from service.tables.profiles import LANGUAGES
from tests.bot.botkit import say

# "the server", as the old notices put it (the server folded your hand / passed for you)
SERVER = {"en": "server", "ru": "сервер", "bg": "сървър", "tr": "sunucu", "de": "server",
          "ar": "الخادم"}


def test_every_language_is_checked() -> None:
    assert sorted(SERVER) == sorted(LANGUAGES)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_timeout_notice_says_what_happened_not_who_did_it(language: str) -> None:
    for notice in (texts.timed_out_folded, texts.timed_out_passed):
        said = say(language, notice, "abcdef12")
        assert "#abcdef" in said
        assert SERVER[language] not in said.lower(), said


def test_the_timeout_notices_in_english() -> None:
    assert say("en", texts.timed_out_folded, "abcdef12") == (
        "Time ran out on your turn at table #abcdef: your hand was folded.")
    assert say("en", texts.timed_out_passed, "abcdef12") == (
        "Time ran out on your turn at table #abcdef: you passed automatically (no blind bet).")


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_text_that_says_tap_names_the_button_it_comes_with(language: str) -> None:
    # Each of these goes out with the Play Svara button (routers.start, routers.group).
    button = say(language, texts.play_button)
    for text in (texts.greeting, texts.newtable_private, texts.tables_private):
        assert button in say(language, text), (language, text.__name__)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_result_button_is_translated(language: str) -> None:
    label = say(language, texts.join_or_watch_button)
    assert label
    assert language == "en" or label != texts.join_or_watch_button()
