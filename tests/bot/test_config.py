"""Links, payloads, secrets and /newtable arguments: the bot's pure parts."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.bot.config import (
    BotConfig,
    deep_link,
    table_id_from_payload,
    webhook_secret,
)
from service.bot.keyboards import webapp_keyboard
from service.bot.routers.group import UsageError, parse_newtable_args
from tests.bot.conftest import catalogs

ids = st.from_regex(r"[A-Za-z0-9_-]{1,58}", fullmatch=True)


@given(ids)
def test_a_deep_link_payload_round_trips(table_id: str) -> None:
    link = deep_link("svara_bot", table_id)
    payload = link.split("?start=", 1)[1]
    assert len(payload) <= 64  # Telegram's limit for /start payloads
    assert table_id_from_payload(payload) == table_id


@pytest.mark.parametrize("payload", [None, "", "table_", "tbl_x", "table_a b", "table_a/b",
                                     "table_" + "x" * 59, "play"])
def test_other_payloads_are_not_tables(payload: str | None) -> None:
    assert table_id_from_payload(payload) is None


def test_webapp_url() -> None:
    assert BotConfig(public_url=None).webapp_url("t") is None
    config = BotConfig(public_url="https://x.example/app/")
    assert config.webapp_url() == "https://x.example/app/"
    assert config.webapp_url("ab_1") == "https://x.example/app/?table=ab_1"


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


def test_a_private_tables_link_carries_its_invite() -> None:
    from service.bot.config import table_link_from_payload

    invite = "Ab_-0123456789abcdefgh"
    assert table_link_from_payload(f"table_0123456789abcdef_{invite}") == (
        "0123456789abcdef", invite)
    assert table_link_from_payload("table_0123456789abcdef") == ("0123456789abcdef", None)
    assert table_link_from_payload("table_my_table") == ("my_table", None)
    assert table_link_from_payload("play") is None
    config = BotConfig(public_url="https://x.example/app/")
    assert config.webapp_url("t1", "a-b_c") == "https://x.example/app/?table=t1&invite=a-b_c"
