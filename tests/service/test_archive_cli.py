"""`svara archive` as an operator runs it: a process of its own on the real Redis, with its
progress lines, its summary and its exit codes."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest

from tests.support.archive import DAY, IDLE, closed_table, keys_naming
from tests.support.clock import FakeClock
from tests.support.service_play import make_users
from tests.support.services import Factory

pytestmark = pytest.mark.redis
ROOT = Path(__file__).resolve().parents[2]


async def svara(*args: str, **env: str) -> tuple[int, str, str]:
    full = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "SVARA_NAMESPACE")}
    full.update(env)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "service.cli", *args, env=full, cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_the_command_archives_reports_and_exits_as_documented(
    services: Factory, clock: FakeClock, redis_url: str, tmp_path: Path
) -> None:
    clock.now = time.time() - 40 * DAY  # the command's clock is the real one
    service = await services(idle_close_seconds=IDLE)
    users = make_users(3)
    table_id = await closed_table(service, clock, users[:2], hands=2)
    held = await closed_table(service, clock, users[2:], hands=0)
    await service.transfers.reserve(users[2], held, 100)
    env = {"REDIS_URL": redis_url, "SVARA_NAMESPACE": service.streams.namespace.rstrip(":")}
    to = str(tmp_path / "files")

    code, out, _ = await svara("archive", "--dry-run", "--to", to, **env)
    assert code == 1, out  # the refused table
    assert f"{table_id}: would archive, 2 hands, 3 files" in out
    assert f"{held}: REFUSED: the wallet of user {users[2].id}" in out
    assert "would archive 1 tables (2 hands)" in out.splitlines()[-1]
    assert await keys_naming(service, table_id)
    assert os.listdir(tmp_path) == []  # nothing written

    code, out, _ = await svara("archive", "--to", to, "--closed-days", "39", **env)
    assert code == 1 and f"{table_id}: archived, 2 hands, 3 files" in out
    assert (tmp_path / "files" / table_id / "hand-000002.json").is_file()
    assert await keys_naming(service, table_id) == []
    code, verified, _ = await svara("verify", str(Path(to) / table_id / "hand-000001.json"))
    assert code == 0 and "Every check passed." in verified

    # too young for 41 days; a re-run archives nothing more
    code, out, _ = await svara("archive", "--to", to, **env, ARCHIVE_CLOSED_DAYS="41")
    assert code == 0 and f"{held}: kept (too young)" in out
    assert out.splitlines()[-1].startswith("archived 0 tables")


@pytest.mark.parametrize(("args", "env", "says"), [
    (["--closed-days", "-1"], {"REDIS_URL": "redis://127.0.0.1:6379/0"}, "0 or more"),
    ([], {"REDIS_URL": "redis://127.0.0.1:6379/0", "ARCHIVE_CLOSED_DAYS": "soon"}, "number"),
    ([], {}, "REDIS_URL is not set"),
    ([], {"REDIS_URL": "redis://127.0.0.1:7219/0"}, "unreachable"),  # nobody listens there
    (["--bogus"], {}, "unrecognized"),
])  # fmt: skip
async def test_bad_configuration_or_no_store_exits_2(
    args: list[str], env: dict[str, str], says: str
) -> None:
    code, out, err = await svara("archive", *args, **env)
    assert code == 2, (out, err)
    assert says in err
