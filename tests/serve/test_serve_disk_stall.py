"""The disk-stall probe over SSH: a served game's data dir (its outbox journal) on a filesystem whose fsync stalls
for 6 s (a FUSE passthrough, as a saturated or failing volume behaves) while a real SSH player types 6 keys a second.

Keys reach the player's screen while the disk stalls as they did before it, the player is told on the screen that
saving is slow, and once the disk answers, the database holds every move the player saw accepted.  The figures
(key-to-board p50/p95 healthy and stalled) are printed.  The SQLite file is kept off the passthrough (SQLite maps its
``-shm`` file, which faults with SIGBUS on it): the journal is what the stall holds.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from stalling_disk import stalling_mount

from koma_bench.serve.scenarios import HOME, first_move, percentile, play_moves
from koma_bench.serve.ssh import BenchServer, Session
from tui.storage.outbox import OUTBOX_DIR
from tui.storage.store_choice import connect_store

pytest.importorskip("asyncssh")

DEADLINE = 120.0  # every wait on a condition: long enough for a loaded 2-core box
KEY_GAP = 1 / 6  # the player's pace: 6 keys a second
STALL_SECONDS = 6.0
USER = "stalled"


def stored_moves(url: str) -> int | None:
    store = connect_store(url, f"user:{USER}")
    try:
        game = store.load_game("15")
    finally:
        store.close()
    return None if game is None or game is False else game.position


def test_keys_flow_while_the_served_games_disk_stalls_and_nothing_is_lost(tmp_path):
    with stalling_mount(tmp_path, DEADLINE) as (mountpoint, flag):
        url = f"sqlite:///{tmp_path / 'koma.db'}"
        server = BenchServer("--database", url, "--host-key", str(tmp_path / "host_key"), data_dir=mountpoint / "data")

        async def probe() -> tuple[list[float], list[float]]:
            await server.started()
            await server.wait_for_log(r"warm process ready", 180)
            session = Session(USER)
            try:
                await session.connect(server.port)
                await session.wait_for(HOME, 0, DEADLINE)
                mark = len(session.text)
                session.key("2")
                await session.wait_for(r"Moves \d+", mark, DEADLINE)
                back = await first_move(session, DEADLINE)
                healthy = await play_moves(session, 12, KEY_GAP, back)
                assert (mountpoint / "data" / OUTBOX_DIR).is_dir(), "the game's journal is not on the stalling disk"
                mark = len(session.text)
                flag.touch()
                began = time.monotonic()
                stalled = await play_moves(session, int(STALL_SECONDS / KEY_GAP), KEY_GAP, back)
                await session.wait_for("slow to confirm", mark, DEADLINE)  # the player is told
                await asyncio.sleep(max(0.0, STALL_SECONDS - (time.monotonic() - began)))
                flag.unlink()
                shown = session.moves()
                deadline = time.monotonic() + DEADLINE
                while (found := await asyncio.to_thread(stored_moves, url)) != shown:
                    assert time.monotonic() < deadline, f"stored {found} moves, the player saw {shown} accepted"
                    await asyncio.sleep(0.25)
                return healthy, stalled
            finally:
                flag.unlink(missing_ok=True)
                await session.close()

        try:
            healthy, stalled = asyncio.run(probe())
        finally:
            server.stop()
    print(f"\nSSH disk-stall probe, key to board: healthy p50 {percentile(healthy, 0.5) * 1e3:.0f} ms p95 "
          f"{percentile(healthy, 0.95) * 1e3:.0f} ms; fsync stalled {STALL_SECONDS:.0f} s: p50 "
          f"{percentile(stalled, 0.5) * 1e3:.0f} ms p95 {percentile(stalled, 0.95) * 1e3:.0f} ms max "
          f"{max(stalled) * 1e3:.0f} ms ({len(stalled)} keys)")
    assert all(x != float("inf") for x in healthy + stalled), "a key was never drawn"
    # a key that waited for the disk would wait out the stall (seconds): none did, and the stall cost the keys nothing
    assert max(stalled) < 2.0 and percentile(stalled, 0.5) < percentile(healthy, 0.5) * 1.5 + 0.05
