"""Fault injection for the game database: every fault is detected, then rebuilt or moved aside with a
one-line notice (``Store.drain_notices()``); nothing raises, and a game saved before the fault is
still there wherever the file survived.  Where the file is destroyed, a notice says so and play goes on.

Covered here: a truncated file, flipped bytes in the middle, a wrong header, a schema version from the
future, an unwritable data dir, a full disk (a tiny ``max_page_count``), and a process killed while
writing.  Two processes writing at once: ``test_leaderboard.py::test_many_concurrent_writers_lose_nothing``
(six processes, nothing lost).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tui.game.store import SCHEMA_VERSION, SavedGame, Store

BOARD = "1 2 3/4 5 6/7 _ 8"
GAME = SavedGame(BOARD, ["L", "R", "L"], "ppk", 2, 42.5, 1)


def one_line(notices: list[str]) -> None:
    assert notices and all(n.strip() and "\n" not in n and len(n) < 400 for n in notices), notices


def plays_on(store: Store) -> None:
    """The store still saves and loads a game in this session, whatever happened before."""
    store.save_game("goat", SavedGame("r-BB/i.dS/l-jW", ["x"], "p", 1, 1.0))
    assert store.load_game("goat").moves == ["x"]
    store.record_win("goat", 10, 8, 5.0)
    assert store.stats("goat").solved == 1


def saved_database(tmp_path: Path, filler: int = 0) -> Path:
    """A database with GAME saved as ``8`` (and ``filler`` other games to give it some pages), closed."""
    path = tmp_path / "koma.db"
    store = Store(path)
    store.save_game("8", GAME)
    for k in range(filler):
        store.save_game(f"sliding-{k}", SavedGame(BOARD, ["L"] * 50, "p" * 50, 50, float(k)))
    assert not store.drain_notices()
    store.close()  # the last connection checkpoints the WAL into koma.db
    assert not Path(str(path) + "-wal").exists() or Path(str(path) + "-wal").stat().st_size == 0
    return path


def moved_aside(tmp_path: Path) -> list[Path]:
    return sorted(tmp_path.glob("koma.db.corrupt-*"))


def assert_recovered(tmp_path: Path, path: Path) -> Store:
    """Opening the damaged file: either it is still readable and the game is intact, or it was
    moved aside (kept for inspection) with a one-line notice and a fresh database works."""
    store = Store(path)
    notices = store.drain_notices()
    if notices:  # (a second open of a file already moved aside is quiet: the fresh one is fine)
        one_line(notices)
        if any("was empty" in n for n in notices):  # nothing left to keep
            assert not moved_aside(tmp_path)
        else:
            assert any("moved it to koma.db.corrupt-" in n for n in notices), notices
            assert moved_aside(tmp_path)
        assert not store.memory_only
    else:  # still readable: the game is intact
        assert store.load_game("8") == GAME
    plays_on(store)
    assert not store.drain_notices()
    again = Store(path)  # the rebuilt database is a good one: the next session opens it quietly
    assert again.load_game("goat") is not None and not again.drain_notices()
    return store


@pytest.mark.parametrize("keep", [0.0, 0.1, 0.5, 0.9, 0.99])
def test_truncated_database(tmp_path, keep):
    path = saved_database(tmp_path, filler=200)
    data = path.read_bytes()
    path.write_bytes(data[:int(len(data) * keep)])
    assert_recovered(tmp_path, path)  # an emptied file (keep=0) is reported too, not taken for a new one


@pytest.mark.parametrize("where", [0.3, 0.5, 0.7])
def test_flipped_bytes_in_the_middle(tmp_path, where):
    path = saved_database(tmp_path, filler=200)
    data = bytearray(path.read_bytes())
    middle = int(len(data) * where)
    for k in range(middle, middle + 64):
        data[k] ^= 0xA5
    path.write_bytes(bytes(data))
    assert_recovered(tmp_path, path)


@pytest.mark.parametrize("header", [b"not sqlite at all", b"\x00" * 16, b"SQLite format 2\x00"])
def test_wrong_header(tmp_path, header):
    path = saved_database(tmp_path)
    data = path.read_bytes()
    path.write_bytes(header + data[len(header):])
    assert_recovered(tmp_path, path)
    assert moved_aside(tmp_path)  # the old file is kept, not deleted


def test_schema_version_from_the_future_is_kept_aside_not_overwritten(tmp_path):
    path = saved_database(tmp_path)
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 7}")
    db.commit()
    db.close()
    store = Store(path)
    notices = store.drain_notices()
    one_line(notices)
    assert f"schema version {SCHEMA_VERSION + 7}" in notices[0]
    [aside] = moved_aside(tmp_path)
    old = sqlite3.connect(aside)  # the newer Koma's data is intact in the moved file
    assert old.execute("SELECT moves FROM games WHERE puzzle = '8'").fetchone() == ('["L", "R", "L"]',)
    assert old.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 7
    plays_on(store)


def test_unwritable_data_dir_keeps_games_in_memory(tmp_path, monkeypatch):
    def refuse(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)
    store = Store(tmp_path / "data" / "koma.db")
    notices = store.drain_notices()
    one_line(notices)
    assert "Permission denied" in notices[0] and "not saved" in notices[0]
    assert store.memory_only
    plays_on(store)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes anywhere")
def test_read_only_data_dir_with_a_saved_game(tmp_path):
    path = saved_database(tmp_path)
    os.chmod(tmp_path, 0o500)
    os.chmod(path, 0o400)
    try:
        store = Store(path)
        notices = store.drain_notices()
        if store.memory_only:
            one_line(notices)
        else:
            assert store.load_game("8") == GAME
        plays_on(store)
    finally:
        os.chmod(tmp_path, 0o700)
        os.chmod(path, 0o600)


def test_disk_full_on_write_is_a_notice_and_keeps_the_saved_game(tmp_path):
    path = saved_database(tmp_path)
    store = Store(path)
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")  # no room for another page: a full disk
    store.save_game("15", SavedGame("1 2 3 4/5 6 7 8/9 10 11 12/13 14 15 _", ["L"] * 20_000, "p" * 20_000, 3, 1.0))
    store.record_win("15", 60, 50, 90.0)
    store.record_daily("2025-01-31", "15", 60, 50, 90.0)
    notices = store.drain_notices()
    one_line(notices)
    assert len(notices) == 1 and "full" in notices[0] and "play goes on unsaved" in notices[0]
    assert store.load_game("8") == GAME  # the game saved before the fault
    store._db.execute("PRAGMA max_page_count = 1073741823")  # space again: saving resumes
    plays_on(store)
    store.close()
    again = Store(path)
    assert again.load_game("8") == GAME and again.load_game("goat") is not None and not again.drain_notices()


class FullDisk:
    """A connection whose writes fail as on a full disk (reads work)."""

    def __init__(self, db):
        self.db = db

    def execute(self, sql, *args):
        if sql.lstrip().split()[0].upper() in ("INSERT", "UPDATE", "DELETE", "COMMIT"):
            raise sqlite3.OperationalError("database or disk is full")
        return self.db.execute(sql, *args)

    def close(self):
        self.db.close()


def test_disk_full_simulated_on_every_write(tmp_path):
    path = saved_database(tmp_path)
    store = Store(path)
    store._db = FullDisk(store._db)
    store.save_game("8", SavedGame(BOARD, ["L"], "p", 1, 1.0))
    store.clear_game("8")
    assert store.record_win("8", 20, 20, 9.0).solved == 1  # the session's own figures still come back
    store.record_koma_finish("8")
    assert store.record_daily("2025-01-31", "8", 20, 20, 9.0) is None
    notices = store.drain_notices()
    one_line(notices)
    assert len(notices) == 1 and "database or disk is full" in notices[0]
    assert store.load_game("8") == GAME  # nothing half-written
    store._db = store._db.db
    store.close()
    assert Store(path).load_game("8") == GAME


WRITER = """
import sys
from tui.game.store import SavedGame, Store
store = Store(sys.argv[1])
k = 0
while True:
    k += 1
    store.save_game("8", SavedGame("1 2 3/4 5 6/7 _ 8", ["L", "R"] * k, "p" * (2 * k), k, float(k)))
    store.record_win("8", 20 + k, 20, float(k))
    print(k, flush=True)
"""


def test_process_killed_mid_write_loses_no_committed_game(tmp_path):
    path = tmp_path / "koma.db"
    Store(path).close()
    child = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "KOMA_PLAYER": "local"})
    try:
        last = 0
        for line in child.stdout:
            last = int(line)
            if last >= 300:
                break
        os.kill(child.pid, signal.SIGKILL)  # somewhere in the middle of the next write
        child.wait(30)
    finally:
        if child.poll() is None:  # pragma: no cover
            child.kill()
            child.wait()
    assert last >= 300
    store = Store(path)
    assert not store.drain_notices()
    game = store.load_game("8")
    assert game is not None and game.position >= last  # the last committed game, maybe one more
    assert game.moves == ["L", "R"] * game.position and game.seconds == float(game.position)
    assert store.stats("8").solved >= last
    plays_on(store)
