"""Links, payloads, secrets and /newtable arguments: the bot's pure parts."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.bot.config import BotConfig, webhook_secret
from service.bot.keyboards import webapp_keyboard
from service.bot.links import (
    Target,
    bot_link,
    hand_payload,
    parse_payload,
    share_url,
    table_payload,
    tournament_payload,
)
from service.bot.routers.group import UsageError, parse_newtable_args
from tests.bot.botkit import catalogs

# Table ids are what the service makes (hex); "_" separates an invite or a hand number.
ids = st.from_regex(r"[A-Za-z0-9-]{1,32}", fullmatch=True)
invites = st.from_regex(r"[A-Za-z0-9_-]{1,24}", fullmatch=True)


@given(ids, st.none() | invites, st.integers(1, 10**9 - 1))
def test_every_payload_round_trips_and_fits_a_start_link(
    table_id: str, invite: str | None, hand: int
) -> None:
    for payload, target in [
        (table_payload(table_id, invite), Target("table", table_id, invite=invite)),
        (hand_payload(table_id, hand), Target("hand", table_id, hand=hand)),
        (tournament_payload(table_id), Target("tournament", table_id)),
    ]:
        link = bot_link("svara_bot", None, payload)
        assert link == f"https://t.me/svara_bot?start={payload}"
        assert len(payload) <= 64  # Telegram's limit for /start payloads
        assert parse_payload(link.split("?start=", 1)[1]) == target
        app_link = bot_link("svara_bot", "play", payload)
        assert app_link == f"https://t.me/svara_bot/play?startapp={payload}"
        assert parse_payload(app_link.split("?startapp=", 1)[1]) == target


@pytest.mark.parametrize("payload", [None, "", "table_", "tbl_x", "table_a b", "table_a/b",
                                     "table_" + "x" * 33, "play", "hand_x", "hand_x_0",
                                     "hand_x_y", "tournament_", "table_a_" + "i" * 25])
def test_other_payloads_are_nothing(payload: str | None) -> None:
    assert parse_payload(payload) is None


def test_links_without_a_payload_open_the_lobby_and_share_links_are_quoted() -> None:
    assert BotConfig(public_url=None).link("b") == "https://t.me/b"
    assert BotConfig(public_url=None, mini_app_name="app").link("b") == "https://t.me/b/app"
    assert share_url("https://t.me/b/app?startapp=table_x", "<b>&a b") == (
        "https://t.me/share/url?url=https%3A%2F%2Ft.me%2Fb%2Fapp%3Fstartapp%3Dtable_x"
        "&text=%3Cb%3E%26a%20b")


def test_webapp_url() -> None:
    assert BotConfig(public_url=None).webapp_url("t") is None
    config = BotConfig(public_url="https://x.example/app/")
    assert config.webapp_url() == "https://x.example/app/"
    assert config.webapp_url("ab_1") == "https://x.example/app/?table=ab_1"
    assert config.hand_url("ab", 3) == "https://x.example/app/?hand=ab_3"


def test_webhook_secret_is_stable_and_allowed_by_telegram() -> None:
    secret = webhook_secret("1:abc")
    assert secret == webhook_secret("1:abc") != webhook_secret("1:abd")
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret)
    assert "abc" not in secret


def test_plain_http_gets_a_link_not_a_web_app_button() -> None:
    [[button]] = webapp_keyboard("http://127.0.0.1:8080/", "Play").inline_keyboard
    assert button.url == "http://127.0.0.1:8080/" and button.web_app is None
    [[button]] = webapp_keyboard("https://svara.example/", "Play").inline_keyboard
    assert button.web_app is not None and button.web_app.url == "https://svara.example/"


def test_newtable_arguments() -> None:
    with catalogs().speaking("en"):
        check_newtable_arguments()


def check_newtable_arguments() -> None:
    config = BotConfig(public_url=None)
    assert (parse_newtable_args(None, config).ante, parse_newtable_args(None, config).max_seats) \
        == (10, 6)
    settings = parse_newtable_args(" 25  3 ", config)
    assert (settings.ante, settings.max_seats) == (25, 3)
    for bad in ["x", "10 1", "10 11", "-5", "1 2 3"]:
        with pytest.raises(UsageError):
            parse_newtable_args(bad, config)
    # Numbers past the game's bounds are a usage answer naming them, never a table.
    assert parse_newtable_args(f"{10**9} 2", config).ante == 10**9
    for bad in [str(2**64), f"{10**9 + 1}", f"10 {2**64}", str(10**40)]:
        with pytest.raises(UsageError) as refused:
            parse_newtable_args(bad, config)
        assert "between" in str(refused.value)


def test_newtable_numbers_have_an_upper_bound() -> None:
    """Bounded numbers at the bot's edge: an ante of 2**64 (or past the game's bound) is a usage
    answer naming the bound, never a table that dies at its first settled hand."""
    config = BotConfig(public_url=None)
    assert parse_newtable_args(f"{10**9} 2", config).ante == 10**9
    for bad in [str(2**64), f"{10**9 + 1}", f"10 {2**64}", str(10**40)]:
        with pytest.raises(UsageError) as refused:
            parse_newtable_args(bad, config)
        assert "between" in str(refused.value)


def test_attach_bot_refuses_bad_modes() -> None:
    from aiohttp import web

    from service.bot import attach_bot
    from tests.bot.tables_stub import StubTables

    for mode, url in [("carrier-pigeon", "https://x"), ("webhook", None)]:
        with pytest.raises(ValueError):
            attach_bot(web.Application(), StubTables(), token="1:a", mode=mode,
                       public_url=url, telegram_api_url=None)


def test_mini_app_name_is_read_and_checked_at_start() -> None:
    from service.api.config import Config, ConfigError

    assert Config.from_env({}).mini_app_name is None
    assert Config.from_env({"MINI_APP_NAME": " play_1 "}).mini_app_name == "play_1"
    for bad in ["pl", "play/x", "https://t.me/bot/play", "x" * 31]:
        with pytest.raises(ConfigError):
            Config.from_env({"MINI_APP_NAME": bad})


def test_a_private_tables_link_carries_its_invite() -> None:
    from service.bot.links import Target, parse_payload

    invite = "Ab_-0123456789abcdefgh"
    assert parse_payload(f"table_0123456789abcdef_{invite}") == Target(
        "table", "0123456789abcdef", invite=invite)
    assert parse_payload("table_0123456789abcdef") == Target("table", "0123456789abcdef")
    assert parse_payload("play") is None
    config = BotConfig(public_url="https://x.example/app/")
    assert config.webapp_url("t1", "a-b_c") == "https://x.example/app/?table=t1&invite=a-b_c"
