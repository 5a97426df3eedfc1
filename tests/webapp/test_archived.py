"""A link to an archived table (`svara archive`) says so in the player's language, instead of
a table that "does not exist": a real `svara serve` on the real Redis, a table played, closed
and archived beside it by the archive's own code, then opened in Chromium (ru, ar; light and
dark screenshots at 390x844)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from events.store import open_store
from service.tables.facade import User
from service.tables.service import TableService
from tests.support.archive import IDLE, archive, closed_table
from tests.support.browser import Contexts, snap
from tests.support.clock import FakeClock
from tests.support.redis import REDIS_TEST_URL, fresh_id
from tests.support.serve import APP_ENV, DEV_TOKEN, REPO, Server
from tests.support.service_play import make_users

pytestmark = [pytest.mark.redis, pytest.mark.asyncio(loop_scope="session")]
NAMESPACE = f"arch{fresh_id()}"


def catalog(lang: str) -> dict[str, Any]:
    path = REPO / "service" / "api" / "static" / "i18n" / f"{lang}.json"
    return dict(json.loads(path.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server({**APP_ENV, "DEV_TOKEN": DEV_TOKEN, "REDIS_URL": REDIS_TEST_URL,
                  "SVARA_NAMESPACE": NAMESPACE},
                 log=tmp_path_factory.mktemp("archived") / "serve.log").spawn()
    try:
        srv.wait_ready()
        yield srv
    finally:
        srv.stop()


@pytest_asyncio.fixture(loop_scope="session")
async def archived(tmp_path: Path) -> AsyncIterator[tuple[str, list[User], TableService]]:
    """A table two players played a hand at, closed and archived; and the service."""
    clock = FakeClock()
    service = TableService(open_store(REDIS_TEST_URL), clock=clock, namespace=f"{NAMESPACE}:",
                           think_seconds=0.0, idle_close_seconds=IDLE)  # fmt: skip
    try:
        users = make_users(2)
        table_id = await closed_table(service, clock, users, hands=1)
        assert (await archive(service, clock, tmp_path))[table_id].status == "archived"
        yield table_id, users, service
    finally:
        await service.stop()
        await service.store.close()


@pytest.mark.parametrize("lang", ["ru", "ar"])
async def test_an_archived_tables_link_says_it_was_archived(
    redis_server: Server, browser: Contexts, archived: tuple[str, list[User], TableService],
    lang: str, shots: Path,
) -> None:
    table_id, users, service = archived
    await service.set_preferences(users[0], language=lang)
    context = await browser.new_context(viewport={"width": 390, "height": 844})
    who = json.dumps({"id": users[0].id, "name": users[0].name})
    await context.add_init_script(f"localStorage.setItem('svara.devUser', {json.dumps(who)})")
    page = await context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(f"{redis_server.url}/?table={table_id}")
    said = catalog(lang)["archive.table_archived"]
    await page.wait_for_function(
        "(m) => [...document.querySelectorAll('.panel p')].some((p) => p.textContent === m)",
        arg=said)
    assert await page.evaluate("document.documentElement.dir") == ("rtl" if lang == "ar"
                                                                  else "ltr")  # fmt: skip
    assert catalog("en")["error.table_not_found"] not in await page.content()
    await snap(page, shots, f"archived-table-{lang}")
    assert errors == []
