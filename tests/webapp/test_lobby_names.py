"""Tables nobody hosts (only practice bots sit there) are told apart in the lobby."""

from __future__ import annotations

import aiohttp
import pytest

from tests.support.browser import Contexts
from tests.support.http_player import HttpPlayer
from tests.support.serve import Server
from tests.webapp.player import Player

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_two_practice_tables_have_different_names(
    server: Server, browser: Contexts
) -> None:
    async with aiohttp.ClientSession() as http:
        maker = await HttpPlayer.login(http, server.url, 7_710_001, "Maker")
        ids = [await maker.create(ante=10, max_seats=4, practice_bots=2) for _ in range(2)]
        for table_id in ids:
            assert (await maker.view(table_id))["host"] is None  # bots only: no host
    ana = await Player.open(browser, server.url, "Ana Names")
    page = ana.page
    names = []
    for table_id in ids:
        row = page.locator(f".table-row[data-table='{table_id}'] .table-name")
        await row.wait_for()
        names.append(await row.inner_text())
    assert len(set(names)) == 2, names
    assert all(name.startswith("Practice table") for name in names), names
