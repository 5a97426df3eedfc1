"""The docker-compose topology with real parts and no Docker engine (the runbook's deploy,
exercised: deploy/README.md): Redis with `deploy/redis.conf`, two `svara serve` replicas in
webhook mode (the fake Bot API of tests/bot plays Telegram), and Debian's nginx with
`deploy/nginx.conf` filled in as the nginx image does. Telegram's webhook calls reach both
replicas through nginx and are answered; players play a hand through nginx over HTTP and
WebSocket; one replica is killed with SIGKILL; they reconnect through nginx, resume after their
last version and play on, served by the other replica alone.
"""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from service.bot.config import WEBHOOK_PATH
from tests.deploy.nginx import Nginx
from tests.support.e2e_game import TOKEN, chips_on_table, new_table, play, server_env, user_ids
from tests.support.fake_bot_api import FakeBotAPI, message_update
from tests.support.http_player import HttpPlayer, check_feed
from tests.support.redis_servers import RedisServer
from tests.support.redis_servers import free_port as free_redis_port
from tests.support.serve import Server, free_port

pytestmark = [pytest.mark.redis, pytest.mark.slow]
REDIS_CONF = Path(__file__).resolve().parents[2] / "deploy" / "redis.conf"
GRANT = 1000


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


async def logged_so_far(proxy: Nginx) -> list[tuple[int, list[str], str]]:
    """nginx's access log up to now. A line is written once its response has gone out, so a
    client can read the log before its last request's line: a marker request is logged after
    every request that finished before it (one worker)."""
    marker = f"/api/health?marker={uuid.uuid4().hex}"
    assert await asyncio.to_thread(status_of, f"{proxy.url}{marker}") == 200
    for _ in range(250):  # a file, not an event: looked at every 20 ms, for 5 s at most
        lines = proxy.access()
        if any(marker in request for _, _, request in lines):
            return lines
        await asyncio.sleep(0.02)
    raise AssertionError("nginx did not log the marker request")


async def test_hand_through_nginx_survives_a_killed_replica(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    redis = RedisServer(tmp_path / "redis", free_redis_port(), config=REDIS_CONF).start()
    telegram = FakeBotAPI(TOKEN)
    await telegram.start()
    namespace = f"deploy-{uuid.uuid4().hex[:8]}"
    public_port = free_port()
    # As docker-compose.yml runs them: every replica in webhook mode behind the proxy.
    env = server_env(redis.url, namespace=namespace, LOG_FORMAT="json", BOT_MODE="webhook",
                     PUBLIC_URL=f"http://127.0.0.1:{public_port}",
                     TELEGRAM_API_URL=telegram.url)
    replicas = [Server(env) for _ in range(2)]
    proxy: Nginx | None = None
    try:
        for replica in replicas:  # in a thread: the fake Bot API answers from this loop
            await asyncio.to_thread(replica.start, 60.0)  # a deadline, not a wait: busy CI
        proxy = Nginx(tmp_path / "nginx", public_port,
                      [f"127.0.0.1:{r.port}" for r in replicas]).start()

        # Telegram's webhook calls go through the proxy to either replica; each answers.
        hooks = [(await telegram.wait_for("setWebhook", within=10)).params]
        assert hooks[0]["url"] == f"{proxy.url}{WEBHOOK_PATH}"
        for user in (61, 62, 63, 64):
            assert await telegram.deliver(message_update("/start", user_id=user)) == 200
            await telegram.wait_for("sendMessage",
                                    lambda c, u=user: str(c.params["chat_id"]) == str(u))
        logged = await logged_so_far(proxy)
        webhook_upstreams = {tried[-1] for _, tried, request in logged if WEBHOOK_PATH in request}
        assert len(webhook_upstreams) == 2, logged

        # Metrics: on each replica's own port, never through the public side.
        assert await asyncio.to_thread(status_of, f"{proxy.url}/metrics") == 404
        for replica in replicas:
            assert await asyncio.to_thread(status_of, f"{replica.url}/metrics") == 200

        players = [HttpPlayer(session, proxy.url, u, TOKEN) for u in user_ids(3)]
        table = await new_table(players[0], players, buy_in=500, turn_seconds=60,
                                next_hand_seconds=0)
        feeds = [await p.listen(table) for p in players]  # round-robin: on both replicas
        await play(players, table, hands=1, seed=21)
        version = (await players[0].view(table))["version"]
        await asyncio.gather(*(f.wait_for(version) for f in feeds))
        before = await logged_so_far(proxy)
        addresses = [f"127.0.0.1:{r.port}" for r in replicas]
        assert {u for _, tried, _ in before for u in tried} == {"-", *addresses}  # "-": /metrics

        replicas[0].kill()  # SIGKILL: its sockets drop, its port refuses
        readers = [f._task for f in feeds if f._task is not None]
        done, _ = await asyncio.wait(readers, timeout=10, return_when=asyncio.FIRST_COMPLETED)
        assert done, "no socket noticed the kill"
        seen = []
        for f in feeds:
            seen.append(list(f.events))
            await f.close()
        # Reconnect through nginx, resuming after the last version each socket saw.
        feeds = [await p.listen(table, after=s[-1]["version"]) for p, s in
                 zip(players, seen, strict=True)]
        last = await play(players, table, hands=2, seed=22)
        version = max(last["version"], (await players[0].view(table))["version"])
        await asyncio.gather(*(f.wait_for(version) for f in feeds))

        for p, old, f in zip(players, seen, feeds, strict=True):
            check_feed(old + f.events)  # nothing lost or repeated across the kill
            http = await p.ok("GET", f"/api/tables/{table}/events?after=0")
            assert http["events"][: len(old + f.events)] == old + f.events
            await f.close()
        for hand in (1, 2):
            audit = await players[0].ok("GET", f"/api/tables/{table}/hands/{hand}/audit")
            assert audit["verified"] and all(audit["checks"].values()), audit
        view = await players[0].view(table)
        assert chips_on_table(view) == 3 * 500
        for p in players:
            await p.ok("POST", f"/api/tables/{table}/leave")
        balances = [(await p.ok("GET", "/api/me"))["balance"] for p in players]
        assert sum(balances) == 3 * GRANT, balances
        # After the kill: requests nginx sent to the dead replica were passed to the survivor
        # (refused connect, then the next upstream); nothing was answered 502.
        after = (await logged_so_far(proxy))[len(before):]
        assert any(tried == addresses for _, tried, _ in after), after[:10]
        # (WebSockets are logged when they close: the ones opened before the kill show up here
        # too, on either replica; the three opened after it are on the survivor.)
        requests = [a for a in after if a[0] != 101]
        assert all(tried[-1] == addresses[1] for _, tried, _ in requests), requests[:10]
        sockets = [tried for status, tried, _ in after if status == 101]
        assert sockets.count([addresses[1]]) >= 3, sockets
        assert not [a for a in after if a[0] >= 500], after
        assert replicas[1].stop() == 0, replicas[1].output()[-2000:]
    finally:
        if proxy is not None:
            proxy.stop()
        for replica in replicas:
            replica.kill()
        redis.kill9()
        await telegram.stop()
