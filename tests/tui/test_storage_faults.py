"""The storage service against real faults: PostgreSQL frozen (SIGSTOP), stopped and crash-restarted, and a SQLite
file locked by another process.  Nothing the game accepted is lost, no call waits for the database, and the game
is told once when saving is delayed and once when it is back.

Each test plays a game through a real :class:`~tui.game.session.GameSession` on a real :class:`StoreService` with its
durable outbox, then reads the ``games`` table from a fresh connection, as a player reconnecting would.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from store_helpers import Told, moves_of, play_moves

from solver.registry import get_puzzle
from tui.game.records import SavedGame
from tui.game.session import GameSession
from tui.game.writes import Op, SaveGame, encode_record
from tui.storage.outbox import outbox_depth, read_journal
from tui.storage.service import GameKeptApart, SavingDelayed, SavingResumed, StoreService
from tui.storage.store import Store
from tui.storage.store_choice import connect_store

SEED = 7
MOVE_BUDGET_SECONDS = 0.05  # a move (push + durable journal append) never waits for the database
DEADLINE = 60.0


def stored(url: str, player: str, key: str = "15") -> tuple | None:
    """The moves of the game stored for ``player`` (the clock goes on between a save and the test's look)."""
    return moves_of(connect_store(url, player).load_game(key))


def service(url: str, player: str, outbox: Path, told: Told) -> StoreService:
    return StoreService(lambda: connect_store(url, player), player, told, outbox=outbox)


def test_a_frozen_postgres_holds_no_move_and_loses_none(postgres_server, postgres_url, tmp_path):
    told = Told()
    storage = service(postgres_url, "user:ann", tmp_path / "outbox", told)
    session = GameSession(get_puzzle("15"), storage, time.monotonic, seed=SEED)
    play_moves(session, 5)
    assert storage.settle(30)
    pids = postgres_server.all_pids()
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        took = play_moves(session, 40)
        told.wait_for(SavingDelayed, timeout=30)
        assert max(took) < MOVE_BUDGET_SECONDS * 10, f"a move waited {max(took):.3f} s"
        assert sorted(took)[len(took) // 2] < MOVE_BUDGET_SECONDS
        assert len(read_journal(storage.journal.path)) >= 1  # the moves are on disk
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)
    told.wait_for(SavingResumed, timeout=DEADLINE)
    assert storage.settle(DEADLINE)
    assert stored(postgres_url, "user:ann") == moves_of(session.snapshot())
    assert len(told.of(SavingDelayed)) == 1 and len(told.of(SavingResumed)) == 1  # told once, not per move
    assert storage.close() == 0


def test_quitting_while_postgres_is_stopped_is_instant_and_the_next_game_writes_it(postgres_server, postgres_url,
                                                                                  tmp_path):
    outbox = tmp_path / "outbox"
    told = Told()
    storage = service(postgres_url, "user:bea", outbox, told)
    session = GameSession(get_puzzle("15"), storage, time.monotonic, seed=SEED)
    play_moves(session, 3)
    assert storage.settle(30)
    postgres_server.stop_server()
    try:
        play_moves(session, 30)
        told.wait_for(SavingDelayed, timeout=30)
        began = time.monotonic()
        left = storage.close(0.3)
        assert time.monotonic() - began < 1.0 and left >= 1
        assert outbox_depth(outbox)[0] >= 1  # kept on disk for whoever comes next
        # a new session of the same player during the outage resumes the latest game from the outbox
        again = StoreService(lambda: connect_store(postgres_url, "user:bea"), "user:bea", Told(), outbox=outbox)
        assert again.adopted >= 1
        assert moves_of(again.pending_save("15")) == moves_of(session.snapshot())
    finally:
        postgres_server.start_server()
    assert again.settle(DEADLINE)
    assert stored(postgres_url, "user:bea") == moves_of(session.snapshot())
    assert again.close() == 0 and outbox_depth(outbox) == (0, 0)


def test_a_crash_restart_loses_nothing(postgres_server, postgres_url, tmp_path):
    told = Told()
    storage = service(postgres_url, "user:cid", tmp_path / "outbox", told)
    session = GameSession(get_puzzle("15"), storage, time.monotonic, seed=SEED)
    play_moves(session, 3)
    assert storage.settle(30)
    flush_wal(postgres_server)
    postgres_server.stop_server(mode="immediate")
    try:
        play_moves(session, 10)
    finally:
        postgres_server.start_server()
    play_moves(session, 2)
    assert storage.settle(DEADLINE)
    assert stored(postgres_url, "user:cid") == moves_of(session.snapshot())


def flush_wal(postgres_server) -> None:
    """The test server runs with synchronous_commit=off (for speed), which a real crash may cost the last commits
    of: a checkpoint first, so the crash tests what Koma does, not what that setting does."""
    import psycopg

    with psycopg.connect(postgres_server.url(), autocommit=True) as admin:
        admin.execute("CHECKPOINT")


def test_an_unread_saved_game_is_never_replaced(postgres_server, postgres_url, tmp_path):
    """A saved game that could not be read (the database away) stays; a newcomer's game is saved once it is back."""
    saved = SavedGame("1 2 3 4/5 6 7 8/9 10 11 12/13 14 _ 15", ["L"] * 1, "p", 1, 20.0, 0)
    assert connect_store(postgres_url, "user:dee").save_game("15", saved)
    postgres_server.stop_server()
    try:
        told = Told()
        storage = service(postgres_url, "user:dee", tmp_path / "outbox", told)
        old_player = GameSession(get_puzzle("15"), storage, time.monotonic, seed=SEED, read_unknown=True)
        play_moves(old_player, 4)
        new_storage = service(postgres_url, "user:new", tmp_path / "outbox", Told())
        newcomer = GameSession(get_puzzle("15"), new_storage, time.monotonic, seed=SEED, read_unknown=True)
        play_moves(newcomer, 4)
    finally:
        postgres_server.start_server()
    assert storage.settle(DEADLINE) and new_storage.settle(DEADLINE)
    assert stored(postgres_url, "user:dee") == moves_of(saved)  # kept
    told.wait_for(GameKeptApart)
    assert stored(postgres_url, "user:new") == moves_of(newcomer.snapshot())  # the newcomer is saved after recovery


LOCKER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
db.execute("COMMIT")
"""


def test_a_locked_sqlite_file_holds_no_move_and_loses_none(tmp_path):
    path = tmp_path / "koma.db"
    Store(path).close()  # made whole first
    told = Told()
    storage = StoreService(lambda: Store(path, "local", timeout=1.0), "local", told, outbox=tmp_path / "outbox")
    session = GameSession(get_puzzle("15"), storage, time.monotonic, seed=SEED)
    play_moves(session, 2)
    assert storage.settle(30)
    locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(path), "6"], stdout=subprocess.PIPE, text=True)
    try:
        assert locker.stdout is not None and locker.stdout.readline().strip() == "locked"
        took = play_moves(session, 30)
        told.wait_for(SavingDelayed, timeout=30)
        assert max(took) < MOVE_BUDGET_SECONDS * 10
    finally:
        locker.wait(60)
    assert storage.settle(DEADLINE)
    assert moves_of(Store(path, "local").load_game("15")) == moves_of(session.snapshot())
    told.wait_for(SavingResumed)


def saved(position: int) -> Op:
    """A save of the 8-puzzle's game at ``position``."""
    return Op(SaveGame("8", SavedGame("s", ["L"] * position, "p" * position, position)), "local")


def test_the_outbox_survives_a_torn_last_line(tmp_path):
    from tui.storage.outbox import Journal

    journal = Journal("local", tmp_path)
    first = journal.append(saved(1))
    journal.append(saved(2))
    journal.acknowledge(first)
    with open(journal.path, "ab") as handle:
        handle.write(encode_record(op=replace(saved(3), seq=3))[:30])  # the process dies mid-append
    assert [op.write.game.position for op in read_journal(journal.path)] == [2]


def test_sqlite_never_opens_a_fifo(tmp_path):
    path = tmp_path / "koma.db"
    os.mkfifo(path)
    store = Store(path)
    assert store.memory_only and "not a regular file" in " ".join(store.drain_notices())
    assert stat_is_fifo(path)


def stat_is_fifo(path: Path) -> bool:
    import stat

    return stat.S_ISFIFO(os.stat(path).st_mode)


def test_the_server_drains_what_an_ended_game_left_and_tells_the_operator_once(postgres_server, postgres_url, tmp_path):
    from tui.storage.outbox_drain import OutboxDrainer

    outbox = tmp_path / "outbox"
    lines: list[str] = []
    drainer = OutboxDrainer(postgres_url, lines.append, outbox)
    storage = service(postgres_url, "user:eve", outbox, Told())
    session = GameSession(get_puzzle("15"), storage, time.monotonic, seed=SEED)
    postgres_server.stop_server()
    try:
        play_moves(session, 6)
        storage.close(0.2)  # the game quits during the outage
        assert drainer.drain() == 0 and drainer.drain() == 0
        assert len([line for line in lines if line.startswith("database trouble")]) == 1
        assert outbox_depth(outbox)[0] >= 1
    finally:
        postgres_server.start_server()
    assert drainer.drain() >= 1
    assert stored(postgres_url, "user:eve") == moves_of(session.snapshot())
    assert outbox_depth(outbox) == (0, 0)
    assert any(line.startswith("database back after") for line in lines)


def test_koma_doctor_reports_a_non_empty_outbox(tmp_path, monkeypatch):
    from tui.storage.health import game_health
    from tui.storage.outbox import Journal

    monkeypatch.setenv("KOMA_DATA_DIR", str(tmp_path))
    journal = Journal("local")
    journal.append(saved(1))
    report = game_health(tmp_path / "koma.db", tmp_path / "keymap.toml")
    assert report["outbox"]["waiting"] == 1
    assert any("wait in the outbox" in p["problem"] for p in report["problems"])
    journal.close()


def test_an_outbox_that_cannot_be_made_keeps_the_writes_in_memory(tmp_path, monkeypatch):
    """The outbox cannot be made (the data dir is a file, or under /proc): the game starts all the same, is told once,
    and its writes still reach the database, from memory."""
    (tmp_path / "a-file").write_text("")
    storage = StoreService(lambda: Store(tmp_path / "koma.db", "local"), "local", Told(), outbox=tmp_path / "a-file" / "outbox")
    notices = storage.drain_notices()
    assert storage.journal is None and len(notices) == 1 and "outbox cannot be made" in notices[0]
    session = GameSession(get_puzzle("8"), storage, time.monotonic, seed=SEED)
    play_moves(session, 3)
    assert storage.settle(DEADLINE) and storage.close() == 0
    assert moves_of(Store(tmp_path / "koma.db", "local").load_game("8")) == moves_of(session.snapshot())
    from tui.app import KomaApp

    monkeypatch.setenv("KOMA_DATA_DIR", str(tmp_path / "a-file"))
    app = KomaApp(clock=lambda: 0.0, keymap={})  # the app too: it plays on (unsaved) instead of failing to start
    assert app.storage.journal is None and app.storage.settle(DEADLINE) and app.storage.close() == 0


def test_a_line_the_disk_took_in_part_is_cut_off(tmp_path, monkeypatch):
    """A nearly full disk takes part of a line, then refuses: the journal is cut back, so the next line is not glued
    to the torn one (and lost with it on replay)."""
    import tui.storage.outbox as outbox
    from tui.storage.outbox import Journal

    journal = Journal("local", tmp_path)
    journal.append(saved(1))

    class NearlyFull:
        def __getattr__(self, name):
            return getattr(os, name)

        @staticmethod
        def write(fd: int, data: bytes) -> int:
            if len(data) > 8:
                return os.write(fd, data[:8])
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(outbox, "os", NearlyFull())
    try:
        journal.append(saved(2))
        raise AssertionError("the append should have failed")
    except OSError:
        pass
    monkeypatch.undo()
    assert [op.write.game.position for op in read_journal(journal.path)] == [1]
    journal.append(saved(3))
    assert [op.write.game.position for op in read_journal(journal.path)] == [1, 3]
    journal.close()
