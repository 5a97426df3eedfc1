"""`GET /metrics` and JSON logs of a real `svara serve` on Redis, after a real hand.

The metrics are scraped over HTTP and parsed with prometheus_client's own parser; the logs are
the process's stderr with `LOG_FORMAT=json LOG_LEVEL=DEBUG` (everything the process logs).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import urllib.request
import uuid
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families
from redis.asyncio import Redis

from events.store import open_store
from service import metrics
from service.game.settings import TableSettings, validated
from service.logs import REDACTED, JsonFormatter, Redactor, TextFormatter
from service.tables.facade import ServiceError, User
from service.tables.service import TableService
from tests.support.e2e_game import TOKEN, new_table, play, server_env, user_ids
from tests.support.http_player import HttpPlayer
from tests.support.serve import Server

JSON = dict[str, Any]
CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])[789TJQKA][cdhs](?![A-Za-z0-9])")


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


async def delete_namespace(redis_url: str, namespace: str) -> None:
    """The shared Redis keeps nothing of this test's namespace."""
    client = Redis.from_url(redis_url)
    try:
        keys = [k async for k in client.scan_iter(match=f"svara:{{{namespace}:*")]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


def scrape(url: str) -> dict[str, list[tuple[str, dict[str, str], float]]]:
    """family name -> [(sample name, labels, value)], parsed by prometheus_client."""
    with urllib.request.urlopen(f"{url}/metrics", timeout=5) as resp:
        assert resp.status == 200
        assert resp.headers["Content-Type"].startswith("text/plain")
        text = resp.read().decode()
    return {
        family.name: [(s.name, dict(s.labels), s.value) for s in family.samples]
        for family in text_string_to_metric_families(text)
    }


def total(samples: list[tuple[str, dict[str, str], float]], name: str, **labels: str) -> float:
    return sum(
        value for sample, got, value in samples
        if sample == name and all(got.get(k) == v for k, v in labels.items())
    )


def finite_buckets(samples: list[tuple[str, dict[str, str], float]], **labels: str) -> float:
    """The count in the histogram's finite buckets (le < +Inf) matching `labels`."""
    return max(
        (value for sample, got, value in samples
         if sample.endswith("_bucket") and got["le"] != "+Inf"
         and all(got.get(k) == v for k, v in labels.items())),
        default=0.0,
    )


@pytest.mark.redis
@pytest.mark.slow
async def test_metrics_and_json_logs_after_a_hand(
    redis_url: str, session: aiohttp.ClientSession
) -> None:
    env = server_env(redis_url, LOG_FORMAT="json", LOG_LEVEL="DEBUG")
    server = Server(env).start()
    players = [HttpPlayer(session, server.url, u, TOKEN) for u in user_ids(3)]
    try:
        table = await new_table(players[0], players, buy_in=1000, next_hand_seconds=1)
        feeds = [await p.listen(table) for p in players]
        await play(players, table, hands=1, seed=11)
        # The pause after the hand is a deadline: the timer deals hand 2 when it passes.
        await feeds[0].wait_until(
            lambda e: e["type"] == "hand_started" and e["data"].get("number") == 2, within=15)
        # Refusals the logs must not turn into leaks: a forged initData, a bad socket auth.
        forged = players[0].init_data.replace("auth_date=", "auth_date=1")
        async with session.get(f"{server.url}/api/me",
                               headers={"Authorization": f"tma {forged}"}) as resp:
            assert resp.status == 401
        status, _ = await players[1].act(table, "raise", 10**9)
        assert status in (403, 422)

        families = await asyncio.to_thread(scrape, server.url)
        actions = families["svara_actions"]
        assert total(actions, "svara_actions_total", outcome="appended") >= 3
        assert total(actions, "svara_actions_total", outcome="refused") >= 1
        assert finite_buckets(families["svara_action_duration_seconds"],
                              outcome="appended") >= 3
        http = families["svara_http_request_duration_seconds"]
        assert finite_buckets(http, handler="act") >= 3
        assert finite_buckets(http, handler="seat") == 3
        responses = families["svara_http_responses"]
        assert total(responses, "svara_http_responses_total", handler="me", status="401") == 1
        appends = families["svara_appends"]
        assert total(appends, "svara_appends_total", result="appended") >= 5
        assert total(families["svara_events_appended"], "svara_events_appended_total") >= 10
        assert "svara_version_conflicts" in families
        assert total(families["svara_open_websockets"], "svara_open_websockets") == 3
        assert total(families["svara_timer_ticks"], "svara_timer_ticks_total") >= 1
        assert finite_buckets(families["svara_timer_lag_seconds"]) >= 1
        assert total(families["svara_event_loop_lag_seconds"],
                     "svara_event_loop_lag_seconds_count") >= 1  # the probe runs while serving
        for name in ("svara_bot_messages", "svara_bot_rate_limited",
                     "process_resident_memory_bytes"):
            assert name in families, name
        for f in feeds:
            await f.close()
        await asyncio.sleep(0)
    finally:
        assert server.stop() == 0, server.output()[-3000:]
        await delete_namespace(redis_url, env["SVARA_NAMESPACE"])

    # The logs: every line one JSON object; appends carry table, version and action id.
    lines = [line for line in server.output().splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]
    for record in records:
        assert {"time", "level", "logger", "message"} <= record.keys(), record
    mine = [r for r in records if r.get("table") == table]
    assert any(
        isinstance(r.get("version"), int) and str(r.get("action_id", "")).startswith(
            f"{players[0].user_id}:") for r in mine
    ), mine[:5]
    assert any(r.get("action_id") == f"create:{table}" for r in mine)
    text = server.output()
    for p in players:
        assert p.init_data not in text
        assert p.init_data.rsplit("hash=", 1)[1][:64] not in text
    assert TOKEN not in text
    assert forged not in text
    assert not CARD_TOKEN.findall(text), CARD_TOKEN.findall(text)[:5]


@pytest.mark.redis
async def test_version_conflict_is_counted(redis_url: str, unique: str) -> None:
    """Two services on one table: the one whose cached state is stale gets a conflict on its
    append (counted), decides again on the newer state and succeeds."""
    stores = [open_store(redis_url), open_store(redis_url)]
    a, b = (TableService(s, namespace=f"metrics-{unique}:") for s in stores)
    users = [User(id=u, name=f"P{u}") for u in user_ids(3)]
    try:
        table = await a.create_table(users[0], validated(TableSettings(ante=10,
                                                                       next_hand_seconds=0)))
        for user in users:
            await a.seat(user, table, 200)
        views = [await b.view(u, table) for u in users]  # b caches the table here
        turn = next(u for u, v in zip(users, views, strict=True)
                    if {"type": "look"} in v["you"]["legal"])
        await a.act(turn, table, action_id="look-a", type="look")
        before = metrics.version_conflicts._value.get()
        conflicts = metrics.appends.labels("conflict")._value.get()
        # Decided on b's stale cache (not looked yet), refused by the append's version check,
        # decided again on the newer state: already looked.
        with pytest.raises(ServiceError) as refused:
            await b.act(turn, table, action_id="look-b", type="look")
        assert refused.value.code == "already_looked"
        assert metrics.version_conflicts._value.get() == before + 1
        assert metrics.appends.labels("conflict")._value.get() == conflicts + 1
    finally:
        for s in stores:
            await s.close()
        await delete_namespace(redis_url, f"metrics-{unique}")


def test_redactor_blanks_secrets_in_both_formats() -> None:
    """A line that names initData, the bot token or a configured secret is blanked, whoever
    logged it (text and JSON, message and traceback)."""
    from service.api.auth import sign_init_data

    token = "123456789:AAH" + "x" * 32
    init_data = sign_init_data(token, user_id=5, name="Eve")
    dev = "dev-" + uuid.uuid4().hex
    redact = Redactor([dev])
    logger = logging.getLogger("test.redact")
    record = logger.makeRecord(
        "test.redact", logging.ERROR, __file__, 1,
        "calling https://api.telegram.org/bot%s/getMe with %s and %s", (token, init_data, dev),
        None, extra={"table": "t1", "version": 3, "action_id": "9:a"},
    )
    try:
        raise RuntimeError(f"boom {init_data}")
    except RuntimeError:
        import sys

        record.exc_info = sys.exc_info()
    for formatter in (JsonFormatter(redact), TextFormatter(redact)):
        line = formatter.format(record)
        assert token not in line and init_data not in line and dev not in line, line
        assert init_data.rsplit("hash=", 1)[1][:64] not in line
        assert REDACTED in line
    parsed = json.loads(JsonFormatter(redact).format(record))
    assert (parsed["table"], parsed["version"], parsed["action_id"]) == ("t1", 3, "9:a")
    assert parsed["level"] == "ERROR" and "exception" in parsed


def test_log_format_and_backlog_are_checked_at_start() -> None:
    from service.api.config import Config, ConfigError

    assert Config.from_env({}).log_format == "text"
    assert Config.from_env({"LOG_FORMAT": "JSON"}).log_format == "json"
    assert Config.from_env({}).listen_backlog == 4096
    assert Config.from_env({"LISTEN_BACKLOG": "16384"}).listen_backlog == 16384
    assert Config.from_env({}).ws_setup_concurrency == 32
    assert Config.from_env({"WS_SETUP_CONCURRENCY": "8"}).ws_setup_concurrency == 8
    for env in ({"LOG_FORMAT": "xml"}, {"LISTEN_BACKLOG": "0"}, {"LISTEN_BACKLOG": "many"},
                {"WS_SETUP_CONCURRENCY": "0"}):
        with pytest.raises(ConfigError):
            Config.from_env(env)


def test_action_labels_stay_bounded() -> None:
    """Whatever `type` a client sends, the counter's labels are the known types or `other`."""
    other = metrics.actions.labels("other", "refused")
    before = other._value.get()
    for bogus in ("drop_table", ["look"], None, "x" * 500):
        metrics.observe_action(bogus, "refused", 0.001)
    assert other._value.get() == before + 4
    labels = {s.labels["type"] for s in metrics.actions.collect()[0].samples}
    assert labels <= {*metrics.ACTION_TYPES}
