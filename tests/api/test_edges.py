"""Bad input at the edges of the real service: every number from outside
has an upper bound, a WebSocket frame has the same contract as the HTTP body, odd paths are
404s. Each is answered with a clear 4xx, writes nothing and leaves no traceback.

The app runs in-process over the real `TableService` on the real Redis (a namespace per test).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import WSMsgType, web
from aiohttp.test_utils import TestClient, TestServer

from events.store import open_store
from service.api.app import make_app
from service.api.auth import sign_init_data
from service.api.config import Config
from service.tables.service import TableService
from tests.support.e2e_game import user_ids
from tests.support.signed import TOKEN, auth

pytestmark = pytest.mark.redis

Client = TestClient[web.Request, web.Application]
TOO_BIG = 2**64


@pytest.fixture
async def service(redis_url: str, unique: str) -> AsyncIterator[TableService]:
    svc = TableService(open_store(redis_url), namespace=f"edge{unique}:")
    yield svc
    await svc.stop()
    await svc.store.close()


@pytest.fixture
async def real(service: TableService) -> AsyncIterator[Client]:
    config = Config(bot_token=TOKEN, bot_mode="off", rate_per_second=500, rate_burst=500)
    async with TestClient(TestServer(make_app(config, tables=service))) as c:
        yield c


async def listed(client: Client, user: int) -> list[dict[str, Any]]:
    resp = await client.get("/api/tables", headers=auth(user))
    assert resp.status == 200, await resp.text()
    return list((await resp.json())["tables"])


@pytest.mark.parametrize(
    "field", ["ante", "bet_unit", "min_buy_in", "max_buy_in", "turn_seconds",
              "svara_join_seconds", "next_hand_seconds", "max_raises", "rake_percent",
              "max_seats", "practice_bots"])
@pytest.mark.parametrize("value", [TOO_BIG, TOO_BIG * 2, 10**13])
async def test_huge_settings_are_refused_and_create_nothing(
    real: Client, field: str, value: int, caplog: pytest.LogCaptureFixture
) -> None:
    [user] = user_ids(1)
    body = {"ante": 10, field: value}
    with caplog.at_level(logging.ERROR):
        resp = await real.post("/api/tables", json=body, headers=auth(user))
    assert resp.status == 400, (field, value, resp.status, await resp.text())
    error = (await resp.json())["error"]
    assert error["code"] in ("invalid_body", "invalid_settings"), error
    assert field in error["message"], error
    assert await listed(real, user) == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_the_largest_accepted_settings_play_a_hand(real: Client) -> None:
    """The bounds are low enough that a hand at the limits still settles and snapshots (the
    old failure: OverflowError in encode_state after the events were appended)."""
    from service.game.settings import MAX_ANTE, MAX_CHIPS

    owner, other = user_ids(2)
    body = {"ante": MAX_ANTE, "bet_unit": MAX_ANTE, "min_buy_in": MAX_CHIPS,
            "max_buy_in": MAX_CHIPS, "max_seats": 2}
    resp = await real.post("/api/tables", json=body, headers=auth(owner))
    assert resp.status == 201, await resp.text()
    table = (await resp.json())["table_id"]
    service = real.server.app[_tables_key()]
    assert isinstance(service, TableService)
    for user in (owner, other):  # wallets this rich only exist by grant: fund them directly
        from service.game import wallet

        await service.bank.open(user)
        await service.bank.update(
            user, lambda s: wallet.grant(s, reason="practice", amount=MAX_CHIPS, now=0.0))
        resp = await real.post(f"/api/tables/{table}/seat", json={"buy_in": MAX_CHIPS},
                               headers=auth(user))
        assert resp.status == 200, await resp.text()
    for _ in range(20):
        view = await (await real.get(f"/api/tables/{table}", headers=auth(owner))).json()
        if view["phase"] == "settled":
            break
        turn = view["hand"]["turn"]
        user = next(s["user_id"] for s in view["seats"] if s["seat"] == turn)
        legal = {a["type"]: a for a in
                 (await (await real.get(f"/api/tables/{table}", headers=auth(user))).json())
                 ["you"]["legal"]}
        move: dict[str, Any] = {"action_id": f"m{view['version']}"}
        if "blind" in legal:  # everything in at once: the biggest pot these settings allow
            move |= {"type": "blind", "amount": legal["blind"]["max"]}
        elif "call" in legal:
            move |= {"type": "call"}
        elif "raise" in legal:
            move |= {"type": "raise", "amount": legal["raise"]["max"]}
        else:
            move |= {"type": "pass" if "pass" in legal else "fold"}
        resp = await real.post(f"/api/tables/{table}/actions", json=move, headers=auth(user))
        assert resp.status == 200, await resp.text()
    assert view["phase"] == "settled", view
    assert await service.store.load_snapshot(service.streams.table(table)) is not None


def _tables_key() -> Any:
    from service.api.context import TABLES

    return TABLES


async def connect(client: Client, table: str, user: int) -> Any:
    ws = await client.ws_connect(f"/api/tables/{table}/ws")
    await ws.send_json({"type": "auth", "init_data": sign_init_data(TOKEN, user_id=user,
                                                                     name="x")})
    ready = await ws.receive_json(timeout=5)
    assert ready["type"] == "ready", ready
    return ws


async def new_table(client: Client, *users: int) -> str:
    resp = await client.post("/api/tables", json={"ante": 10}, headers=auth(users[0]))
    assert resp.status == 201, await resp.text()
    table = str((await resp.json())["table_id"])
    for user in users:
        resp = await client.post(f"/api/tables/{table}/seat", json={"buy_in": 100},
                                 headers=auth(user))
        assert resp.status == 200, await resp.text()
    return table


@pytest.mark.parametrize("after", [2**53, 2**63, 2**64 - 1, 2**64])
async def test_resume_beyond_any_version_is_an_error_frame(
    real: Client, after: int, caplog: pytest.LogCaptureFixture
) -> None:
    [user] = user_ids(1)
    table = await new_table(real, user)
    ws = await connect(real, table, user)
    with caplog.at_level(logging.ERROR):
        await ws.send_str(f'{{"type": "resume", "after": {after}}}')
        frame = await ws.receive_json(timeout=5)
    assert frame["type"] == "error" and frame["status"] == 400, frame
    assert "after" in frame["error"]["message"], frame
    await ws.send_json({"type": "ping"})  # still open, still answering
    assert await ws.receive_json(timeout=5) == {"type": "pong"}
    await ws.send_json({"type": "resume", "after": 0})  # and a good resume still works
    assert (await ws.receive_json(timeout=5))["version"] == 1
    await ws.close()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_events_after_beyond_any_version_is_400(real: Client, service: TableService) -> None:
    [user] = user_ids(1)
    table = await new_table(real, user)
    resp = await real.get(f"/api/tables/{table}/events?after={2**64 - 1}", headers=auth(user))
    assert resp.status == 400
    from service.tables.facade import ServiceError

    with pytest.raises(ServiceError) as refused:
        await service.events(None, table, 2**64 - 1)
    assert refused.value.status == 400


@pytest.mark.parametrize("path", ["/app.css%00", "/%00", "/js/app.js%00.map", "/%00/x"])
async def test_null_bytes_in_paths_are_404(real: Client, path: str) -> None:
    resp = await real.get(path)
    assert resp.status == 404, (path, resp.status)


@pytest.mark.parametrize("extra", [{"user_id": 5}, {"seat": 0}, {"actionid": "x"}])
@pytest.mark.parametrize("nested", [False, True])
async def test_a_socket_action_with_unknown_fields_is_refused_like_http(
    real: Client, service: TableService, extra: dict[str, Any], nested: bool
) -> None:
    owner, other = user_ids(2)
    table = await new_table(real, owner, other)
    version = (await service.view(None, table))["version"]
    body = {"action_id": "a1", "type": "fold", **extra}
    resp = await real.post(f"/api/tables/{table}/actions", json=body, headers=auth(owner))
    http_error = await resp.json()
    assert resp.status == 400, http_error
    ws = await connect(real, table, owner)
    if nested:
        frame = {"type": "action", "action": body}
    else:
        frame = {"type": "action", "action": "fold", "action_id": "a1", **extra}
    await ws.send_json(frame)
    answer = await ws.receive_json(timeout=5)
    assert answer["type"] == "error" and answer["status"] == 400, answer
    assert answer["error"]["code"] == http_error["error"]["code"], (answer, http_error)
    assert (await service.view(None, table))["version"] == version  # nothing appended
    await ws.close()
    assert (await ws.receive()).type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING)


async def test_every_503_leaves_a_log_line_saying_why(caplog: pytest.LogCaptureFixture) -> None:
    """Item 5: a store that cannot be reached answers 503 over HTTP and 1011 over the socket,
    and each one is logged with its cause (it was silent before)."""
    from tests.support.redis_servers import free_port

    down = TableService(open_store(f"redis://127.0.0.1:{free_port()}/0"), namespace="down:")
    config = Config(bot_token=TOKEN, bot_mode="off")
    try:
        async with TestClient(TestServer(make_app(config, tables=down))) as client:
            with caplog.at_level(logging.WARNING, logger="svara.api"):
                resp = await client.get("/api/tables/abc", headers=auth(7))
                assert resp.status == 503
                assert (await resp.json())["error"]["code"] == "store_unavailable"
                ws = await client.ws_connect("/api/tables/abc/ws")
                await ws.send_json({"type": "auth", "init_data": sign_init_data(
                    TOKEN, user_id=7, name="x")})
                msg = await ws.receive(timeout=10)
                assert msg.type == WSMsgType.CLOSE and ws.close_code == 1011
        lines = [r.getMessage() for r in caplog.records if "503" in r.getMessage()]
        assert len(lines) == 2, lines
        assert all("StoreUnavailable" in line and "refused" in line.lower() for line in lines), \
            lines
    finally:
        await down.store.close()


async def test_the_lobby_pages_over_http(real: Client, service: TableService) -> None:
    [user] = user_ids(1)
    created = set()
    for _ in range(5):
        resp = await real.post("/api/tables", json={"ante": 10}, headers=auth(user))
        created.add((await resp.json())["table_id"])
    seen: list[str] = []
    cursor = ""
    for _ in range(5):
        resp = await real.get(f"/api/tables?limit=2{cursor}", headers=auth(user))
        assert resp.status == 200
        page = await resp.json()
        assert len(page["tables"]) <= 2
        seen += [t["table_id"] for t in page["tables"]]
        if page["next"] is None:
            break
        cursor = f"&cursor={page['next']}"
    assert seen == sorted(created)
    for bad in ("limit=0", "limit=201", "limit=x", "cursor=%00", "cursor=" + "a" * 65,
                f"limit={2**64}"):
        resp = await real.get(f"/api/tables?{bad}", headers=auth(user))
        assert resp.status == 400, bad
        assert (await resp.json())["error"]["code"] == "invalid_parameter"


@pytest.mark.serial  # a burst on the shared Redis: not beside other tests
async def test_a_burst_of_200_creations_over_http_all_succeed_at_once(real: Client) -> None:
    """Creations do not contend, through HTTP: 200 users create a table each at the same moment;
    every one is a 201 at the first try (no `503 busy`), and the lobby lists all 200."""
    users = user_ids(200)

    async def create(user: int) -> tuple[int, Any]:
        resp = await real.post("/api/tables", json={"ante": 10}, headers=auth(user))
        return resp.status, await resp.json()

    answers = await asyncio.gather(*(create(u) for u in users))
    assert [status for status, _ in answers] == [201] * 200, [a for a in answers if a[0] != 201]
    created = {body["table_id"] for _, body in answers}
    listed: list[str] = []
    cursor = ""
    while True:
        resp = await real.get(f"/api/tables?limit=200{cursor}", headers=auth(users[0]))
        page = await resp.json()
        listed += [t["table_id"] for t in page["tables"]]
        if page["next"] is None:
            break
        cursor = f"&cursor={page['next']}"
    assert sorted(listed) == sorted(created) and len(created) == 200
