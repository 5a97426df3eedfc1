"""The HTTP layer on a fake service: auth, error format, body validation, limits, OpenAPI."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.api.app import make_app
from service.api.config import Config
from service.api.errors import unmatched
from service.api.openapi import openapi_document
from tests.support.fake_tables import FakeTables
from tests.support.signed import auth

Client = TestClient[web.Request, web.Application]


async def error_of(resp: Any, status: int) -> str:
    assert resp.status == status, await resp.text()
    body = await resp.json()
    assert set(body["error"]) >= {"code", "message"}
    return str(body["error"]["code"])


async def test_health_and_openapi_need_no_auth(client: Client) -> None:
    assert (await (await client.get("/api/health")).json()) == {"status": "ok"}
    doc = await (await client.get("/api/openapi.json")).json()
    assert doc["openapi"].startswith("3.")


async def test_openapi_describes_every_api_route(client: Client) -> None:
    documented = set(openapi_document()["paths"])
    for route in client.app.router.routes():
        if route.handler is unmatched:  # the catch-all answering 404/405 in JSON
            continue
        path = route.resource.canonical if route.resource else ""
        if path.startswith(("/api", "/dev")):
            normal = path.replace("{table_id}", "{id}").replace("{hand}", "{n}")
            assert normal in documented, path


async def test_missing_and_forged_init_data_is_401(client: Client) -> None:
    assert await error_of(await client.get("/api/me"), 401) == "missing_init_data"
    forged = auth(1, token="9:not-the-token")
    assert await error_of(await client.get("/api/me", headers=forged), 401) == "invalid_init_data"
    bearer = {"Authorization": "Bearer x"}
    assert await error_of(await client.get("/api/me", headers=bearer), 401)
    me = await (await client.get("/api/me", headers=auth(5, "Ana"))).json()
    assert me["user"] == {"id": 5, "name": "Ana"}


async def test_dev_route_absent_with_a_bot_token(client: Client) -> None:
    assert await error_of(await client.get("/dev/init-data?user_id=1"), 404) == "not_found"


def test_an_app_given_tables_runs_no_bot_on_them(fake: FakeTables) -> None:
    """The bot runs on the app's own TableService (the bot's port is wider than the API's):
    asked to run it on tables handed in, the app says so at once rather than start half a
    bot."""
    config = Config(bot_token="4242:api-test-token", bot_mode="polling")
    with pytest.raises(ValueError, match="own TableService"):
        make_app(config, tables=fake)


async def test_dev_mode_signs_test_users(fake: FakeTables) -> None:
    async with TestClient(TestServer(make_app(Config(), tables=fake))) as c:
        resp = await c.get("/dev/init-data", params={"user_id": "7", "name": "Dev"})
        init = (await resp.json())["init_data"]
        me = await (await c.get("/api/me", headers={"Authorization": f"tma {init}"})).json()
        assert me["user"] == {"id": 7, "name": "Dev"}
        assert await error_of(await c.get("/dev/init-data?user_id=x"), 400)
        assert await error_of(await c.get("/dev/init-data"), 400)


async def test_create_seat_act_and_errors(client: Client) -> None:
    resp = await client.post("/api/tables", json={"ante": 10, "turn_seconds": 5},
                             headers=auth(1))
    assert resp.status == 201
    table = (await resp.json())["table_id"]
    base = f"/api/tables/{table}"
    assert (await client.post(f"{base}/seat", json={"buy_in": 200}, headers=auth(1))).status == 200
    action = {"action_id": "a1", "type": "call"}
    first = await (await client.post(f"{base}/actions", json=action, headers=auth(1))).json()
    again = await (await client.post(f"{base}/actions", json=action, headers=auth(1))).json()
    assert first == again == {"version": 3}
    stale = {"action_id": "a2", "type": "call", "expected_version": 1}
    resp = await client.post(f"{base}/actions", json=stale, headers=auth(1))
    assert await error_of(resp, 409) == "version_conflict"
    assert (await resp.json())["version"] == 3
    resp = await client.post(f"{base}/actions", json={"action_id": "a3", "type": "call"},
                             headers=auth(2))
    assert await error_of(resp, 403) == "not_seated"
    resp = await client.post(f"{base}/actions", json={"action_id": "a4", "type": "dance"},
                             headers=auth(1))
    assert await error_of(resp, 422) == "unknown_action"
    resp = await client.post(f"{base}/seat", json={"buy_in": 200}, headers=auth(1))
    assert await error_of(resp, 409) == "already_seated"
    events = await (await client.get(f"{base}/events?after=1", headers=auth(1))).json()
    assert [e["version"] for e in events["events"]] == [2, 3]
    assert await error_of(await client.get(f"{base}/events?after=-1", headers=auth(1)), 400)
    assert await error_of(await client.get(f"{base}/hands/1/audit", headers=auth(1)), 409)
    assert await error_of(await client.get("/api/tables/nope", headers=auth(1)), 404)
    assert await error_of(await client.get("/api/tables/../etc", headers=auth(1)), 404)


async def test_bad_bodies_are_4xx(client: Client) -> None:
    h = auth(1)
    cases: list[tuple[bytes, int]] = [
        (b"{not json", 400), (b"[]", 400), (b'{"ante": "ten"}', 400), (b"", 400),
        # a number outside the game's bounds is refused by the body's schema (400); a set of
        # numbers each in bounds that the game refuses together is a 422 (invalid_settings)
        (b'{"ante": 10, "max_seats": 11}', 400), (b'{"ante": 10, "colour": "red"}', 400),
        (b'{"ante": 10, "min_buy_in": 500, "max_buy_in": 200}', 422),
        (b'{"ante": 10, "turn_seconds": 1.5}', 400), (b"\xff\xfe", 400),
        (b'{"ante": 10, "practice_bots": 99}', 400), (b"x" * 10_000, 413),
    ]
    for raw, status in cases:
        resp = await client.post("/api/tables", data=raw, headers=h)
        assert await error_of(resp, status), raw


async def test_a_service_bug_is_500_with_the_error_format(client: Client, fake: FakeTables) -> None:
    table = (await (await client.post("/api/tables", json={"ante": 10}, headers=auth(1))).json())
    base = f"/api/tables/{table['table_id']}"
    await client.post(f"{base}/seat", json={"buy_in": 100}, headers=auth(1))
    resp = await client.post(f"{base}/actions", json={"action_id": "b", "type": "boom"},
                             headers=auth(1))
    assert await error_of(resp, 500) == "internal_error"
    assert "bug" not in await resp.text()


async def test_rate_limit_is_429_per_user(fake: FakeTables) -> None:
    config = Config(bot_token="4242:api-test-token", bot_mode="off", rate_per_second=1,
                    rate_burst=3)
    async with TestClient(TestServer(make_app(config, tables=fake))) as c:
        statuses = [(await c.get("/api/me", headers=auth(1))).status for _ in range(5)]
        assert statuses[:3] == [200] * 3 and statuses[3:] == [429, 429]
        assert (await c.get("/api/me", headers=auth(2))).status == 200


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=8,
)
action_like = st.fixed_dictionaries({}, optional={
    "action_id": json_values | st.text(max_size=5), "type": json_values | st.sampled_from(
        ["call", "fold", "raise", "look"]), "amount": json_values,
    "expected_version": json_values,
})


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.one_of(json_values, action_like), path=st.sampled_from(
    ["/api/tables", "/api/tables/t1/seat", "/api/tables/t1/actions", "/api/tables/t1/leave"]))
async def test_no_body_makes_a_500(client: Client, fake: FakeTables, body: Any, path: str) -> None:
    if "t1" not in fake.tables:
        await client.post("/api/tables", json={"ante": 10}, headers=auth(1))
        await client.post("/api/tables/t1/seat", json={"buy_in": 100}, headers=auth(1))
    resp = await client.post(path, data=json.dumps(body), headers=auth(1))
    assert resp.status < 500, await resp.text()


async def test_web_app_is_served_at_the_root(client: Client) -> None:
    resp = await client.get("/")
    assert resp.status == 200 and resp.content_type == "text/html"
    assert (await client.get("/no-such-file.js")).status == 404
    assert (await client.get("/%2e%2e/%2e%2e/etc/passwd")).status == 404
    assert await error_of(await client.get("/api/no-such-route"), 404) == "not_found"
    refused = await client.delete("/api/tables")
    assert await error_of(refused, 405) == "method_not_allowed"
    assert set(refused.headers["Allow"].split(",")) >= {"GET", "POST"}
    assert await error_of(await client.put("/api/me"), 405) == "method_not_allowed"


async def test_cached_init_data_still_expires(fake: FakeTables) -> None:
    import asyncio
    import time

    from service.api.auth import sign_init_data

    config = Config(bot_token="4242:api-test-token", bot_mode="off", auth_max_age=60)
    init = sign_init_data(config.signing_token, user_id=3, name="x",
                          auth_date=int(time.time()) - 59)
    async with TestClient(TestServer(make_app(config, tables=fake))) as c:
        headers = {"Authorization": f"tma {init}"}
        assert (await c.get("/api/me", headers=headers)).status == 200
        await asyncio.sleep(1.2)
        assert await error_of(await c.get("/api/me", headers=headers), 401) == "expired_init_data"
