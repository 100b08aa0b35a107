"""The storage service (tui/storage/service.py) and the server's drainer (tui/storage/outbox_drain.py), with no app.

The database is a real SQLite file.  Between the store and that file sits :class:`Faulty`, a backend (the seam of
tui/storage/backend.py) that fails (StoreError) or stalls (blocks on an event) when the test says so; the fault tests
with a real PostgreSQL server and real locks are tests/tui/test_storage_faults.py.  Every wait has a deadline.
"""

from __future__ import annotations

import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from store_helpers import Told

import tui.storage.outbox as outbox_module
import tui.storage.service as storage_module
from solver.registry import get_puzzle
from tui.game.records import SavedGame
from tui.game.session import GameSession, Push
from tui.game.writes import OpKind, Seen, SetWatchable
from tui.storage import outbox_drain
from tui.storage.backend import Query, StoreError
from tui.storage.outbox import outbox_depth, player_tag, read_journal
from tui.storage.outbox_drain import OutboxDrainer
from tui.storage.service import Answer, Finished, GameKeptApart, SavingDelayed, SavingResumed, StoreService
from tui.storage.sqlite import SqliteBackend
from tui.storage.store import Store

SAVE = OpKind.SAVE

EIGHT = get_puzzle("8")
NEAR = EIGHT.parse("1 2 3/4 _ 5/6 7 8")
TWO_TO_GO = EIGHT.parse("1 2 3/4 5 6/_ 7 8")  # L, L reaches the goal
PLAYER = "user:ann"
DEADLINE = 20.0
# A call that must not wait for the database returns well within this (it takes a few ms; a loaded 2-core box running
# the suite on four workers has taken 0.85 s).  The stalls these tests make last until healed, so a call that did
# wait for the database would never come back within it.
PROMPT = 2.0
STORED = SavedGame("1 2 3/4 5 6/7 _ 8", ["R", "L"], "pp", 2, 30.0, 0)  # a game stored before the session


def wait_until(condition: Callable[[], object], timeout: float = DEADLINE, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what or condition}"
        time.sleep(0.01)


class Faults:
    """What every :class:`Faulty` backend of one test does now: work, fail, or stall until released."""

    def __init__(self) -> None:
        self.failing = False
        self.flowing = threading.Event()
        self.flowing.set()
        self.stalled = threading.Event()  # set once a call is held by a stall
        self.saves: list[tuple[str, int]] = []  # (key, position) of every save that reached the database, in order
        self.lock = threading.Lock()
        self.saves_flowing = threading.Event()  # cleared: saving a game waits (a slow or locked writer), reads do not
        self.saves_flowing.set()

    def fail(self) -> None:
        self.failing = True

    def stall(self) -> None:
        self.stalled.clear()
        self.flowing.clear()

    def heal(self) -> None:
        self.failing = False
        self.flowing.set()
        self.saves_flowing.set()

    def gate(self) -> None:
        if not self.flowing.is_set():
            self.stalled.set()
            self.flowing.wait(60)
        if self.failing:
            raise StoreError("unreachable: the test cut it off")


class Faulty:
    """A backend on a SQLite file that obeys :class:`Faults` before every statement."""

    def __init__(self, path: Path, faults: Faults):
        self.inner = SqliteBackend(path)
        self.faults = faults
        self.where = self.inner.where
        self.memory_only = False
        self.notices: list[str] = []

    def query(self, sql: str, args: tuple = ()) -> list[tuple]:
        self.faults.gate()
        if sql.startswith("INSERT INTO games"):
            self.faults.saves_flowing.wait(60)
        rows = self.inner.query(sql, args)
        if sql.startswith("INSERT INTO games") and rows:
            with self.faults.lock:
                self.faults.saves.append((str(args[1]), int(args[5])))
        return rows

    @contextmanager
    def transaction(self, lock: str) -> Iterator[Query]:
        self.faults.gate()
        with self.inner.transaction(lock) as query:
            yield query

    @contextmanager
    def batch(self) -> Iterator[None]:
        self.faults.gate()
        with self.inner.batch():
            yield

    def close(self) -> None:
        self.inner.close()


class World:
    """One test's database file, outbox dir and faults; it makes storage services and closes them at the end."""

    def __init__(self, tmp_path: Path):
        self.db = tmp_path / "koma.db"
        self.outbox = tmp_path / "outbox"
        self.faults = Faults()
        self.services: list[StoreService] = []

    def store(self, player: str = PLAYER) -> Store:
        """A store straight on the file, as another process (a reconnecting player) sees it."""
        return Store(self.db, player)

    def connect(self, player: str = PLAYER) -> Store:
        self.faults.gate()  # connecting fails (or stalls) too
        return Store(player=player, backend=Faulty(self.db, self.faults))

    def service(self, told: Told | None = None, player: str = PLAYER) -> StoreService:
        storage = StoreService(lambda: self.connect(player), player, told or Told(), outbox=self.outbox)
        self.services.append(storage)
        return storage

    def stored(self, key: str = "8", player: str = PLAYER) -> SavedGame | None:
        return self.store(player).load_game(key)

    def count(self, sql: str) -> int:
        with sqlite3.connect(self.db) as db:
            return db.execute(sql).fetchone()[0]


@pytest.fixture
def world(tmp_path, monkeypatch):
    monkeypatch.setattr(storage_module, "RETRY_SECONDS", (0.01, 0.02, 0.05))  # the writer tries again soon
    made = World(tmp_path)
    made.store().close()  # the schema, before any fault
    yield made
    made.faults.heal()
    for service in made.services:
        service.close(0)


def game(storage: StoreService, start: tuple = NEAR, **kwargs) -> GameSession:
    return GameSession(EIGHT, storage, time.monotonic, start=start, **kwargs)


def play(session: GameSession, moves: list[str]) -> None:
    for move in moves:
        assert session.push(move) in (Push.PLAYED, Push.WON), move


WALK = ["L", "U", "R", "D", "L", "U", "R", "D"]  # the blank circles a corner twice, turning three tiles round


def same_game(a: SavedGame | None, b: SavedGame) -> bool:
    """Equal but for the clock (it runs between the save and the look)."""
    return a is not None and (a.start, a.moves, a.origins, a.position, a.hints) == (b.start, b.moves, b.origins,
                                                                                   b.position, b.hints)


def read_now(storage: StoreService, run: Callable[[Store], object], deadline: float = 4.0) -> tuple[Answer, float]:
    """Ask for a read and wait for its answer: the answer and the seconds it took."""
    answers: list[Answer] = []
    began = time.monotonic()
    storage.read(run, answers.append, deadline)
    wait_until(lambda: answers, what="an answer")
    return answers[0], time.monotonic() - began


# --- writes ---------------------------------------------------------------------------------------------------
def test_saves_go_through_the_outbox_and_reach_the_database_in_order(world):
    storage = world.service()
    session = game(storage)
    play(session, WALK)
    assert storage.settle(DEADLINE)
    assert EIGHT.replay(NEAR, WALK)[-1] == session.state != NEAR
    assert same_game(world.stored(), session.snapshot())
    positions = [position for key, position in world.faults.saves if key == "8"]
    assert positions == sorted(positions) and positions[-1] == len(WALK)  # one at a time, oldest first
    assert storage.pending_ops() == [] and read_journal(storage.journal.path) == []
    assert storage.close() == 0 and not storage.journal.path.exists()


def test_moves_typed_a_tenth_of_a_second_apart_share_transactions_and_still_reach_the_database(world, monkeypatch):
    storage = world.service()
    session = game(storage)
    wait_until(lambda: not storage.pending_ops(), what="the first save in the database")
    transactions: list[int] = []
    batch = Faulty.batch

    def counted(self):
        transactions.append(1)
        return batch(self)

    monkeypatch.setattr(Faulty, "batch", counted)
    for move in WALK:  # a player typing 10 keys a second; nobody settles or reads meanwhile
        play(session, [move])
        time.sleep(0.1)
    wait_until(lambda: not storage.pending_ops(), what="every move in the database")
    assert same_game(world.stored(), session.snapshot())
    assert 1 <= len(transactions) <= len(WALK) // 2, transactions  # one a key without the writer's gathering


def test_a_read_or_settle_does_not_wait_for_the_writers_gathering(world, monkeypatch):
    monkeypatch.setattr(storage_module, "GATHER_SECONDS", 30.0)  # a gathering that outlives every deadline here
    storage = world.service()
    session = game(storage)
    play(session, ["L"])
    answer, _ = read_now(storage, lambda store: store.load_game("8"))
    assert answer.known and answer.value is not None and answer.value.position == 1  # the read went after the write
    play(session, ["U"])
    assert storage.settle(DEADLINE)
    assert same_game(world.stored(), session.snapshot())


def test_a_write_is_on_disk_before_the_database_has_it(world):
    world.faults.stall()
    storage = world.service()
    session = game(storage)
    play(session, ["L", "U"])
    assert storage.durable(DEADLINE)  # fsync'd within the outbox's group delay
    journalled = read_journal(storage.journal.path)  # the move after the whole game, folded onto it
    assert [(op.kind, op.key, op.write.game.position) for op in journalled] == [(SAVE, "8", 1), (SAVE, "8", 2)]
    assert same_game(storage.pending_save("8"), session.snapshot())  # the game's latest save answers from the outbox
    assert storage.pending_save("15") is False
    world.faults.heal()
    assert storage.settle(DEADLINE) and same_game(world.stored(), session.snapshot())


def test_saving_delayed_is_told_once_and_resumed_once(world):
    told = Told()
    storage = world.service(told)
    session = game(storage)
    play(session, ["L"])
    assert storage.settle(DEADLINE)
    world.faults.fail()
    play(session, WALK[1:])  # every move fails to reach the database, many times over
    wait_until(lambda: told.of(SavingDelayed), what="SavingDelayed")
    wait_until(lambda: storage.journal is not None and len(world.faults.saves) == 1 and storage.in_trouble)
    delayed = told.of(SavingDelayed)
    assert len(delayed) == 1 and "unreachable" in delayed[0].reason and delayed[0].pending >= 1
    assert storage.durable(DEADLINE)
    assert outbox_depth(world.outbox)[0] == len(storage.pending_ops()) >= 1
    world.faults.heal()
    wait_until(lambda: told.of(SavingResumed), what="SavingResumed")
    assert storage.settle(DEADLINE)
    resumed = told.of(SavingResumed)
    assert len(told.of(SavingDelayed)) == 1 and len(resumed) == 1 and resumed[0].written >= 1
    assert same_game(world.stored(), session.snapshot()) and not storage.in_trouble
    world.faults.fail()  # a second outage is news again, once
    play(session, ["L"])
    wait_until(lambda: len(told.of(SavingDelayed)) == 2)
    world.faults.heal()
    wait_until(lambda: len(told.of(SavingResumed)) == 2)
    assert storage.settle(DEADLINE) and same_game(world.stored(), session.snapshot())


def test_a_stalled_database_never_holds_the_caller(world):
    storage = world.service()
    session = game(storage)
    world.faults.stall()
    play(session, ["L"])
    wait_until(world.faults.stalled.is_set, what="the writer held by the stall")
    took = []
    for move in WALK[1:]:
        began = time.monotonic()
        session.push(move)
        took.append(time.monotonic() - began)
    began = time.monotonic()
    storage.read(lambda store: store.load_game("8"), lambda answer: None)
    took.append(time.monotonic() - began)
    assert max(took) < PROMPT, f"a call waited {max(took):.3f} s"
    assert storage.durable(DEADLINE) and len(read_journal(storage.journal.path)) == len(WALK)


def test_a_full_outbox_refuses_a_write_with_a_notice_and_the_game_plays_on(world, monkeypatch):
    monkeypatch.setattr(storage_module, "MAX_PENDING_OPS", 12)
    storage = world.service()
    world.faults.fail()
    accepted = 0
    while storage.write(SetWatchable(True)):  # writes no later one replaces
        accepted += 1
        assert accepted < 50, "the bound never came"
    assert accepted == 12 and storage.notices[-1].startswith("Not saved: 12 writes already wait")
    assert storage.durable(DEADLINE)
    assert len(storage.pending_ops()) == accepted and len(read_journal(storage.journal.path)) == accepted
    session = game(storage)
    assert session.push("L") is Push.PLAYED and not session.based  # the player is not stopped
    world.faults.heal()
    assert storage.settle(DEADLINE) and storage.write(Seen())  # room again once the database took them
    assert session.push("U") is Push.PLAYED and session.based  # the whole game went, with the move refused before
    assert storage.settle(DEADLINE) and same_game(world.stored(), session.snapshot())


def test_past_the_disk_bound_writes_are_kept_in_memory_with_a_notice(world, monkeypatch):
    monkeypatch.setattr(outbox_module, "MAX_BYTES", 600)
    storage = world.service()
    world.faults.fail()
    session = game(storage)
    play(session, WALK)  # one game's moves never fill it: a compaction folds them into one whole game
    assert storage.durable(DEADLINE) and not any("full" in notice for notice in storage.notices)
    for _ in range(20):  # writes no later one replaces
        assert storage.write(SetWatchable(True))  # still accepted: kept in memory
    assert storage.durable(DEADLINE)
    assert any(notice.startswith("The outbox on disk is full") for notice in storage.notices)
    assert len(read_journal(storage.journal.path)) < len(storage.pending_ops()) == len(WALK) + 20
    world.faults.heal()
    assert storage.settle(DEADLINE) and same_game(world.stored(), session.snapshot())


# --- reads ----------------------------------------------------------------------------------------------------
def test_a_read_answers_the_value_and_no_saved_game_is_known_to_be_none(world):
    world.store().save_game("8", STORED)
    storage = world.service()
    answer, _ = read_now(storage, lambda store: store.load_game("8"))
    assert answer.known and answer.value == STORED
    answer, _ = read_now(storage, lambda store: store.load_game("15"))
    assert answer.known and answer.value is None  # really nothing saved: known


def test_a_failed_read_is_unknown_never_empty(world):
    world.store().save_game("8", STORED)
    told = Told()
    storage = world.service(told)
    world.faults.fail()
    answer, _ = read_now(storage, lambda store: store.load_game("8"))
    assert not answer.known and answer.value is None and "unreachable" in answer.unknown
    wait_until(lambda: told.of(SavingDelayed), what="SavingDelayed after a failed read")  # the database is away
    read_now(storage, lambda store: store.load_game("8"))
    assert len(told.of(SavingDelayed)) == 1  # said once
    world.faults.heal()
    answer, _ = read_now(storage, lambda store: store.load_game("8"))
    assert answer.known and answer.value == STORED
    wait_until(lambda: told.of(SavingResumed), what="SavingResumed after a good read")
    answer, _ = read_now(storage, lambda store: 1 / 0)  # a read that breaks is unknown too, and the game goes on
    assert not answer.known and answer.unknown == "division by zero"


def test_a_read_that_outlives_its_deadline_is_unknown_by_then(world):
    world.store().save_game("8", STORED)
    storage = world.service()
    world.faults.stall()
    answer, took = read_now(storage, lambda store: store.load_game("8"), deadline=0.3)
    assert not answer.known and answer.value is None and "in time" in answer.unknown
    assert 0.25 <= took < 0.3 + PROMPT
    late: list[Answer] = []
    storage.read(lambda store: store.load_game("8"), late.append, deadline=0.2)  # queued behind the stalled one
    wait_until(lambda: late)
    world.faults.heal()
    assert storage.settle(DEADLINE)
    assert len(late) == 1 and not late[0].known  # answered once: the late value does not follow the deadline's answer


def test_a_read_sees_the_writes_accepted_before_it(world):
    """The player leaves a game and its card is read at once: the read waits for the writer (briefly), so the card
    shows the game just left, not the database's older row."""
    world.store().save_game("8", STORED)
    storage = world.service()
    session = game(storage)
    world.faults.saves_flowing.clear()
    play(session, ["L", "U"])
    threading.Timer(0.2, world.faults.saves_flowing.set).start()  # a slow writer, still within the read's patience
    answer, _ = read_now(storage, lambda store: store.load_game("8"))
    assert answer.known and same_game(answer.value, session.snapshot())


def test_a_held_writer_delays_a_read_only_briefly(world):
    """A writer held by a lock (not yet in trouble) keeps a read back for WRITES_FIRST_SECONDS at most; then the read
    answers what the database has, and the session's own latest save still answers from the outbox."""
    world.store().save_game("8", STORED)
    storage = world.service()
    session = game(storage)
    world.faults.saves_flowing.clear()
    play(session, ["L"])
    answer, took = read_now(storage, lambda store: store.load_game("8"))
    assert answer.known and answer.value == STORED
    assert storage_module.WRITES_FIRST_SECONDS - 0.05 <= took < storage_module.WRITES_FIRST_SECONDS + PROMPT
    assert same_game(storage.pending_save("8"), session.snapshot())
    world.faults.saves_flowing.set()
    assert storage.settle(DEADLINE) and same_game(world.stored(), session.snapshot())


# --- closing -----------------------------------------------------------------------------------------------------
def test_close_keeps_to_its_budget_while_stalled_and_leaves_the_rest_in_the_journal(world):
    storage = world.service()
    session = game(storage)
    world.faults.stall()
    play(session, WALK[:4])
    wait_until(world.faults.stalled.is_set)
    began = time.monotonic()
    left = storage.close(0.3)
    took = time.monotonic() - began
    assert 0.25 <= took < 0.3 + PROMPT, f"close took {took:.2f} s"
    assert left == 4
    journal = storage.journal.path
    assert [op.write.game.position for op in read_journal(journal)] == [1, 2, 3, 4]
    assert outbox_depth(world.outbox) == (4, 1)
    world.faults.heal()  # the stalled statement goes through late; the journal is the drainer's now
    OutboxDrainer(f"sqlite:///{world.db}", lambda line: None, world.outbox).drain()
    assert same_game(world.stored(), session.snapshot()) and outbox_depth(world.outbox) == (0, 0)


def test_close_while_failing_is_at_once(world):
    storage = world.service()
    session = game(storage)
    world.faults.fail()
    play(session, ["L"])
    wait_until(lambda: storage.in_trouble)
    began = time.monotonic()
    assert storage.close(5.0) == 1
    assert time.monotonic() - began < PROMPT  # in trouble: no point waiting for the database


# --- the leftover journal, applied once ---------------------------------------------------------------------------
def finished_in_an_outage(world: World) -> tuple[GameSession, Path]:
    """A game won while the database is away, its process closed: the journal it left (a copy is kept)."""
    storage = world.service()
    session = game(storage, TWO_TO_GO)
    world.faults.fail()
    play(session, ["L", "L"])
    assert EIGHT.is_goal(session.state) and EIGHT.replay(TWO_TO_GO, ["L", "L"])[-1] == session.state
    session.finish(2)
    other = GameSession(get_puzzle("15"), storage, time.monotonic, seed=5)
    play(other, [sorted(other.puzzle.moves(other.state))[0]])
    wait_until(lambda: storage.in_trouble)
    assert storage.close(0.1) == 4  # the whole game, a move, the finish, the 15's save
    journal = storage.journal.path
    copy = journal.with_name(f"{player_tag(PLAYER)}.99999.copy.jsonl.saved")
    shutil.copy(journal, copy)
    world.faults.heal()
    return other, copy


def rows(world: World) -> tuple[int, int, int]:
    """(replays, games solved, games in progress) of the player."""
    return (world.count("SELECT count(*) FROM replays"), world.store().stats("8").solved,
            world.count("SELECT count(*) FROM games"))


def test_the_next_game_adopts_the_journal_and_a_second_replay_changes_nothing(world):
    other, copy = finished_in_an_outage(world)
    told = Told()
    next_game = world.service(told)  # the player's next game takes the dead one's journal
    assert next_game.adopted == 2  # the finish, and the 15's save (the 8's saves give way to its finish)
    assert next_game.settle(DEADLINE)
    assert rows(world) == (1, 1, 1) and world.stored("8") is None  # recorded, and the won game cleared
    assert same_game(world.stored("15"), other.snapshot())
    assert [n.key for n in told.of(Finished)] == ["8"]
    copy.rename(copy.with_suffix(""))  # the same journal again (a crash before its done markers)
    again = world.service()
    assert again.adopted == 2 and again.settle(DEADLINE)
    assert rows(world) == (1, 1, 1)  # one replay, counted once
    assert same_game(world.stored("15"), other.snapshot())


def test_the_drainer_applies_a_dead_games_journal_once(world):
    other, copy = finished_in_an_outage(world)
    logged: list[str] = []
    drainer = OutboxDrainer(f"sqlite:///{world.db}", logged.append, world.outbox)
    assert drainer.drain() == 2  # the finish, and the 15's save (the 8's saves give way to its finish)
    assert rows(world) == (1, 1, 1) and same_game(world.stored("15"), other.snapshot())
    assert outbox_depth(world.outbox) == (0, 0) and logged == ["wrote 2 saved move(s) that games left in the outbox"]
    copy.rename(copy.with_suffix(""))
    assert drainer.drain() == 2 and rows(world) == (1, 1, 1)
    assert drainer.drain() == 0 and list(world.outbox.iterdir()) == []


def test_the_drainer_leaves_a_live_games_journal_alone(world):
    storage = world.service()
    world.faults.fail()
    play(game(storage), ["L"])
    wait_until(lambda: storage.in_trouble)
    assert OutboxDrainer(f"sqlite:///{world.db}", lambda line: None, world.outbox).drain() == 0
    assert outbox_depth(world.outbox) == (1, 1)


def test_the_drainer_tells_the_operator_once_when_trouble_starts_and_ends(world, monkeypatch):
    storage = world.service()
    world.faults.fail()
    play(game(storage), ["L", "U"])
    wait_until(lambda: storage.in_trouble)
    storage.close(0)
    monkeypatch.setattr(outbox_drain, "connect_store", lambda database, player: world.connect(player))
    logged: list[str] = []
    drainer = OutboxDrainer("ignored", logged.append, world.outbox)
    assert drainer.drain() == 0 and drainer.drain() == 0
    assert len(logged) == 1 and logged[0].startswith("database trouble: unreachable")
    assert "(2 op(s) in 1 journal(s))" in logged[0]
    world.faults.heal()
    assert drainer.drain() == 1  # two moves of one game: its whole game, once
    assert logged[1] == "wrote 1 saved move(s) that games left in the outbox"
    assert logged[2].startswith("database back after") and logged[2].endswith("outbox depth 0 op(s) in 0 journal(s)")
    assert drainer.drain() == 0 and len(logged) == 3


# --- the guard: a game that was not read is never replaced ------------------------------------------------------------
def test_a_guarded_session_never_replaces_the_stored_game(world):
    world.store().save_game("8", STORED)
    told = Told()
    storage = world.service(told)
    session = game(storage, TWO_TO_GO, read_unknown=True)  # the read of "8" was unknown
    play(session, ["L"])
    session.hint_shown("L")
    play(session, ["L"])
    session.finish(2)
    assert storage.settle(DEADLINE)
    assert world.stored() == STORED  # neither saved over nor cleared by the finish
    assert [n.key for n in told.of(GameKeptApart)] == ["8"]  # told once, not per save
    assert world.store().stats("8").solved == 1  # the win itself still counts


def test_a_guarded_session_with_nothing_stored_owns_its_game(world):
    told = Told()
    storage = world.service(told)
    session = game(storage, read_unknown=True)
    play(session, WALK[:3])
    assert storage.settle(DEADLINE)
    assert same_game(world.stored(), session.snapshot()) and told.of(GameKeptApart) == []
    assert storage.owned == {"8"}


def test_a_guarded_save_waiting_in_the_outbox_never_replaces_a_game_stored_meanwhile(world):
    told = Told()
    storage = world.service(told)
    world.faults.fail()
    session = game(storage, read_unknown=True)
    play(session, ["L"])
    wait_until(lambda: storage.in_trouble)
    world.store().save_game("8", STORED)  # another replica had it all along
    world.faults.heal()
    assert storage.settle(DEADLINE)
    assert world.stored() == STORED and [n.key for n in told.of(GameKeptApart)] == ["8"]


def test_a_guarded_game_that_got_in_keeps_its_later_moves_across_a_restart(world):
    """The session's guarded game went in (nothing was stored); then the database went away and the game ended.
    Its later moves are its own game's, not a stranger's: the next game writes them."""
    storage = world.service()
    session = game(storage, read_unknown=True)
    play(session, ["L"])
    assert storage.settle(DEADLINE) and storage.owned == {"8"}
    world.faults.fail()
    play(session, WALK[1:4])
    wait_until(lambda: storage.in_trouble)
    assert storage.close(0) == 3
    world.faults.heal()
    told = Told()
    again = world.service(told)
    assert again.adopted == 1 and again.settle(DEADLINE)  # three moves, folded into one whole game
    assert same_game(world.stored(), session.snapshot()) and told.of(GameKeptApart) == []
