"""Fault injection for the game database: every fault is detected, then rebuilt or moved aside with a
one-line notice (``Store.drain_notices()``), and a game saved before the fault is still there wherever
the file survived.  Where the file is destroyed, a notice says so and play goes on.

A file that is only full or busy is never moved: the store raises StoreError ("disk full", "busy"), and the
storage service (:mod:`tui.storage.service`) keeps every write in its outbox, in order, tells the game once, and
writes it all when the database can take it.  Those tests play through a real Storage and read the file
afterwards from a fresh store, as the next session would.

Covered here: a truncated file, flipped bytes in the middle, a wrong header, a schema version from the
future, an unwritable data dir, a full disk (a tiny ``max_page_count``, a backend refusing every write, a real
full tmpfs), another process's lock, twelve first starts at once, and a process killed while writing.  Two
processes writing at once: ``test_leaderboard.py::test_many_concurrent_writers_lose_nothing`` (six processes,
nothing lost).
"""

from __future__ import annotations

import gc
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from store_helpers import Told, moves_of, play_moves

from solver.registry import get_puzzle
from tui.game.records import Stats
from tui.game.session import GameSession, Push
from tui.game.writes import ClearGame, FinishGame
from tui.storage.backend import StoreError
from tui.storage.outbox import outbox_depth, read_journal
from tui.storage.service import Answer, Finished, Noticed, SavingDelayed, SavingResumed, StoreService
from tui.storage.sqlite import SqliteBackend
from tui.storage.store import SCHEMA_VERSION, SavedGame, Store

BOARD = "1 2 3/4 5 6/7 _ 8"
GAME = SavedGame(BOARD, ["L", "R", "L"], "ppk", 2, 42.5, 1)
TWO_AWAY = "1 2 3/4 5 6/_ 7 8"  # L L solves it
DAY = "2025-01-31"
DEADLINE = 60.0  # every wait ends as soon as its condition holds; this long only on a badly loaded box
SEED = 7


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


def read(storage: StoreService, run: Callable[[Store], Any]) -> Answer:
    """A read through the storage service (its reader thread), as a screen reads."""
    answers: list[Answer] = []
    storage.read(run, answers.append)
    deadline = time.monotonic() + DEADLINE
    while not answers:
        assert time.monotonic() < deadline, "the read was never answered"
        time.sleep(0.02)
    return answers[0]


def finish_record(game: str, *, daily: str | None = None, by_koma: bool = False) -> FinishGame:
    """A won 8-puzzle game (two moves from TWO_AWAY), as :meth:`GameSession.finish` writes it."""
    return FinishGame(game, stats_id="8", daily=daily, start=TWO_AWAY, played=("L", "L"),
                      origins="kk" if by_koma else "pp", moves=2, seconds=9.0, optimal=2, hints=0, by_koma=by_koma,
                      first=True)


def said(told: Told) -> list[str]:
    return [notice for news in told.of(Noticed) for notice in news.notices]


def test_disk_full_on_write_keeps_the_game_in_memory_and_saves_it_later(tmp_path):
    """SQLite finds no room for another page (SQLITE_FULL) while a game is played: nothing is moved aside, the player
    is told once, the writes wait in the outbox in order (the game's own save is read from there, the old game
    from the file), and all of them (the saves, a daily win with its rank) reach the database when there is room."""
    path = saved_database(tmp_path)
    store = Store(path)
    pages = store.backend.query("PRAGMA page_count")[0][0]
    store.backend.query(f"PRAGMA max_page_count = {pages}")  # no room for another page: a full disk (SQLITE_FULL)
    told = Told()
    storage = StoreService(lambda: store, "local", told, outbox=tmp_path / "outbox", one_connection=True)
    big = SavedGame("1 2 3 4/5 6 7 8/9 10 11 12/13 14 15 _", ["L"] * 20_000, "p" * 20_000, 3, 1.0)
    assert storage.save_game("15", big)  # durable in the outbox at once
    daily = GameSession(get_puzzle("8"), storage, time.monotonic, start=get_puzzle("8").parse(TWO_AWAY), daily=DAY)
    assert daily.push("L") is Push.PLAYED and daily.push("L") is Push.WON
    assert daily.finish(2).first
    told.wait_for(SavingDelayed, timeout=DEADLINE)
    [delayed] = told.of(SavingDelayed)
    assert delayed.reason.startswith("disk full") and "\n" not in delayed.reason
    assert storage.pending_save("15") == big  # the session's game, from the outbox
    assert read(storage, lambda store: store.load_game("8")) == Answer(GAME)  # the file is there, only full
    assert not told.of(Finished) and not moved_aside(tmp_path)  # no rank until the finish is saved
    assert storage.durable(DEADLINE)  # within the outbox's group delay
    assert len(read_journal(storage.journal.path)) == 4  # on disk: the big save, the 8's whole game, a move, the finish
    read(storage, lambda store: store.backend.query("PRAGMA max_page_count = 1073741823"))  # room again
    told.wait_for(SavingResumed, timeout=DEADLINE)
    assert storage.settle(DEADLINE)
    [finished] = told.of(Finished)
    assert finished.stats is not None and finished.stats.solved == 1 and finished.rank == 1
    assert len(told.of(SavingDelayed)) == 1 and said(told) == []  # told once, by the panel's line, and no toast
    assert storage.close() == 0 and outbox_depth(tmp_path / "outbox") == (0, 0)
    store.close()
    again = Store(path)
    assert again.load_game("8") == GAME and again.load_game("15") == big
    assert again.load_game(f"daily/{DAY}/8") is None and again.stats("8").solved == 1
    assert [r.moves for r in again.leaderboard(DAY, "8")] == [2] and [r.game for r in again.replays()] == [f"daily/{DAY}/8"]
    assert not again.drain_notices()


class FullDisk:
    """A backend (the store's seam) whose every write fails as on a full disk while ``full`` is set: a statement on
    its own at once, a transaction at its commit (SQLite then rolls all of it back).  Reads work."""

    memory_only = False

    def __init__(self, real: SqliteBackend):
        self.real, self.where, self.notices = real, real.where, real.notices
        self.full = True
        self.refused = 0

    def _refuse(self) -> None:
        self.refused += 1
        raise StoreError("disk full: database or disk is full")

    def query(self, sql: str, args: tuple = ()) -> list[tuple]:
        if self.full and sql.lstrip().split()[0].upper() in ("INSERT", "UPDATE", "DELETE"):
            self._refuse()
        return self.real.query(sql, args)

    @contextmanager
    def transaction(self, lock: str) -> Iterator[Callable[[str, tuple], list[tuple]]]:
        with self.real.transaction(lock) as query:
            yield query
            if self.full:
                self._refuse()

    @contextmanager
    def batch(self) -> Iterator[None]:
        with self.real.batch():
            yield
            if self.full:
                self._refuse()

    def close(self) -> None:
        self.real.close()


def test_disk_full_simulated_on_every_write(tmp_path):
    """Every write fails as on a full disk: nothing is half-written (a finish's replay, stats, daily result and
    cleared game are one transaction, rolled back at each try), the game reads its own latest save from the outbox,
    and the writes go in, in order, once there is room: the later clear wins over the earlier save."""
    path = saved_database(tmp_path)
    disk = FullDisk(SqliteBackend(path))
    store = Store(player="local", backend=disk)
    told = Told()
    storage = StoreService(lambda: store, "local", told, outbox=tmp_path / "outbox", one_connection=True)
    storage.write(finish_record(f"daily/{DAY}/8", daily=DAY))  # the first to wait
    storage.save_game("8", SavedGame(BOARD, ["L"], "p", 1, 1.0))
    assert storage.pending_save("8") == SavedGame(BOARD, ["L"], "p", 1, 1.0)
    storage.write(ClearGame("8"))
    assert storage.pending_save("8") is None and storage.pending_save("15") is False
    storage.write(finish_record("8", by_koma=True))
    told.wait_for(SavingDelayed, timeout=DEADLINE)
    assert "database or disk is full" in told.of(SavingDelayed)[0].reason
    deadline = time.monotonic() + DEADLINE
    while disk.refused < 2:  # the finish was tried again, and rolled back again
        assert time.monotonic() < deadline
        time.sleep(0.02)
    fresh = Store(path)  # the file as another session sees it: nothing half-written
    assert fresh.load_game("8") == GAME and fresh.stats("8") == Stats() and fresh.leaderboard(DAY, "8") == []
    assert fresh.replays() == [] and fresh.backend.query("SELECT count(*) FROM applied_ops") == [(0,)]
    fresh.close()
    disk.full = False
    told.wait_for(SavingResumed, timeout=DEADLINE)
    assert storage.settle(DEADLINE)
    assert [(f.key, f.stats.solved, f.stats.by_koma, f.rank) for f in told.of(Finished)] == [
        (f"daily/{DAY}/8", 1, 0, 1), ("8", 1, 1, None)]  # the session's own figures come back, once each
    assert len(told.of(SavingDelayed)) == 1 and len(told.of(SavingResumed)) == 1
    assert storage.close() == 0
    again = Store(path)
    assert again.load_game("8") is None and again.stats("8").solved == 1 and again.stats("8").by_koma == 1
    assert [r.moves for r in again.leaderboard(DAY, "8")] == [2] and len(again.replays()) == 2


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
    """The data dir's disk fills up during a game (a real tmpfs, to the last byte): the database and the outbox on it
    both refuse.  Nothing is moved aside, the player is told once, the old game stays readable, the moves and a win
    wait in memory, and every one of them is saved when space returns."""
    path = saved_database(tiny_disk, filler=5)
    told = Told()
    storage = StoreService(lambda: Store(path, timeout=0.5), "local", told, outbox=tiny_disk / "outbox")
    session = GameSession(get_puzzle("15"), storage, time.monotonic, seed=SEED)
    play_moves(session, 2)
    assert storage.settle(DEADLINE) and read(storage, lambda store: store.load_game("8")) == Answer(GAME)
    filler = fill(tiny_disk)
    play_moves(session, 30)
    assert storage.write(finish_record(f"daily/{DAY}/8", daily=DAY))  # accepted: kept in memory (the disk refuses it)
    told.wait_for(SavingDelayed, timeout=DEADLINE)
    [delayed] = told.of(SavingDelayed)
    assert delayed.reason.startswith("disk full"), delayed
    assert storage.durable(DEADLINE)  # the outbox's writer has met the full disk (its thread, not the game's)
    outbox = [n for n in said(told) if "outbox" in n]
    assert len(outbox) == 1 and "kept in memory" in outbox[0] and "\n" not in outbox[0]  # once, not per move
    assert not any("moved" in n or "was empty" in n for n in said(told))
    assert path.exists() and not moved_aside(tiny_disk)
    assert read(storage, lambda store: store.load_game("8")) == Answer(GAME)  # the old game is readable
    assert moves_of(storage.pending_save("15")) == moves_of(session.snapshot())  # the game is kept
    filler.unlink()
    told.wait_for(SavingResumed, timeout=DEADLINE)
    assert storage.settle(DEADLINE)
    assert [f.stats.solved for f in told.of(Finished)] == [1]
    assert len(told.of(SavingDelayed)) == 1 and storage.close() == 0
    again = Store(path)
    assert again.load_game("8") == GAME and moves_of(again.load_game("15")) == moves_of(session.snapshot())
    assert again.stats("8").solved == 1 and [r.moves for r in again.leaderboard(DAY, "8")] == [2]
    assert not again.drain_notices() and not moved_aside(tiny_disk) and outbox_depth(tiny_disk / "outbox") == (0, 0)
    again.close()


def test_full_tmpfs_before_the_first_start_is_not_a_truncated_database(tiny_disk):
    """The disk is full before Koma ever ran: no database can be made, and none half-made is left behind.  Reads
    answer "unknown" (never "no saved game"), the player is told once, and the game is saved when space returns."""
    filler = fill(tiny_disk)
    told = Told()
    storage = StoreService(lambda: Store(tiny_disk / "koma.db", timeout=0.5), "local", told, outbox=tiny_disk / "outbox")
    session = GameSession(get_puzzle("8"), storage, time.monotonic, seed=SEED)
    play_moves(session, 3)
    told.wait_for(SavingDelayed, timeout=DEADLINE)
    assert told.of(SavingDelayed)[0].reason.startswith("disk full"), told.items
    answer = read(storage, lambda store: store.load_game("8"))
    assert not answer.known and answer.unknown.startswith("disk full")
    assert not [p for p in tiny_disk.iterdir() if "koma.db" in p.name]  # nothing half-made left behind
    assert moves_of(storage.pending_save("8")) == moves_of(session.snapshot())
    filler.unlink()
    told.wait_for(SavingResumed, timeout=DEADLINE)
    assert storage.settle(DEADLINE) and storage.close() == 0
    assert len(told.of(SavingDelayed)) == 1
    again = Store(tiny_disk / "koma.db")
    assert moves_of(again.load_game("8")) == moves_of(session.snapshot()) and not again.drain_notices()
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
    """Another program holds an exclusive lock on koma.db: the database is busy, not damaged.  Nothing is moved aside,
    the player is told "busy" once, reads answer "unknown", the moves wait in the outbox, and they are written once
    the lock is gone."""
    path = saved_database(tmp_path)
    locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    told = Told()
    try:
        assert locker.stdout.readline().strip() == "locked"
        storage = StoreService(lambda: Store(path, timeout=0.3), "local", told, outbox=tmp_path / "outbox")
        session = GameSession(get_puzzle("15"), storage, time.monotonic, seed=SEED)
        play_moves(session, 3)
        told.wait_for(SavingDelayed, timeout=DEADLINE)
        assert told.of(SavingDelayed)[0].reason.startswith("busy"), told.items
        answer = read(storage, lambda store: store.load_game("8"))
        assert not answer.known and answer.unknown.startswith("busy")  # unknown, never "no saved game"
        assert not any("moved" in n or "unreadable" in n for n in said(told)), said(told)
        assert path.exists() and not moved_aside(tmp_path)
        assert moves_of(storage.pending_save("15")) == moves_of(session.snapshot())
        assert len(read_journal(storage.journal.path)) == 3
        locker.stdin.write("\n")
        locker.stdin.flush()
        assert locker.wait(30) == 0
    finally:
        if locker.poll() is None:  # pragma: no cover
            locker.kill()
            locker.wait()
    play_moves(session, 1)
    told.wait_for(SavingResumed, timeout=DEADLINE)  # the lock is gone: what waited is written
    assert storage.settle(DEADLINE) and storage.close() == 0
    assert len(told.of(SavingDelayed)) == 1
    again = Store(path)
    assert again.load_game("8") == GAME and moves_of(again.load_game("15")) == moves_of(session.snapshot())
    assert not again.drain_notices() and not moved_aside(tmp_path)


STARTER = """
import os, sys, time
from pathlib import Path
from tui.game.records import SavedGame
from tui.storage.service import StoreService
from tui.storage.store import Store
from tui.game.writes import FinishGame, Seen
print("ready", flush=True)
deadline = time.monotonic() + 60
while not os.path.exists(sys.argv[2]) and time.monotonic() < deadline:  # all start together
    time.sleep(0.001)
player = "user:" + sys.argv[3]
stores, news, answers = [], [], []

def connect():
    stores.append(Store(sys.argv[1], player=player))
    return stores[-1]

# as a game starts: its writer and its reader each open the database, at once
storage = StoreService(connect, player, news.append, outbox=Path(sys.argv[4]))
storage.write(Seen())
storage.read(lambda store: store.games_in_progress(), answers.append)
storage.save_game("8", SavedGame("1 2 3/4 5 6/7 _ 8", ["L"], "p", 1, 1.0))
storage.write(FinishGame("daily/2025-01-31/8", stats_id="8", daily="2025-01-31", start="1 2 3/4 5 6/_ 7 8",
                         played=("L", "L"), origins="pp", moves=2, seconds=5.0, optimal=2, hints=0, by_koma=False,
                         first=True))
settled = storage.settle(60)
print(repr(storage.drain_notices()), sorted({type(n).__name__ for n in news}), len(stores),
      any(s.memory_only for s in stores), [a.known for a in answers], settled, flush=True)
storage.close()
"""


def test_twelve_first_starts_at_once_make_one_database_quietly(tmp_path):
    """Twelve games start at once where there is no database yet, each opening it twice (its storage service's
    writer and reader): one whole database is made, nobody is told anything but their win, every read is answered,
    and every write is in it."""
    data = tmp_path / "data"
    go = tmp_path / "go"
    outbox = tmp_path / "outbox"
    starters = [subprocess.Popen([sys.executable, "-c", STARTER, str(data / "koma.db"), str(go), f"p{n}", str(outbox)],
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
    assert [out.strip() for out, _ in outputs] == ["[] ['Finished'] 2 False [True] True"] * 12, outputs
    assert sorted(p.name for p in data.iterdir() if not p.name.startswith("koma.db-")) == ["koma.db"]
    assert outbox_depth(outbox) == (0, 0) and list(outbox.iterdir()) == []
    store = Store(data / "koma.db")
    assert store.backend.query("PRAGMA user_version") == [(SCHEMA_VERSION,)]
    for n in range(12):
        player = Store(data / "koma.db", player=f"user:p{n}")
        assert player.stats("8").solved == 1 and player.load_game("8").moves == ["L"]
    assert sorted(r.name for r in store.leaderboard("2025-01-31", "8", limit=None)) == sorted(f"p{n}" for n in range(12))


WRITER = """
import sys
from tui.storage.store import SavedGame, Store
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
