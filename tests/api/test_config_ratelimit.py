"""Environment parsing and the per-user token bucket."""

from __future__ import annotations

import pytest

from service.api.config import Config, ConfigError
from service.api.ratelimit import RateLimiter


def test_defaults_are_dev_mode_on_the_embedded_store() -> None:
    config = Config.from_env({})
    assert config.dev_mode and config.redis_url is None and not config.bot_enabled
    assert config.signing_token == config.dev_token and config.auth_max_age == 86400


def test_bot_settings() -> None:
    config = Config.from_env({"BOT_TOKEN": "1:x", "PUBLIC_URL": "https://svara.example",
                              "AUTH_MAX_AGE": "300", "REDIS_URL": "redis://r:6379/0"})
    assert not config.dev_mode and config.signing_token == "1:x"
    assert config.bot_mode == "webhook" and config.bot_enabled and config.auth_max_age == 300
    assert Config.from_env({"BOT_TOKEN": "1:x"}).bot_mode == "polling"
    assert not Config.from_env({"BOT_TOKEN": "1:x", "BOT_MODE": "off"}).bot_enabled


def test_namespace() -> None:
    assert Config.from_env({"SVARA_NAMESPACE": "run-1"}).namespace == "run-1:"
    assert Config.from_env({}).namespace == ""
    with pytest.raises(ConfigError):
        Config.from_env({"SVARA_NAMESPACE": "a b"})


def test_idle_close_seconds_defaults_to_ten_minutes() -> None:
    assert Config.from_env({}).idle_close_seconds == 600
    assert Config.from_env({"IDLE_CLOSE_SECONDS": "1"}).idle_close_seconds == 1
    for bad in ("0", "-5", "soon"):
        with pytest.raises(ConfigError):
            Config.from_env({"IDLE_CLOSE_SECONDS": bad})


def test_dev_token_can_be_shared_between_replicas() -> None:
    assert Config.from_env({"DEV_TOKEN": "shared"}).signing_token == "shared"


@pytest.mark.parametrize("env", [
    {"BOT_MODE": "carrier-pigeon"}, {"AUTH_MAX_AGE": "soon"}, {"AUTH_MAX_AGE": "0"},
    {"BOT_TOKEN": "1:x", "BOT_MODE": "webhook"},
])
def test_bad_values_stop_the_server(env: dict[str, str]) -> None:
    with pytest.raises(ConfigError):
        Config.from_env(env)


def test_bucket_allows_a_burst_then_refills() -> None:
    now = [0.0]
    limiter = RateLimiter(rate=2, burst=3, clock=lambda: now[0])
    assert [limiter.allow(1) for _ in range(4)] == [True, True, True, False]
    assert limiter.allow(2)  # per user
    assert limiter.retry_after(1) == pytest.approx(0.5)
    now[0] = 0.5
    assert limiter.allow(1) and not limiter.allow(1)
    now[0] = 100.0
    assert [limiter.allow(1) for _ in range(4)] == [True, True, True, False]


def test_bucket_memory_is_bounded() -> None:
    now = [0.0]
    limiter = RateLimiter(rate=1, burst=1, clock=lambda: now[0], max_users=10)
    for user in range(10):
        limiter.allow(user)
    now[0] = 5.0
    limiter.allow(99)
    assert len(limiter._buckets) == 1
