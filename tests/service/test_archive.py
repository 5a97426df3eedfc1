"""`svara archive` on the real Redis: a closed table's history moves to files that verify
offline, every key naming it goes, and nothing else is touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from events.store.base import StoreUnavailable
from service import verify
from service.tables.archive_files import LOG_NAME, hand_name
from tests.support.archive import DAY, IDLE, archive, closed_table, keys_naming
from tests.support.clock import FakeClock
from tests.support.service_play import SETTINGS, make_users, play_hands, seated_table
from tests.support.services import Factory

pytestmark = pytest.mark.redis


def verified(path: Path) -> bool:
    return verify.verify(verify.load(path.read_bytes())).ok


async def test_a_closed_table_moves_to_files_and_leaves_nothing_in_redis(
    services: Factory, clock: FakeClock, tmp_path: Path
) -> None:
    service = await services(idle_close_seconds=IDLE)
    users = make_users(4)
    old = await closed_table(service, clock, users[:2], hands=3)
    stream = service.streams.table(old)
    version = await service.store.version(stream)
    stored = await service.store.read(stream)
    clock.advance(2 * DAY)
    young = await closed_table(service, clock, users[2:], hands=1)
    playing = await seated_table(service, users[:2], SETTINGS)
    await play_hands(service, clock, playing, users[:2], 1)
    assert await keys_naming(service, old)
    keys_kept = (await keys_naming(service, young), await keys_naming(service, playing))

    # a second process, as `svara archive` is
    other = await services(idle_close_seconds=IDLE)
    dry = await archive(other, clock, tmp_path, days=1, dry_run=True)
    assert dry[old].status == "would_archive" and dry[old].freed_bytes > 0
    assert not (tmp_path / old).exists() and await other.store.version(stream) == version

    outcomes = await archive(other, clock, tmp_path, days=1)
    assert set(outcomes) == {old, young}  # the open table is not even a candidate
    done = outcomes[old]
    assert (done.status, done.hands, done.files) == ("archived", 3, 4)
    assert done.freed_bytes == dry[old].freed_bytes
    assert outcomes[young].status == "too_young"

    folder = tmp_path / old
    assert sorted(p.name for p in folder.iterdir()) == [*(hand_name(n) for n in (1, 2, 3)),
                                                         LOG_NAME]  # fmt: skip
    for n in (1, 2, 3):
        assert verified(folder / hand_name(n))
    log = json.loads((folder / LOG_NAME).read_text())
    assert (log["table_id"], log["version"], log["head_hash"]) == (old, version, stored[-1].hash)
    assert [(e["version"], e["hash"], e["raw"]) for e in log["events"]] == [
        (s.version, s.hash, s.data.decode()) for s in stored]
    assert log["events"][-1]["type"] == "table_closed" and "data" in log["events"][0]

    assert await keys_naming(other, old) == []
    assert await other.tombstones.archived_at(old) == clock.now
    assert (await keys_naming(other, young), await keys_naming(other, playing)) == keys_kept
    assert (await other.view(None, playing))["phase"] != "closed"

    # a re-run after success is a no-op: the files stay as written
    written = {p.name: p.read_bytes() for p in folder.iterdir()}
    again = await archive(other, clock, tmp_path, days=1)
    assert old not in again and again[young].status == "too_young"
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == written


async def test_a_crash_between_the_files_and_the_delete_is_finished_by_the_next_run(
    services: Factory, clock: FakeClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = await services(idle_close_seconds=IDLE)
    table_id = await closed_table(service, clock, make_users(2), hands=2)
    stream = service.streams.table(table_id)
    before = await service.store.read(stream)

    crashing = await services()

    async def crash(*_args: object, **_kw: object) -> bool:
        raise StoreUnavailable("the archive died here")

    monkeypatch.setattr(crashing.store, "drop_stream", crash)
    with pytest.raises(StoreUnavailable):
        await archive(crashing, clock, tmp_path)
    # the files are written, and the log is still all in Redis: nothing is lost
    assert verified(tmp_path / table_id / hand_name(2))
    assert await service.store.read(stream) == before

    finishing = await services()
    outcomes = await archive(finishing, clock, tmp_path)
    assert outcomes[table_id].status == "archived"
    assert await keys_naming(finishing, table_id) == []
    assert all(verified(tmp_path / table_id / hand_name(n)) for n in (1, 2))
    log = json.loads((tmp_path / table_id / LOG_NAME).read_text())
    assert [e["hash"] for e in log["events"]] == [s.hash for s in before]


async def test_a_closed_table_a_wallet_still_has_a_transfer_at_is_refused(
    services: Factory, clock: FakeClock, tmp_path: Path
) -> None:
    service = await services(idle_close_seconds=IDLE)
    users = make_users(2)
    table_id = await closed_table(service, clock, users, hands=1)
    await service.transfers.reserve(users[0], table_id, 100)  # a buy-in never finished
    keys = await keys_naming(service, table_id)

    outcomes = await archive(await services(), clock, tmp_path)
    assert outcomes[table_id].status == "refused"
    assert f"user {users[0].id}" in outcomes[table_id].detail
    assert not (tmp_path / table_id).exists()
    assert await keys_naming(service, table_id) == keys
    assert await service.tombstones.archived_at(table_id) is None
