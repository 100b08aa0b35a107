"""The durable outbox (tui/storage/outbox.py) on its own: the journal on disk, done markers, torn lines, compaction,
the size bound, the flock that keeps live journals apart, adoption of a dead game's journal, and the depth.

A writer that dies is a real process killed with SIGKILL (it never closes its journal); everything else runs in this
process on journals in a temporary dir.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

import tui.storage.outbox as outbox
from tui.game.records import SavedGame
from tui.game.writes import ClearGame, FinishGame, Guard, Op, SaveGame, Seen, decode_record, encode_record
from tui.storage.outbox import Journal, OutboxFull, claimed_orphans, coalesced, outbox_depth, player_tag, read_journal

ROOT = Path(__file__).resolve().parents[2]
PLAYER = "user:ann"


def save(key: str, moves: int, player: str = PLAYER, guard: str = "") -> Op:
    """A save op of a game with ``moves`` moves (its size grows with them, as a real game's does)."""
    return Op(SaveGame(key, SavedGame("1 2 3/4 5 6/7 8 _", ["L"] * moves, "p" * moves, moves, 1.0, 0)), player,
              Guard(guard))


def finish(key: str) -> Op:
    return Op(FinishGame(key, key, None, "1 2 3/4 5 6/7 8 _", (), "", 0, 1.0, None, 0, False, True), PLAYER)


def lines_of(path: Path) -> list:
    return [decode_record(raw) for raw in path.read_bytes().splitlines() if raw.strip()]


def ids(ops: list[Op]) -> list[str]:
    return [op.id for op in ops]


def dead_writer(directory: Path, player: str, count: int) -> tuple[Path, list[str]]:
    """A real process appends ``count`` ops to its journal and is killed (SIGKILL) without closing it: its
    journal path and the ids of its ops, in order."""
    script = (
        "import sys, pathlib\n"
        "from tui.storage.outbox import Journal\n"
        "from tui.game.records import SavedGame\n"
        "from tui.game.writes import Op, SaveGame\n"
        f"journal = Journal({player!r}, pathlib.Path({str(directory)!r}))\n"
        f"ops = [journal.append(Op(SaveGame('k%d' % n, SavedGame('s', ['L'] * n, 'p' * n, n)), {player!r})) "
        f"for n in range({count})]\n"
        "print(journal.path, *[op.id for op in ops], flush=True)\n"
        "sys.stdin.read()\n"  # alive (holding the lock) until killed
    )
    child = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    try:
        assert child.stdout is not None
        path, *op_ids = child.stdout.readline().split()
        assert list(claimed_orphans(directory, player)) == []  # its writer lives: nobody may take it
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    return Path(path), op_ids


# --- durability -----------------------------------------------------------------------------------------
def test_an_append_is_on_disk_before_it_returns(tmp_path):
    journal = Journal(PLAYER, tmp_path)
    ops = [journal.append(save("8", 1)), journal.append(Op(Seen(), PLAYER)), journal.append(save("15", 2))]
    assert [op.seq for op in ops] == [1, 2, 3] and journal.pending == ops
    assert ids(read_journal(journal.path)) == ids(ops)  # another reader, while the writer still holds it
    assert read_journal(journal.path)[2].write == ops[2].write
    assert journal.path.name.startswith(f"{player_tag(PLAYER)}.{os.getpid()}.")
    assert (journal.path.stat().st_mode & 0o777) == 0o600


def test_a_killed_writers_journal_is_read_whole_by_the_next_game(tmp_path):
    path, op_ids = dead_writer(tmp_path, PLAYER, 5)
    assert ids(read_journal(path)) == op_ids
    assert outbox_depth(tmp_path) == (5, 1)
    journal = Journal(PLAYER, tmp_path)
    assert journal.adopt_orphans() == 5
    assert ids(journal.pending) == op_ids and [op.seq for op in journal.pending] == [1, 2, 3, 4, 5]
    assert [op.key for op in journal.pending] == [f"k{n}" for n in range(5)]
    assert not path.exists() and ids(read_journal(journal.path)) == op_ids
    assert outbox_depth(tmp_path) == (5, 1)


# --- done markers and torn lines ---------------------------------------------------------------------------
def test_done_markers_leave_the_rest_pending_and_no_write_truncates(tmp_path):
    journal = Journal(PLAYER, tmp_path)
    a, b, c = (journal.append(save(f"k{n}", 1)) for n in range(3))
    journal.acknowledge(b)
    assert journal.pending == [a, c] and ids(read_journal(journal.path)) == [a.id, c.id]
    assert lines_of(journal.path)[-1].done == b.seq
    journal.acknowledge(b)  # twice: harmless
    assert ids(read_journal(journal.path)) == [a.id, c.id]
    size = journal.path.stat().st_size
    journal.acknowledge(a)
    journal.acknowledge(c)
    assert journal.pending == [] and read_journal(journal.path) == []
    assert journal.path.stat().st_size > size  # two done lines: never a truncation per write (see compaction)
    d = journal.append(save("k3", 1))
    assert d.seq == 4 and ids(read_journal(journal.path)) == [d.id]


def test_a_torn_last_line_is_ignored_and_a_damaged_line_skipped_with_one_notice(tmp_path):
    journal = Journal(PLAYER, tmp_path)
    kept = [journal.append(save("8", n)) for n in range(1, 4)]
    torn = replace(save("8", 4), seq=4)
    with open(journal.path, "ab") as raw:
        raw.write(encode_record(op=torn)[:40])  # a crash in the middle of an append
    told: list[str] = []
    assert ids(read_journal(journal.path, told.append)) == ids(kept) and told == []  # torn: never acknowledged
    flipped = bytearray(encode_record(op=replace(save("15", 2), seq=9)))
    flipped[30] ^= 0x01  # one bit of a whole line flipped on the disk
    newer = b'00000000 {"v":99}\n'
    with open(journal.path, "ab") as raw:
        raw.write(b"\n{not json}\n[1, 2]\n" + bytes(flipped) + newer + b'{"kind": "save"}\n')  # the torn line ends now: damaged too
    assert ids(read_journal(journal.path, told.append)) == ids(kept)
    assert len(told) == 1 and "Skipped 6 damaged records" in told[0] and journal.path.name in told[0]
    assert read_journal(tmp_path / "missing.jsonl") == []


def test_a_torn_journal_is_still_adopted(tmp_path):
    path, op_ids = dead_writer(tmp_path, PLAYER, 2)
    with open(path, "ab") as raw:
        raw.write(encode_record(op=replace(save("8", 3), seq=3))[:50])
    journal = Journal(PLAYER, tmp_path)
    assert journal.adopt_orphans() == 2 and ids(journal.pending) == op_ids


# --- compaction ----------------------------------------------------------------------------------------------
def test_compaction_keeps_exactly_the_pending_ops_in_order(tmp_path):
    journal = Journal(PLAYER, tmp_path)
    ops = [journal.append(Op(ClearGame(f"k{n}"), PLAYER)) for n in range(10)]
    for op in ops[::3]:
        journal.acknowledge(op)
    pending = [op for n, op in enumerate(ops) if n % 3]
    journal.compact()
    assert journal.pending == pending
    assert [line.op.id for line in lines_of(journal.path)] == ids(pending)  # no done markers, no acknowledged op
    assert ids(read_journal(journal.path)) == ids(pending)
    later = journal.append(Op(ClearGame("later"), PLAYER))  # the journal goes on after it
    assert later.seq == 11 and ids(read_journal(journal.path)) == [*ids(pending), later.id]
    assert list(claimed_orphans(tmp_path)) == []  # the rewritten file is still locked by its writer
    assert [p.name for p in tmp_path.iterdir()] == [journal.path.name]  # no temporary file left


def test_compaction_drops_only_saves_that_a_later_write_of_the_same_game_replaces():
    ops = [save("8", 1), save("15", 1), save("8", 2), finish("15"), save("8", 3, guard="absent"),
           Op(Seen(), PLAYER), save("8", 4), save("8", 5, player="user:bob"), Op(ClearGame("goat"), PLAYER),
           save("goat", 1)]
    ops = [replace(op, seq=seq) for seq, op in enumerate(ops, 1)]
    # save 8 (1, 2) give way to save 8 (4); save 15 to the finish of 15; the guarded save and bob's stand apart
    assert [op.seq for op in coalesced(ops)] == [4, 5, 6, 7, 8, 9, 10]


def test_acknowledging_compacts_a_journal_grown_past_its_threshold(tmp_path, monkeypatch):
    monkeypatch.setattr(outbox, "COMPACT_BYTES", 4096)
    journal = Journal(PLAYER, tmp_path)
    keep = journal.append(Op(ClearGame("first"), PLAYER))
    for n in range(60):  # a game saving move after move while the database takes them one by one
        journal.acknowledge(journal.append(save("8", n)))
        assert journal.path.stat().st_size <= 4096 + 3 * len(encode_record(op=save("8", n)))  # its base, the save, done
    assert journal.pending == [keep] and ids(read_journal(journal.path)) == [keep.id]
    assert [line.base.key for line in lines_of(journal.path) if line.base] == ["8"]  # the game's base, once


# --- the size bound ---------------------------------------------------------------------------------------------
def test_past_the_bound_an_append_is_refused_and_not_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(outbox, "MAX_BYTES", 2000)
    journal = Journal(PLAYER, tmp_path)
    accepted = []
    with pytest.raises(OutboxFull):
        for n in range(100):  # different games: nothing to coalesce
            accepted.append(journal.append(save(f"k{n}", 5)))
    assert journal.pending_bytes() > 2000  # the op that crossed the bound was taken; the next one is not
    assert journal.pending_bytes() - len(encode_record(op=accepted[-1])) <= 2000
    assert journal.pending == accepted and ids(read_journal(journal.path)) == ids(accepted)
    for op in accepted[:3]:
        journal.acknowledge(op)
    again = journal.append(save("k-again", 5))  # room again once the database took some
    assert again.seq == len(accepted) + 1 and ids(read_journal(journal.path))[-1] == again.id


def test_one_games_saves_never_fill_the_outbox(tmp_path, monkeypatch):
    """At the bound the journal is compacted first: a game's older saves give way to its latest one."""
    monkeypatch.setattr(outbox, "MAX_BYTES", 2000)
    journal = Journal(PLAYER, tmp_path)
    for n in range(60):
        journal.append(save("15", n % 40))
    assert journal.pending_bytes() <= 2000 + len(encode_record(op=save("15", 40)))
    assert read_journal(journal.path)[-1].id == journal.pending[-1].id
    assert journal.pending[-1].write.game.position == 59 % 40


def test_an_append_costs_the_same_with_a_long_outage_behind_it(tmp_path, monkeypatch):
    """A move during a long outage appends one line: it never re-encodes the ops already waiting."""
    journal = Journal(PLAYER, tmp_path)
    monkeypatch.setattr(outbox.os, "fsync", lambda fd: None)  # only to build the backlog quickly
    for n in range(600):  # 600 moves of one game, each save holding every move so far
        journal.append(save("15", n))
    monkeypatch.undo()
    took = []
    for n in range(600, 610):
        began = time.perf_counter()
        journal.append(save("15", n))
        took.append(time.perf_counter() - began)
    assert sorted(took)[len(took) // 2] < 0.05, f"an append took {sorted(took)[len(took) // 2] * 1000:.0f} ms"
    assert len(journal.pending) == 610
    assert journal.pending_bytes() == sum(len(encode_record(op=op)) for op in journal.pending)


# --- live journals, orphans and claims ------------------------------------------------------------------------
def test_live_journals_are_kept_apart_and_never_claimed(tmp_path):
    one, two = Journal(PLAYER, tmp_path), Journal(PLAYER, tmp_path)  # two games of one player at once
    assert one.path != two.path
    one.append(save("8", 1))
    two.append(save("15", 1))
    assert one.adopt_orphans() == 0 and two.adopt_orphans() == 0  # each holds its own lock
    assert list(claimed_orphans(tmp_path)) == [] and outbox_depth(tmp_path) == (2, 2)
    two.close()  # closed with an op pending: it stays, now an orphan
    assert two.path.exists() and one.adopt_orphans() == 1
    assert [op.key for op in one.pending] == ["8", "15"] and not two.path.exists()


def test_a_closed_journal_with_nothing_pending_is_removed(tmp_path):
    journal = Journal(PLAYER, tmp_path)
    journal.acknowledge(journal.append(save("8", 1)))
    journal.close()
    journal.close()
    assert list(tmp_path.iterdir()) == []


def test_a_dead_games_journal_goes_to_exactly_one_claimer(tmp_path):
    path, op_ids = dead_writer(tmp_path, PLAYER, 4)
    games = [Journal(PLAYER, tmp_path) for _ in range(4)]
    barrier = threading.Barrier(len(games))
    adopted = [0] * len(games)

    def adopt(k: int) -> None:
        barrier.wait(10)
        adopted[k] = games[k].adopt_orphans()

    threads = [threading.Thread(target=adopt, args=(k,)) for k in range(len(games))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(adopted) == [0, 0, 0, 4]
    winner = games[adopted.index(4)]
    assert ids(winner.pending) == op_ids and not path.exists()
    assert sum(len(read_journal(game.path)) for game in games) == 4  # one copy of each op, in one journal


def claimed_paths(directory: Path, player: str | None = None) -> list[Path]:
    """The journals a claimer gets now (each claim released at once)."""
    paths = []
    for path, fd in claimed_orphans(directory, player):
        os.close(fd)
        paths.append(path)
    return paths


def test_a_claim_is_held_until_released_and_is_per_player(tmp_path):
    _, mine = dead_writer(tmp_path, PLAYER, 1)
    _, bobs = dead_writer(tmp_path, "user:bob", 2)
    assert [ids(read_journal(path)) for path in claimed_paths(tmp_path, "user:bob")] == [bobs]
    claims = claimed_orphans(tmp_path)  # the server's drainer: everyone's
    first, fd = next(claims)
    try:
        assert claimed_paths(tmp_path) == [p for p in tmp_path.iterdir() if p != first]  # held: only the other
    finally:
        os.close(fd)
    rest = [path for path, fd in claims if not os.close(fd)]
    assert sorted(ids(read_journal(p))[0] for p in [first, *rest]) == sorted([mine[0], bobs[0]])


def test_a_claim_on_a_journal_replaced_meanwhile_is_dropped(tmp_path, monkeypatch):
    """A journal compacted (replaced by a new file) between the claimer's open and its lock is not the claimer's."""
    path, op_ids = dead_writer(tmp_path, PLAYER, 1)
    twin = tmp_path / "twin"
    twin.write_bytes(path.read_bytes())
    real_flock = outbox.fcntl.flock

    def replaced_then_locked(fd: int, how: int) -> None:
        if twin.exists():
            os.replace(twin, path)  # the writer's compaction lands between open and flock
        real_flock(fd, how)

    monkeypatch.setattr(outbox.fcntl, "flock", replaced_then_locked)
    assert claimed_paths(tmp_path, PLAYER) == []
    monkeypatch.undo()
    assert claimed_paths(tmp_path, PLAYER) == [path] and ids(read_journal(path)) == op_ids


# --- depth ------------------------------------------------------------------------------------------------------------
def test_the_outbox_depth_counts_pending_ops_of_live_and_dead_journals(tmp_path):
    assert outbox_depth(tmp_path / "none") == (0, 0) and outbox_depth(tmp_path) == (0, 0)
    dead_writer(tmp_path, "user:bob", 3)
    live = Journal(PLAYER, tmp_path)
    ops = [live.append(save(f"k{n}", 1)) for n in range(4)]
    live.acknowledge(ops[1])
    idle = Journal("user:cid", tmp_path)
    idle.acknowledge(idle.append(save("8", 1)))  # all done: not counted
    assert outbox_depth(tmp_path) == (3 + 3, 2)
    (tmp_path / "notes.txt").write_text("not a journal")
    assert outbox_depth(tmp_path) == (6, 2)


# --- a guarded game that went in --------------------------------------------------------------------------------------
def test_an_owned_line_makes_the_guarded_ops_of_that_game_plain_for_whoever_replays_them(tmp_path):
    journal = Journal(PLAYER, tmp_path)
    first, second = journal.append(save("8", 1, guard="absent")), journal.append(save("8", 2, guard="absent"))
    other = journal.append(save("15", 1, guard="absent"))
    journal.acknowledge(first)  # its guarded insert went in: the game is the session's own
    journal.own("8")
    assert [op.guard for op in journal.pending] == [Guard.NONE, Guard.ABSENT]
    assert journal.pending_bytes() == sum(len(encode_record(op=op)) for op in journal.pending)
    assert lines_of(journal.path)[-1].owned == "8"
    plain_then_guarded = [(second.id, Guard.NONE), (other.id, Guard.ABSENT)]
    assert [(op.id, op.guard) for op in read_journal(journal.path)] == plain_then_guarded
    journal.compact()  # the rewritten journal holds them plain, with no marker
    assert [(op.id, op.guard) for op in read_journal(journal.path)] == plain_then_guarded


def test_a_write_wakes_the_writer_alone_not_the_syncer_and_watcher(tmp_path, monkeypatch):
    """Each thread of the journal waits on its own condition: a write handed over wakes the writer, which wakes the
    syncer once it has written; the watcher wakes only when an fsync begins or ends (before, every write woke all three,
    each to find nothing to do: CPU on every key)."""
    from tui.storage.outbox import JournalWriter

    looks: list[str] = []
    original = JournalWriter._stall_check

    def stall_check(self):
        looks.append(threading.current_thread().name)
        return original(self)

    monkeypatch.setattr(JournalWriter, "_stall_check", stall_check)
    writer = JournalWriter(Journal(PLAYER, tmp_path), lambda notice: None, sync_delay=60.0)  # no fsync meanwhile
    try:
        for moves in range(20):
            assert writer.submit(save("8", moves))
            time.sleep(0.005)
        deadline = time.monotonic() + 30
        while len(read_journal(writer.journal.path)) < 20:
            assert time.monotonic() < deadline, "the writer did not write the ops"
            time.sleep(0.01)
        time.sleep(0.1)
        assert looks.count("koma-outbox-watcher") <= 1, looks  # its first look, before any write
    finally:
        assert writer.close(5.0)  # and closing still makes everything durable


def test_done_lines_alone_are_written_but_cost_no_fsync(tmp_path):
    """The database's acknowledgements (done lines) need no fsync: replaying a done op is harmless.  A player typing
    10 keys a second had an fsync for each key and one more for each of the database's transactions."""
    from tui.storage.outbox import JournalWriter

    synced: list[int] = []

    def counting_fsync(fd: int) -> None:
        synced.append(fd)
        os.fsync(fd)

    writer = JournalWriter(Journal(PLAYER, tmp_path, fsync=counting_fsync), lambda notice: None, sync_delay=0.0)
    try:
        assert writer.submit(save("8", 1))
        assert writer.flush(30)
        after_the_op = len(synced)
        assert after_the_op >= 1  # the op is durable (and the directory, once)
        [journalled] = writer.journal.pending
        writer.acknowledge([journalled])
        assert writer.flush(30)
        assert [record.done for record in lines_of(writer.journal.path) if record.done is not None] == [journalled.seq]  # written...
        assert len(synced) == after_the_op  # ...with no fsync
        assert writer.submit(save("8", 2))
        assert writer.flush(30)
        assert len(synced) == after_the_op + 1  # the next op is made durable as ever
    finally:
        assert writer.close(5.0)
