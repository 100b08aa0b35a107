"""PostgreSQL schema migrations: versioned SQL files, applied once, in one transaction, under a lock."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from tui_helpers import make_app, settled, wait_for

from solver.registry import get_puzzle
from tui.game.records import SavedGame
from tui.game.session import GameSession
from tui.storage.postgres import StoreUnavailable, connect
from tui.storage.postgres_schema import MIGRATIONS, SchemaError, current_version, migrate, migrations
from tui.storage.service import Answer, SavingDelayed, SavingResumed, StoreService
from tui.storage.store_choice import connect_store, open_store


def test_the_shipped_migrations_run_one_two_three():
    found = migrations()
    assert [m.version for m in found] == list(range(1, len(found) + 1)) and found[0].name == "initial"


def test_replicas_starting_at_once_apply_each_migration_once(postgres_url):
    applied: list[list[int]] = []
    start = threading.Barrier(4)

    def replica() -> None:
        with connect(postgres_url) as connection:
            start.wait(10)
            applied.append(migrate(connection))

    threads = [threading.Thread(target=replica) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    latest = len(migrations())
    assert sorted(applied) == [[], [], [], list(range(1, latest + 1))]
    with connect(postgres_url) as connection:
        assert current_version(connection) == latest
        assert connection.execute("SELECT count(*) FROM koma_schema").fetchone() == (latest,)


def test_a_failing_migration_leaves_nothing_behind(postgres_url, tmp_path):
    (tmp_path / "0001_initial.sql").write_text((MIGRATIONS / "0001_initial.sql").read_text())
    (tmp_path / "0002_broken.sql").write_text("CREATE TABLE extra (x INTEGER); SELECT no_such_function();")
    with connect(postgres_url) as connection:
        with pytest.raises(psycopg.Error):
            migrate(connection, tmp_path)
        assert current_version(connection) == 0  # not even 0001: one transaction
        assert connection.execute("SELECT to_regclass('games'), to_regclass('extra')").fetchone() == (None, None)


def test_misnamed_or_missing_versions_are_refused(tmp_path):
    (tmp_path / "0001_initial.sql").write_text("SELECT 1;")
    (tmp_path / "0003_later.sql").write_text("SELECT 1;")
    with pytest.raises(SchemaError, match="1, 2, 3"):
        migrations(tmp_path)
    (tmp_path / "3_bad.sql").write_text("SELECT 1;")
    with pytest.raises(SchemaError, match="NNNN_name"):
        migrations(tmp_path)


def test_a_database_from_a_newer_koma_is_refused_with_a_notice(postgres_url):
    with connect(postgres_url) as connection:
        migrate(connection)
        connection.execute("INSERT INTO koma_schema (version, name) VALUES (999, 'future')")
    with pytest.raises(StoreUnavailable, match="schema version 999"):
        from tui.storage.postgres import PostgresStore

        PostgresStore(postgres_url, "user:ann")
    store = open_store(postgres_url, "user:ann")
    notices = store.drain_notices()
    assert store.memory_only and len(notices) == 1 and "schema version 999" in notices[0]


def end_koma_connections(url: str) -> int:
    """End every Koma connection to ``url``'s database from the server side, as a restart or an administrator
    would, and wait until their server processes are gone; returns how many there were."""
    where = ("FROM pg_stat_activity WHERE application_name = 'koma' AND pid <> pg_backend_pid() "
             "AND datname = current_database()")
    with connect(url) as admin:
        ended = admin.execute(f"SELECT pg_terminate_backend(pid) {where}").fetchall()
        deadline = time.monotonic() + 30
        while admin.execute(f"SELECT count(*) {where}").fetchone() != (0,):
            assert time.monotonic() < deadline, "the ended connections are still there"
            time.sleep(0.02)
    assert all(ok for (ok,) in ended)
    return len(ended)


def test_a_lost_connection_is_replaced_without_losing_the_save(postgres_url, tmp_path):
    """A connection the server ended while idle is replaced before the next statement: the statement goes in, and
    the game is told nothing (no "not saved yet" for a routine reconnect, no read answered "unknown")."""
    store = open_store(postgres_url, "user:ann")
    assert end_koma_connections(postgres_url) == 1
    store.save_game("8", SavedGame("1 2 3/4 5 6/7 _ 8"))  # no StoreError: a new connection took it
    assert store.load_game("8").start == "1 2 3/4 5 6/7 _ 8" and store.drain_notices() == []
    store.close()
    told: list = []
    storage = StoreService(lambda: connect_store(postgres_url, "user:bob"), "user:bob", told.append, outbox=tmp_path / "outbox")
    session = GameSession(get_puzzle("8"), storage, time.monotonic, seed=3)
    session.push(sorted(session.puzzle.moves(session.state))[0])
    assert storage.settle(30) and read(storage, lambda store: store.load_game("8")).known  # both threads connected
    assert end_koma_connections(postgres_url) == 2  # the writer's connection and the reader's
    session.push(sorted(session.puzzle.moves(session.state))[0])
    assert storage.settle(30)
    answer = read(storage, lambda store: store.load_game("8"))
    assert answer.known and answer.value.moves == session.snapshot().moves
    assert [n for n in told if isinstance(n, SavingDelayed | SavingResumed)] == []
    assert storage.close() == 0


def read(storage: StoreService, run) -> Answer:
    answers: list[Answer] = []
    storage.read(run, answers.append)
    deadline = time.monotonic() + 30
    while not answers:
        assert time.monotonic() < deadline, "no answer"
        time.sleep(0.02)
    return answers[0]


def saving_line(screen) -> str:
    return str(screen.status.query_one("#saving").render())


async def test_an_unreachable_database_mid_session_is_one_notice(postgres_server, postgres_url, tmp_path):
    """The database is lost mid-game and cannot be reached again: the panel says so once, in one line (no toast per
    key, the Moves counter in view), reads answer "unknown" (never "no saved game"), every move is kept, and all of
    them are saved, with a second line, when the database is back."""
    store = open_store(postgres_url, "user:ann", "ann")
    app = make_app(tmp_path, "8", "8 6 7/2 5 4/3 _ 1", store=store)  # 31 moves from the goal
    told: list = []
    post = app.storage.post
    app.storage.post = lambda news: (told.append(news), post(news))[1]
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        await pilot.press("left")
        await settled(pilot)
        assert saving_line(screen) == ""
        store.backend.url = postgres_server.url(port=1) + "?connect_timeout=2"  # where the reconnect will fail
        end_koma_connections(postgres_url)
        for key in ["right", "left"] * 10:
            await pilot.press(key)
        await wait_for(pilot, lambda: "Not saved yet" in saving_line(screen), what="the panel's line")
        assert "unreachable" in saving_line(screen) and "\n" not in saving_line(screen)
        answers: list[Answer] = []
        app.storage.read(lambda store: store.load_game("8"), answers.append)
        await wait_for(pilot, lambda: answers, what="a read during the outage")
        assert not answers[0].known and answers[0].value is None and "unreachable" in answers[0].unknown
        counters = screen.status.query_one("#counters")
        assert screen.position == 21 and "Moves 21" in str(counters.render())
        assert counters.region.height >= 1 and app.screen.region.contains_region(counters.region)
        assert [n.message for n in app._notifications] == []  # no toast at all, let alone one per key
        assert len([n for n in told if isinstance(n, SavingDelayed)]) == 1
        store.backend.url = postgres_url  # the database is back
        await wait_for(pilot, lambda: "Saved again" in saving_line(screen), what="the line saying it is back")
        await settled(pilot)
        assert len([n for n in told if isinstance(n, SavingDelayed)]) == 1
        assert len([n for n in told if isinstance(n, SavingResumed)]) == 1
        moves = list(screen.history.moves)
    saved = open_store(postgres_url, "user:ann").load_game("8")  # another session (another replica) reads it
    assert saved is not None and saved.moves == moves and saved.position == 21
