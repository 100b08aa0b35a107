"""Fault injection for the game database: every fault is detected, then rebuilt or moved aside with a
one-line notice (``Store.drain_notices()``); nothing raises, and a game saved before the fault is
still there wherever the file survived.  Where the file is destroyed, a notice says so and play goes on.

Covered here: a truncated file, flipped bytes in the middle, a wrong header, a schema version from the
future, an unwritable data dir, a full disk (a tiny ``max_page_count``), and a process killed while
writing.  Two processes writing at once: ``test_leaderboard.py::test_many_concurrent_writers_lose_nothing``
(six processes, nothing lost).
"""

from __future__ import annotations

import gc
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


def test_schema_version_from_the_future_is_refused_and_left_untouched(tmp_path):
    path = saved_database(tmp_path)
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 7}")
    db.commit()
    db.close()
    before = path.read_bytes()
    store = Store(path)
    notices = store.drain_notices()
    one_line(notices)
    assert len(notices) == 1 and f"schema version {SCHEMA_VERSION + 7}" in notices[0] and "newer Koma" in notices[0]
    assert store.memory_only and not moved_aside(tmp_path)
    plays_on(store)
    store.close()
    assert path.read_bytes() == before  # the newer Koma's data, byte for byte
    old = sqlite3.connect(path)
    assert old.execute("SELECT moves FROM games WHERE puzzle = '8'").fetchone() == ('["L", "R", "L"]',)


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


def test_disk_full_on_write_keeps_the_game_in_memory_and_saves_it_later(tmp_path):
    path = saved_database(tmp_path)
    store = Store(path, retry_seconds=0)
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")  # no room for another page: a full disk (SQLITE_FULL)
    big = SavedGame("1 2 3 4/5 6 7 8/9 10 11 12/13 14 15 _", ["L"] * 20_000, "p" * 20_000, 3, 1.0)
    store.save_game("15", big)
    assert store.record_win("15", 60, 50, 90.0).solved == 1  # the figures the waiting write will store
    assert store.record_daily("2025-01-31", "15", 60, 50, 90.0) is None  # no rank until it is saved
    notices = store.drain_notices()
    one_line(notices)
    assert len(notices) == 1 and "not saved: disk full" in notices[0].lower() and "play goes on" in notices[0]
    assert store.load_game("15") == big  # the session sees its game, from memory
    assert store.load_game("8") == GAME and not moved_aside(tmp_path)
    store._db.execute("PRAGMA max_page_count = 1073741823")  # space again: the next write saves everything
    plays_on(store)
    assert any("Saved again" in n for n in store.drain_notices())
    store.close()
    again = Store(path)
    assert again.load_game("8") == GAME and again.load_game("15") == big and again.load_game("goat") is not None
    assert again.stats("15").solved == 1 and again.stats("goat").solved == 1
    assert [r.moves for r in again.leaderboard("2025-01-31", "15")] == [60]
    assert not again.drain_notices()


class FullDisk:
    """A connection whose writes fail as on a full disk (reads work)."""

    def __init__(self, db):
        self.db = db

    @property
    def in_transaction(self):
        return self.db.in_transaction

    def execute(self, sql, *args):
        if sql.lstrip().split()[0].upper() in ("INSERT", "UPDATE", "DELETE", "COMMIT"):
            raise sqlite3.OperationalError("database or disk is full")
        return self.db.execute(sql, *args)

    def close(self):
        self.db.close()


def test_disk_full_simulated_on_every_write(tmp_path):
    path = saved_database(tmp_path)
    store = Store(path, retry_seconds=0)
    store._db = FullDisk(store._db)
    store.save_game("8", SavedGame(BOARD, ["L"], "p", 1, 1.0))
    assert store.load_game("8") == SavedGame(BOARD, ["L"], "p", 1, 1.0)
    store.clear_game("8")
    assert store.load_game("8") is None and store.games_in_progress() == {}
    assert store.record_win("8", 20, 20, 9.0).solved == 1  # the session's own figures still come back
    store.record_koma_finish("8")
    assert store.record_daily("2025-01-31", "8", 20, 20, 9.0) is None
    notices = store.drain_notices()
    one_line(notices)
    assert len(notices) == 1 and "database or disk is full" in notices[0]
    assert store._db.db.execute("SELECT count(*) FROM games WHERE puzzle = '8'").fetchone() == (1,)  # nothing half-written
    store._db = store._db.db
    store.close()  # the writes that waited go in, in order
    again = Store(path)
    assert again.load_game("8") is None and again.stats("8").solved == 1 and again.stats("8").by_koma == 1


@pytest.fixture
def tiny_disk(tmp_path):
    """A real 512 KiB tmpfs (root only), room for the schema and one big game once freed; unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.name != "posix" or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        gc.collect()  # a store a failed test left open still holds files there
        if subprocess.run(["umount", str(mount)]).returncode != 0:
            subprocess.run(["umount", "--lazy", str(mount)], check=True)


def fill(directory: Path) -> Path:
    """Fill the file system holding ``directory`` to the last byte; returns the filler file."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        for size in (65536, 4096, 512, 1):
            try:
                while True:
                    os.write(fd, b"x" * size)
            except OSError as full:
                assert full.errno == 28
    finally:
        os.close(fd)
    return filler


def test_full_tmpfs_never_moves_the_database_and_saves_when_space_returns(tiny_disk):
    path = saved_database(tiny_disk, filler=5)
    filler = fill(tiny_disk)
    store = Store(path, timeout=0.5, retry_seconds=0)
    big = SavedGame("1 2 3 4/5 6 7 8/9 10 11 12/13 14 15 _", ["L", "R"] * 5_000, "p" * 10_000, 7, 3.0)
    store.save_game("15", big)
    store.record_win("15", 60, 50, 90.0)
    notices = store.drain_notices()
    one_line(notices)
    assert any("not saved: disk full" in n.lower() for n in notices), notices
    assert not any("moved" in n or "was empty" in n for n in notices), notices
    assert path.exists() and not moved_aside(tiny_disk)
    assert store.load_game("15") == big and store.load_game("8") == GAME  # the game is kept, the old one is readable
    filler.unlink()
    plays_on(store)  # the retry writes what waited
    assert any("Saved again" in n for n in store.drain_notices())
    store.close()
    again = Store(path)
    assert again.load_game("8") == GAME and again.load_game("15") == big and again.stats("15").solved == 1
    assert not again.drain_notices() and not moved_aside(tiny_disk)
    again.close()


def test_full_tmpfs_before_the_first_start_is_not_a_truncated_database(tiny_disk):
    filler = fill(tiny_disk)
    store = Store(tiny_disk / "koma.db", timeout=0.5, retry_seconds=0)
    notices = store.drain_notices()
    one_line(notices)
    assert len(notices) == 1 and "not saved: disk full" in notices[0].lower()
    store.save_game("8", GAME)
    assert store.load_game("8") == GAME
    assert not [p for p in tiny_disk.iterdir() if p.name.startswith("koma.db")]  # nothing half-made left behind
    filler.unlink()
    store.save_game("8", GAME)
    store.close()
    again = Store(tiny_disk / "koma.db")
    assert again.load_game("8") == GAME and not again.drain_notices()
    again.close()


LOCKER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode = DELETE")
db.execute("BEGIN EXCLUSIVE")
db.execute("UPDATE games SET seconds = seconds WHERE 0")
print("locked", flush=True)
sys.stdin.readline()  # hold the lock until told
db.execute("COMMIT")
"""


def test_a_foreign_exclusive_lock_is_busy_not_corrupt(tmp_path):
    path = saved_database(tmp_path)
    locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert locker.stdout.readline().strip() == "locked"
        store = Store(path, timeout=0.3, retry_seconds=0)
        store.save_game("15", SavedGame("1 2 3 4/5 6 7 8/9 10 11 12/13 14 15 _", ["L"], "p", 1, 2.0))
        notices = store.drain_notices()
        one_line(notices)
        assert any("not saved: busy" in n.lower() for n in notices), notices
        assert not any("moved" in n or "unreadable" in n for n in notices), notices
        assert path.exists() and not moved_aside(tmp_path)
        assert store.load_game("15").moves == ["L"]
        locker.stdin.write("\n")
        locker.stdin.flush()
        assert locker.wait(30) == 0
    finally:
        if locker.poll() is None:  # pragma: no cover
            locker.kill()
            locker.wait()
    plays_on(store)  # the lock is gone: what waited is written
    store.close()
    again = Store(path)
    assert again.load_game("8") == GAME and again.load_game("15").moves == ["L"] and not again.drain_notices()


STARTER = """
import os, sys, time
from tui.game.store import SavedGame, Store
print("ready", flush=True)
deadline = time.monotonic() + 60
while not os.path.exists(sys.argv[2]) and time.monotonic() < deadline:  # all start together
    time.sleep(0.001)
store = Store(sys.argv[1], player="user:" + sys.argv[3])
store.save_game("8", SavedGame("1 2 3/4 5 6/7 _ 8", ["L"], "p", 1, 1.0))
store.record_win("8", 20, 20, 5.0)
print(repr(store.drain_notices()), store.memory_only, flush=True)
store.close()
"""


def test_twelve_first_starts_at_once_make_one_database_quietly(tmp_path):
    data = tmp_path / "data"
    go = tmp_path / "go"
    starters = [subprocess.Popen([sys.executable, "-c", STARTER, str(data / "koma.db"), str(go), f"p{n}"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for n in range(12)]
    try:
        for starter in starters:  # every interpreter is up with the store imported: then all go at once
            assert starter.stdout.readline().strip() == "ready"
        go.touch()
        outputs = [starter.communicate(timeout=120) for starter in starters]
    finally:
        for starter in starters:
            if starter.poll() is None:  # pragma: no cover
                starter.kill()
                starter.wait()
    assert [starter.returncode for starter in starters] == [0] * 12, [err for _, err in outputs]
    assert [out.strip() for out, _ in outputs] == ["[] False"] * 12
    assert sorted(p.name for p in data.iterdir() if not p.name.startswith("koma.db-")) == ["koma.db"]
    store = Store(data / "koma.db")
    assert store._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    for n in range(12):
        player = Store(data / "koma.db", player=f"user:p{n}")
        assert player.stats("8").solved == 1 and player.load_game("8").moves == ["L"]


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
