"""The outbox never blocks a key (tui/storage/outbox.py's JournalWriter, through the storage service): the caller's
write returns at once while the journal's fsync is held; the player is told once of a lasting stall and once of its
end; nothing is lost after it; a move journals a few bytes whatever the game's length; and a game process killed
with SIGKILL (even while its disk stalls) loses no move it accepted.

The stalled disk is the storage service's ``fsync`` seam: a real journal file on a real disk whose fsync calls wait
on an event the test holds.  The killed game is a real process on a real SQLite file.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import pytest
from stalling_disk import stalling_mount
from store_helpers import Told

import tui.storage.outbox as outbox_module
from solver.registry import get_puzzle
from tui.game.records import SavedGame
from tui.game.session import GameSession, Push
from tui.storage.backend import StoreError
from tui.storage.outbox import read_journal
from tui.storage.service import Noticed, StoreService
from tui.storage.store import Store

ROOT = Path(__file__).resolve().parents[2]
FIFTEEN = get_puzzle("15")
PLAYER = "user:ann"
DEADLINE = 30.0
KEY_BUDGET_SECONDS = 0.005  # what a key may cost the caller's thread in the storage service (brief: "a few ms")


def wait_until(condition: Callable[[], object], timeout: float = DEADLINE, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what or condition}"
        time.sleep(0.01)


class StalledDisk:
    """An fsync seam: while ``held``, every fsync waits (as on a saturated or failing volume); counts them."""

    def __init__(self) -> None:
        self.flowing = threading.Event()
        self.flowing.set()
        self.waiting = threading.Event()  # an fsync is held now
        self.calls = 0
        self.threads: set[str] = set()

    def hold(self) -> None:
        self.waiting.clear()
        self.flowing.clear()

    def release(self) -> None:
        self.flowing.set()

    def __call__(self, fd: int) -> None:
        self.calls += 1
        self.threads.add(threading.current_thread().name)
        if not self.flowing.is_set():
            self.waiting.set()
            self.flowing.wait(120)
        os.fsync(fd)


def unreachable() -> Store:
    raise StoreError("unreachable: the test keeps the database away")


def legal_walk(session: GameSession, count: int, timed: list[float] | None = None) -> None:
    """``count`` legal moves, never undoing the last one (so the game grows by one move each)."""
    undo = {"U": "D", "D": "U", "L": "R", "R": "L"}
    for _ in range(count):
        last = session.history.moves[session.position - 1] if session.position else ""
        move = next(m for m in sorted(session.puzzle.moves(session.state)) if m != undo.get(last))
        began = time.perf_counter()
        assert session.push(move) is Push.PLAYED
        if timed is not None:
            timed.append(time.perf_counter() - began)


class TimedSaver:
    """The storage service as a session's saver, each write timed on the caller's thread."""

    def __init__(self, storage: StoreService, took: list[float]):
        self.storage, self.took = storage, took

    def write(self, write, guard=None) -> bool:
        began = time.perf_counter()
        taken = self.storage.write(write, guard) if guard is not None else self.storage.write(write)
        self.took.append(time.perf_counter() - began)
        return taken


def percentile(values: list[float], percent: int) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, len(ordered) * percent // 100)]


def notices(told: Told) -> list[str]:
    return [notice for news in told.of(Noticed) for notice in news.notices]


def test_a_stalled_fsync_never_holds_a_key_and_loses_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(outbox_module, "STALL_SECONDS", 0.3)
    disk, told = StalledDisk(), Told()
    db = tmp_path / "koma.db"
    storage = StoreService(lambda: Store(db, PLAYER), PLAYER, told, outbox=tmp_path / "outbox", fsync=disk)
    try:
        session = GameSession(FIFTEEN, storage, time.monotonic, seed=7)
        legal_walk(session, 1)
        assert storage.durable(DEADLINE) and disk.calls >= 1
        disk.hold()
        legal_walk(session, 1)
        assert disk.waiting.wait(DEADLINE), "the syncer never reached the held fsync"
        writes: list[float] = []
        session.saver = TimedSaver(storage, writes)
        keys: list[float] = []
        legal_walk(session, 60, keys)  # 60 keys while the fsync is held (it stays held until release below)
        assert len(writes) == 60
        # a write that touched the disk would wait for the release (never, here): every one returned, and fast
        assert max(keys) < 0.5, f"a key took {max(keys) * 1000:.1f} ms while the fsync was held"
        assert percentile(writes, 50) < 0.0005 and percentile(writes, 95) < KEY_BUDGET_SECONDS, (
            f"StoreService.write p50 {percentile(writes, 50) * 1e3:.3f} ms, p95 {percentile(writes, 95) * 1e3:.3f} ms")
        assert disk.threads == {"koma-outbox-syncer"}  # never the caller's thread
        wait_until(lambda: any("slow to confirm" in n for n in notices(told)), what="the stall notice")
        wait_until(lambda: not storage.pending_ops(), what="the database")  # not the disk: it took every move
        assert Store(db, PLAYER).load_game("15").moves == session.snapshot().moves
        assert not storage.durable(0.2)  # ...but the disk has not confirmed them yet
        legal_walk(session, 5)  # the player is told once, not per key
        disk.release()
        assert storage.durable(DEADLINE)
        wait_until(lambda: any("answered again" in n for n in notices(told)), what="the recovery notice")
        assert len([n for n in notices(told) if "slow to confirm" in n]) == 1
        assert len([n for n in notices(told) if "answered again" in n]) == 1
        assert storage.outbox is not None and storage.outbox.stalls == 1
        disk.hold()  # a second stall is news again, once, and so is its end
        legal_walk(session, 3)
        wait_until(lambda: len([n for n in notices(told) if "slow to confirm" in n]) == 2, what="the second stall")
        disk.release()
        wait_until(lambda: len([n for n in notices(told) if "answered again" in n]) == 2, what="the second recovery")
        assert storage.durable(DEADLINE) and storage.outbox.stalls == 2
    finally:
        disk.release()
        storage.close()


def test_every_move_accepted_during_a_stall_is_on_disk_after_it(tmp_path):
    """The database is away too: the journal is all there is.  After the stall, it holds every move."""
    disk = StalledDisk()
    storage = StoreService(unreachable, PLAYER, Told(), outbox=tmp_path / "outbox", fsync=disk)
    try:
        session = GameSession(FIFTEEN, storage, time.monotonic, seed=8)
        legal_walk(session, 1)
        assert storage.durable(DEADLINE)
        disk.hold()
        legal_walk(session, 40)
        assert disk.waiting.wait(DEADLINE)
        disk.release()
        assert storage.durable(DEADLINE)
        assert storage.journal is not None
        [saved] = read_journal(storage.journal.path)[-1:]
        assert saved.write.game == session.snapshot() or saved.write.game.moves == session.snapshot().moves
        assert len(read_journal(storage.journal.path)) == 41  # the whole game, then 40 moves, each pending
    finally:
        disk.release()
        storage.close(0)


def journal_sizes(tmp_path: Path, moves: int) -> list[int]:
    """The journal's size after the whole game and after each of ``moves`` moves (the database away: nothing done)."""
    storage = StoreService(unreachable, PLAYER, Told(), outbox=tmp_path / "outbox")
    try:
        session = GameSession(FIFTEEN, storage, time.monotonic, seed=9)
        session.save()
        sizes = []
        for _ in range(moves + 1):
            assert storage.durable(DEADLINE) and storage.journal is not None
            sizes.append(storage.journal.path.stat().st_size)
            legal_walk(session, 1)
        return sizes
    finally:
        storage.close(0)


def test_a_move_journals_the_same_few_bytes_whatever_the_games_length(tmp_path):
    sizes = journal_sizes(tmp_path, 200)
    per_move = [after - before for before, after in pairwise(sizes)]
    assert max(per_move) < 260, f"a move journalled {max(per_move)} bytes"
    assert max(per_move) - min(per_move) <= 16  # only the digits of the position, the clock and the time differ
    first_ten, all_two_hundred = sizes[10] - sizes[0], sizes[200] - sizes[0]
    assert all_two_hundred / first_ten == pytest.approx(20, rel=0.05)  # linear: 200 moves cost 20 times 10 moves


CRASHER = """
import sys, time
from pathlib import Path
from solver.registry import get_puzzle
from tui.storage.backend import StoreError
from tui.game.session import GameSession
from tui.storage.service import StoreService
held = sys.argv[2] == "stalled"

def fsync(fd):
    import os, threading
    if held:
        threading.Event().wait()  # a disk that never confirms
    os.fsync(fd)

def unreachable():
    raise StoreError("unreachable")

storage = StoreService(unreachable, "user:ann", lambda news: None, outbox=Path(sys.argv[1]), fsync=fsync)
session = GameSession(get_puzzle("15"), storage, time.monotonic, seed=10)
undo = {"U": "D", "D": "U", "L": "R", "R": "L"}
for _ in range(int(sys.argv[3])):
    last = session.history.moves[session.position - 1] if session.position else ""
    session.push(next(m for m in sorted(session.puzzle.moves(session.state)) if m != undo.get(last)))
print(" ".join(session.snapshot().moves), flush=True)
sys.stdin.read()  # alive until killed
"""


@pytest.mark.parametrize("disk", ["healthy", "stalled"])
def test_a_game_killed_after_its_moves_were_accepted_loses_none(tmp_path, disk):
    """A real game process accepts 120 moves and is killed with SIGKILL once the group delay has passed (with a disk
    that never confirms an fsync, too: the moves were written, so the kernel has them).  The next game adopts its
    journal and the database gets the whole game."""
    outbox = tmp_path / "outbox"
    child = subprocess.Popen([sys.executable, "-c", CRASHER, str(outbox), disk, "120"], cwd=ROOT, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        moves = child.stdout.readline().split()
        assert len(moves) == 120
        time.sleep(outbox_module.SYNC_DELAY_SECONDS * 4)  # the bounded delay, passed (a wait for time itself)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    db = tmp_path / "koma.db"
    again = StoreService(lambda: Store(db, PLAYER), PLAYER, Told(), outbox=outbox)
    try:
        assert again.adopted == 1  # one whole game: its moves folded onto its first save
        assert again.settle(DEADLINE)
        saved = Store(db, PLAYER).load_game("15")
        assert isinstance(saved, SavedGame) and saved.moves == moves and saved.position == 120
    finally:
        again.close()


KEY_FOR = {"L": "left", "R": "right", "U": "up", "D": "down"}


async def test_the_disk_stall_probe_keys_reach_the_board_while_the_fsync_is_held(tmp_path, monkeypatch):
    """The app (Pilot) on a data dir whose journal fsync is then held for good: keys reach the board as fast as they
    did before the stall (Pilot's press, which waits for the frame, timed), the player is told once of the stall and
    once of its end, and after the release every move is in the journal and the database."""
    from tui.app import KomaApp
    from tui.storage import service as storage_module

    monkeypatch.setattr(outbox_module, "STALL_SECONDS", 0.5)
    monkeypatch.setenv("KOMA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("KOMA_PLAYER", PLAYER)
    disk = StalledDisk()
    monkeypatch.setitem(storage_module.StoreService.__init__.__kwdefaults__, "fsync", disk)
    app = KomaApp(puzzle=get_puzzle("8"), database=f"sqlite:///{tmp_path / 'koma.db'}", clock=lambda: 0.0,
                  animate_spinner=False, keymap={})
    app.animation_level = "none"  # a key's time is its handling and its frame, not a slide's 150 ms
    toasts: list[str] = []
    notify = app.notify
    app.notify = lambda message, **options: (toasts.append(str(message)), notify(message, **options))[1]  # type: ignore[method-assign]
    healthy: list[float] = []
    stalled: list[float] = []
    async with app.run_test() as pilot:
        screen = app.screen
        await wait_for_app(pilot, lambda: getattr(screen, "session", None) is not None and app.storage.durable(0))
        await play_keys(pilot, screen, 30, healthy)
        disk.hold()
        await play_keys(pilot, screen, 30, stalled)
        assert disk.waiting.is_set() and not app.storage.durable(0)  # the fsync was held all along
        await wait_for_app(pilot, lambda: any("slow to confirm" in n for n in toasts))
        moves = screen.session.snapshot().moves
        disk.release()
        await wait_for_app(pilot, lambda: app.storage.settle(0))
        await wait_for_app(pilot, lambda: any("answered again" in n for n in toasts))
    print(f"Pilot key to frame: healthy p50 {percentile(healthy, 50) * 1e3:.1f} ms p95 {percentile(healthy, 95) * 1e3:.1f} "
          f"ms; fsync held p50 {percentile(stalled, 50) * 1e3:.1f} ms p95 {percentile(stalled, 95) * 1e3:.1f} ms")
    assert len([n for n in toasts if "slow to confirm" in n]) == 1 and len([n for n in toasts if "answered" in n]) == 1
    # a key that waited for the held fsync would wait for good: none did, and the stall cost the keys nothing
    assert max(stalled) < 5.0 and percentile(stalled, 50) < percentile(healthy, 50) * 1.5 + 0.02
    saved = Store(tmp_path / "koma.db", PLAYER).load_game("8")
    assert saved is not None and saved.moves == moves and len(moves) == 60


async def play_keys(pilot, screen, count: int, took: list[float], every: float = 0.0) -> None:
    """``count`` legal arrow keys (never undoing the last move), each timed until Pilot has its frame; one key
    ``every`` seconds at most (a player's pace)."""
    undo = {"U": "D", "D": "U", "L": "R", "R": "L"}
    for _ in range(count):
        if took and every:
            await pilot.pause(max(0.0, every - took[-1]))
        session = screen.session
        last = session.history.moves[session.position - 1] if session.position else ""
        move = next(m for m in sorted(session.puzzle.moves(session.state)) if m != undo.get(last))
        before = session.position
        began = time.perf_counter()
        await pilot.press(KEY_FOR[move])
        took.append(time.perf_counter() - began)
        assert screen.session.position == before + 1, f"{move} did not reach the board"


async def wait_for_app(pilot, condition: Callable[[], object], timeout: float = DEADLINE) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout} s: {condition}"
        await pilot.pause(0.02)


def test_a_damaged_record_in_an_adopted_journal_is_skipped_with_one_notice(tmp_path):
    """A dead game's journal with a line damaged on the disk: the next game is told once, and takes the rest."""
    from tui.game.writes import Op, SaveGame
    from tui.storage.outbox import Journal

    outbox = tmp_path / "outbox"
    dead = Journal(PLAYER, outbox)
    games = {key: SavedGame("1 2 3/4 5 6/7 8 _", ["L"] * n, "p" * n, n) for n, key in enumerate(["8", "15", "goat"], 1)}
    for key, saved in games.items():
        dead.append(Op(SaveGame(key, saved), PLAYER))
    dead.close()  # its ops pending: an orphan
    lines = dead.path.read_bytes().splitlines(keepends=True)
    damaged = bytearray(lines[1])
    damaged[40] ^= 0x20  # one bit of the 15's record flipped on the disk
    dead.path.write_bytes(lines[0] + bytes(damaged) + lines[2])
    told = Told()
    db = tmp_path / "koma.db"
    storage = StoreService(lambda: Store(db, PLAYER), PLAYER, told, outbox=outbox)
    try:
        assert storage.adopted == 2 and storage.settle(DEADLINE)
        skipped = [n for n in notices(told) if "damaged record" in n]
        assert len(skipped) == 1 and "Skipped 1 damaged record of the outbox journal" in skipped[0]
        store = Store(db, PLAYER)
        assert store.load_game("8") == games["8"] and store.load_game("goat") == games["goat"]
        assert store.load_game("15") is None
        deadline = time.monotonic() + DEADLINE  # the adopted journal goes once its ops are fsync'd in ours
        while dead.path.exists():
            assert time.monotonic() < deadline, "the adopted journal was not removed"
            time.sleep(0.02)
    finally:
        storage.close()


@pytest.fixture
def stalling_disk(tmp_path):
    """A real FUSE passthrough (tests/stalling_fs.py) whose fsync stalls while ``flag`` exists: (mountpoint, flag)."""
    with stalling_mount(tmp_path, DEADLINE) as mounted:
        yield mounted


def test_on_a_real_stalling_filesystem_keys_flow_and_nothing_is_lost(stalling_disk, tmp_path, monkeypatch):
    """The journal on a FUSE filesystem whose fsync is held (a saturated or failing volume, as the kernel sees it):
    the game's writes return at once, the player is told once, and after the stall the journal holds every move."""
    monkeypatch.setattr(outbox_module, "STALL_SECONDS", 0.5)
    mountpoint, flag = stalling_disk
    told = Told()
    storage = StoreService(unreachable, PLAYER, told, outbox=mountpoint / "outbox")  # the real os.fsync: no seam
    try:
        session = GameSession(FIFTEEN, storage, time.monotonic, seed=12)
        legal_walk(session, 1)
        assert storage.durable(DEADLINE)
        flag.touch()
        writes: list[float] = []
        session.saver = TimedSaver(storage, writes)
        for _ in range(4):  # 60 keys, 6 a second for 10 s... here 15 at a time, the stall held throughout
            legal_walk(session, 15)
            wait_until(lambda: (storage.outbox is not None and storage.outbox.stalled) or not flag.exists(), 5.0)
        assert storage.outbox is not None and storage.outbox.stalled and not storage.durable(0)
        assert max(writes) < 0.5 and percentile(writes, 95) < KEY_BUDGET_SECONDS, (
            f"StoreService.write p95 {percentile(writes, 95) * 1e3:.3f} ms, max {max(writes) * 1e3:.1f} ms")
        wait_until(lambda: any("slow to confirm" in n for n in notices(told)), what="the stall notice")
        flag.unlink()
        assert storage.durable(DEADLINE)
        wait_until(lambda: any("answered again" in n for n in notices(told)), what="the recovery notice")
        assert storage.journal is not None
        journalled = read_journal(storage.journal.path)
        assert len(journalled) == 61 and journalled[-1].write.game.moves == session.snapshot().moves
    finally:
        flag.unlink(missing_ok=True)
        storage.close(0)


async def test_the_disk_stall_probe_on_a_real_stalling_filesystem(stalling_disk, monkeypatch):
    """The issue's probe: the game's data dir (its outbox) on a filesystem whose fsync stalls for 6 s while the player
    types 6 keys a second.  Keys reach the board (Pilot's press, to the frame, timed) as they did before the stall;
    told once; after the stall, every move is in the journal and the database.  (The SQLite file is kept off this
    passthrough: SQLite maps its -shm file, which faults with SIGBUS on it.)"""
    from tui.app import KomaApp

    monkeypatch.setattr(outbox_module, "STALL_SECONDS", 2.0)
    mountpoint, flag = stalling_disk
    monkeypatch.setenv("KOMA_DATA_DIR", str(mountpoint))
    monkeypatch.setenv("KOMA_PLAYER", PLAYER)
    database = mountpoint.parent / "koma.db"
    app = KomaApp(puzzle=get_puzzle("8"), database=f"sqlite:///{database}", clock=lambda: 0.0, animate_spinner=False,
                  keymap={})
    app.animation_level = "none"
    toasts: list[str] = []
    notify = app.notify
    app.notify = lambda message, **options: (toasts.append(str(message)), notify(message, **options))[1]  # type: ignore[method-assign]
    healthy: list[float] = []
    stalled: list[float] = []
    async with app.run_test() as pilot:
        screen = app.screen
        await wait_for_app(pilot, lambda: getattr(screen, "session", None) is not None and app.storage.durable(0))
        await play_keys(pilot, screen, 12, healthy, every=1 / 6)
        flag.touch()
        began = time.monotonic()
        await play_keys(pilot, screen, 36, stalled, every=1 / 6)  # 6 s of keys, 6 a second
        assert app.storage.outbox is not None and app.storage.outbox.stalled
        await wait_for_app(pilot, lambda: any("slow to confirm" in n for n in toasts))
        await wait_for_app(pilot, lambda: time.monotonic() - began >= 6.0)
        flag.unlink()
        moves = screen.session.snapshot().moves
        await wait_for_app(pilot, lambda: app.storage.settle(0))
        await wait_for_app(pilot, lambda: any("answered again" in n for n in toasts))
    print(f"FUSE probe, Pilot key to frame: healthy p50 {percentile(healthy, 50) * 1e3:.1f} ms p95 "
          f"{percentile(healthy, 95) * 1e3:.1f} ms; fsync stalled p50 {percentile(stalled, 50) * 1e3:.1f} ms p95 "
          f"{percentile(stalled, 95) * 1e3:.1f} ms max {max(stalled) * 1e3:.1f} ms")
    assert len([n for n in toasts if "slow to confirm" in n]) == 1 and len([n for n in toasts if "answered" in n]) == 1
    # a key that waited for the disk would wait out the 6 s stall: none did, and the stall cost the keys nothing
    assert max(stalled) < 2.0 and percentile(stalled, 50) < percentile(healthy, 50) * 1.5 + 0.02
    saved = Store(database, PLAYER).load_game("8")
    assert saved is not None and saved.moves == moves and len(moves) == 48
    assert app.storage.journal is not None and app.storage.journal.directory.parent == mountpoint


class CountedWake:
    """Stands in for the storage writer's condition: counts the notifies (each one wakes the writer's thread)."""

    def __init__(self, inner: threading.Condition) -> None:
        self.inner = inner
        self.notified = 0

    def notify(self, n: int = 1) -> None:
        self.notified += 1
        self.inner.notify(n)

    def wait(self, timeout: float | None = None) -> bool:
        return self.inner.wait(timeout)


def test_moves_made_while_the_writer_gathers_do_not_wake_it_and_go_in_together(tmp_path, monkeypatch):
    """The database writer waits a moment after a write for more to join its transaction; a move made meanwhile
    used to wake it (a thread switch per key) only for it to wait again.  Now the moves wait for its deadline, and
    a caller who waits for them (settle) still gets them at once."""
    import tui.storage.service as service_module

    monkeypatch.setattr(service_module, "GATHER_SECONDS", 60.0)  # the writer gathers until someone waits
    db = tmp_path / "koma.db"
    storage = StoreService(lambda: Store(db, PLAYER), PLAYER, Told(), outbox=tmp_path / "outbox")
    try:
        session = GameSession(FIFTEEN, storage, time.monotonic, seed=7)
        legal_walk(session, 1)
        wait_until(lambda: storage._gathering, what="the writer gathering")
        wake = CountedWake(storage._writer_wake)
        storage._writer_wake = wake  # type: ignore[assignment]
        legal_walk(session, 20)
        assert wake.notified == 0
        began = time.monotonic()
        assert storage.settle(DEADLINE)
        assert time.monotonic() - began < DEADLINE / 2  # not the 60 s gathering: settling hurries the writer
        assert wake.notified >= 1
        assert Store(db, PLAYER).load_game("15").moves == session.snapshot().moves
    finally:
        storage.close()
