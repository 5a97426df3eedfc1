"""The WebSocket protocol on a fake service: auth, resume, live order, actions, slow clients."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from aiohttp import WSMsgType, web
from aiohttp.test_utils import TestClient, TestServer

from service.api.auth import sign_init_data
from service.api.context import SOCKETS
from tests.support.fake_tables import FakeTables
from tests.support.signed import TOKEN, auth

Client = TestClient[web.Request, web.Application]


async def new_table(client: Client, *users: int) -> str:
    resp = await client.post("/api/tables", json={"ante": 10}, headers=auth(users[0]))
    table = str((await resp.json())["table_id"])
    for user in users:
        await client.post(f"/api/tables/{table}/seat", json={"buy_in": 100}, headers=auth(user))
    return table


async def connect(client: Client, table: str, user: int) -> Any:
    ws = await client.ws_connect(f"/api/tables/{table}/ws")
    await ws.send_json({"type": "auth", "init_data": sign_init_data(TOKEN, user_id=user,
                                                                     name="x")})
    return ws


async def test_bad_auth_closes_4401(client: Client) -> None:
    table = await new_table(client, 1)
    for frame in ({"type": "auth", "init_data": "nope"}, {"type": "resume", "after": 0},
                  {"nonsense": True}):
        ws = await client.ws_connect(f"/api/tables/{table}/ws")
        await ws.send_json(frame)
        msg = await ws.receive(timeout=2)
        assert msg.type == WSMsgType.CLOSE and ws.close_code == 4401
    ws = await client.ws_connect(f"/api/tables/{table}/ws")
    await ws.send_bytes(b"\x00")
    assert (await ws.receive(timeout=2)).type == WSMsgType.CLOSE and ws.close_code == 4401


async def test_unknown_table_closes_4404(client: Client) -> None:
    ws = await connect(client, "missing", 1)
    assert (await ws.receive(timeout=2)).type == WSMsgType.CLOSE and ws.close_code == 4404


async def test_resume_then_live_in_order_without_repeats(client: Client) -> None:
    table = await new_table(client, 1, 2)  # versions 1..3
    ws = await connect(client, table, 2)
    assert await ws.receive_json(timeout=2) == {"type": "ready", "version": 3}
    await ws.send_json({"type": "resume", "after": 1})
    got = [(await ws.receive_json(timeout=2))["version"] for _ in range(2)]
    assert got == [2, 3]
    for i in range(3):
        resp = await client.post(f"/api/tables/{table}/actions",
                                 json={"action_id": f"x{i}", "type": "call"}, headers=auth(1))
        assert resp.status == 200
    frames = [await ws.receive_json(timeout=2) for _ in range(3)]
    assert [f["version"] for f in frames] == [4, 5, 6]
    assert frames[0]["event"]["type"] == "acted" and frames[0]["type"] == "event"
    await ws.send_json({"type": "ping"})
    assert await ws.receive_json(timeout=2) == {"type": "pong"}
    await ws.close()


async def test_views_opt_in_puts_the_view_beside_each_event(client: Client) -> None:
    table = await new_table(client, 1, 2)  # versions 1..3
    ws = await connect(client, table, 2)
    await ws.receive_json(timeout=2)
    await ws.send_json({"type": "resume", "after": 2, "views": True})
    frame = await ws.receive_json(timeout=2)
    assert frame["version"] == 3 and frame["view"]["version"] == 3
    assert frame["view"]["viewer"] == 2 and "view" not in frame["event"]
    resp = await client.post(f"/api/tables/{table}/actions",
                             json={"action_id": "v1", "type": "call"}, headers=auth(1))
    assert resp.status == 200
    frame = await ws.receive_json(timeout=2)
    assert frame["version"] == 4 and frame["view"]["version"] == 4
    await ws.send_json({"type": "resume", "after": 3})  # without the opt-in: no views
    frame = await ws.receive_json(timeout=2)
    assert frame["version"] == 4 and "view" not in frame
    await ws.close()


async def test_actions_over_the_socket(client: Client) -> None:
    table = await new_table(client, 1)
    ws = await connect(client, table, 1)
    await ws.receive_json(timeout=2)
    await ws.send_json({"type": "action", "action": "call", "action_id": "w1"})
    assert await ws.receive_json(timeout=2) == {"type": "ack", "action_id": "w1", "version": 3}
    await ws.send_json({"type": "action", "action": {"type": "call", "action_id": "w1"}})
    assert await ws.receive_json(timeout=2) == {"type": "ack", "action_id": "w1", "version": 3}
    await ws.send_json({"type": "action", "action": "raise-the-roof", "action_id": "w2"})
    err = await ws.receive_json(timeout=2)
    assert err["type"] == "error" and err["action_id"] == "w2" and err["status"] == 422
    await ws.send_json({"type": "action", "action": "call", "action_id": "w3",
                        "expected_version": 1})
    err = await ws.receive_json(timeout=2)
    assert err["error"]["code"] == "version_conflict" and err["error"]["version"] == 3
    await ws.send_str("{garbage")
    assert (await ws.receive_json(timeout=2))["error"]["code"] == "malformed_json"
    await ws.send_json({"type": "action", "action": 5})
    assert (await ws.receive_json(timeout=2))["error"]["code"] == "invalid_body"
    await ws.send_json({"type": "action", "action": "call"})
    assert (await ws.receive_json(timeout=2))["error"]["code"] == "invalid_body"
    await ws.close()


async def test_slow_client_is_closed_4408_and_resumes(client: Client, fake: FakeTables) -> None:
    table = await new_table(client, 1)
    ws = await connect(client, table, 1)
    await ws.receive_json(timeout=2)
    await ws.send_json({"type": "resume", "after": 2})
    await asyncio.sleep(0.05)
    # One action, then 300 events of 64 KiB at once, and a client that reads nothing: the
    # socket's buffers fill, the queue of 8 fills, and 0.3 s later the server gives up.
    fake.burst, fake.pad = 300, 65536
    await client.post(f"/api/tables/{table}/actions", json={"action_id": "s", "type": "call"},
                      headers=auth(1))
    await asyncio.sleep(1.0)
    seen = []
    while True:
        msg = await ws.receive(timeout=2)
        if msg.type != WSMsgType.TEXT:
            break
        seen.append(msg.json()["version"])
    assert ws.close_code == 4408
    assert seen == list(range(3, 3 + len(seen)))  # what did arrive is in order
    ws = await connect(client, table, 1)
    ready = await ws.receive_json(timeout=2)
    last = seen[-1] if seen else 2
    await ws.send_json({"type": "resume", "after": last})
    rest = []
    for _ in range(ready["version"] - last):  # a catch-up this long just waits for the reader
        rest.append((await ws.receive_json(timeout=2))["version"])
        await asyncio.sleep(0.001)
    assert rest == list(range(last + 1, ready["version"] + 1))
    await ws.close()


async def test_socket_connects_and_actions_are_rate_limited(fake: FakeTables) -> None:
    from service.api.app import make_app
    from service.api.config import Config

    config = Config(bot_token=TOKEN, bot_mode="off", rate_per_second=0.5, rate_burst=4)
    async with TestClient(TestServer(make_app(config, tables=fake))) as c:
        table = await new_table(c, 1)  # create + seat: two tokens
        ws = await connect(c, table, 1)  # the third
        assert (await ws.receive_json(timeout=2))["type"] == "ready"
        await ws.send_json({"type": "action", "action": "call", "action_id": "r1"})
        assert (await ws.receive_json(timeout=2))["type"] == "ack"  # the fourth
        await ws.send_json({"type": "action", "action": "call", "action_id": "r2"})
        err = await ws.receive_json(timeout=2)
        assert err["status"] == 429 and err["error"]["code"] == "rate_limited"
        again = await connect(c, table, 1)
        assert (await again.receive(timeout=2)).type == WSMsgType.CLOSE
        assert again.close_code == 4429
        await ws.close()


async def test_sockets_are_set_up_a_few_at_a_time_and_every_one_gets_ready(
    fake: FakeTables,
) -> None:
    """Admission control (`WS_SETUP_CONCURRENCY`): a burst of sockets is set up at most N at
    once, the rest wait in line and are all served; the line does not hold the sockets up
    once they are ready (they get live events while others are still queued)."""
    from service.api.app import make_app
    from service.api.config import Config

    config = Config(bot_token=TOKEN, bot_mode="off", rate_per_second=1000, rate_burst=1000,
                    ws_setup_concurrency=2)
    inside, most = 0, 0
    real_version = fake.version

    async def slow_version(table_id: str) -> int:
        nonlocal inside, most
        inside += 1
        most = max(most, inside)
        try:
            await asyncio.sleep(0.02)
            return await real_version(table_id)
        finally:
            inside -= 1

    fake.version = slow_version  # type: ignore[method-assign]
    async with TestClient(TestServer(make_app(config, tables=fake))) as c:
        table = await new_table(c, 1, 2)  # versions 1..3
        sockets = await asyncio.gather(*(connect(c, table, 100 + i) for i in range(12)))
        readies = await asyncio.gather(*(ws.receive_json(timeout=5) for ws in sockets))
        assert readies == [{"type": "ready", "version": 3}] * 12
        assert most == 2
        for ws in sockets:
            await ws.send_json({"type": "resume", "after": 3})
        resp = await c.post(f"/api/tables/{table}/actions",
                            json={"action_id": "g1", "type": "call"}, headers=auth(1))
        assert resp.status == 200
        frames = await asyncio.gather(*(ws.receive_json(timeout=5) for ws in sockets))
        assert {f["version"] for f in frames} == {4}
        for ws in sockets:
            await ws.close()


async def test_a_closed_socket_is_freed_without_the_cyclic_collector(client: Client) -> None:
    """A finished socket leaves no server-side WebSocketResponse in cyclic garbage: reference
    counting frees it, so churning sockets do not pile up between full collections."""
    table = await new_table(client, 1)
    gc.collect()
    gc.disable()
    try:
        for _ in range(20):
            ws = await connect(client, table, 1)
            assert (await ws.receive_json(timeout=2))["type"] == "ready"
            await ws.close()
        # the app holds its sockets weakly: the set empties as each one is freed
        sockets = client.server.app[SOCKETS]
        for _ in range(200):
            if not sockets:
                break
            await asyncio.sleep(0.01)
        assert not sockets
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left = [o for o in gc.garbage if isinstance(o, web.WebSocketResponse)]
        assert left == []
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
