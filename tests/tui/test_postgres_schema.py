"""PostgreSQL schema migrations: versioned SQL files, applied once, in one transaction, under a lock."""

from __future__ import annotations

import threading

import psycopg
import pytest

from tui.game.postgres_schema import MIGRATIONS, SchemaError, current_version, migrate, migrations
from tui.game.store_postgres import StoreUnavailable, connect
from tui.game.stores import open_store


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
        from tui.game.store_postgres import PostgresStore

        PostgresStore(postgres_url, "user:ann")
    store = open_store(postgres_url, "user:ann")
    notices = store.drain_notices()
    assert store.memory_only and len(notices) == 1 and "schema version 999" in notices[0]


def test_a_lost_connection_is_replaced_without_losing_the_save(postgres_url):
    from tui.game.store import SavedGame

    store = open_store(postgres_url, "user:ann")
    with connect(postgres_url) as admin:
        ended = admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'koma' "
                              "AND pid <> pg_backend_pid() AND datname = current_database()").fetchall()
    assert ended == [(True,)]
    store.save_game("8", SavedGame("1 2 3/4 5 6/7 _ 8"))  # the first try fails; the retry reconnects
    assert store.load_game("8").start == "1 2 3/4 5 6/7 _ 8" and store.drain_notices() == []


def test_an_unreachable_database_mid_session_is_one_notice(postgres_server, postgres_url):
    from tui.game.store import SavedGame

    store = open_store(postgres_url, "user:ann")
    store.url = postgres_server.url(port=1) + "?connect_timeout=2"  # where the reconnect will fail
    with connect(postgres_url) as admin:
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'koma' "
                      "AND pid <> pg_backend_pid() AND datname = current_database()")
    store.save_game("8", SavedGame("1 2 3/4 5 6/7 _ 8"))
    store.save_game("8", SavedGame("1 2 3/4 5 6/7 _ 8"))
    notices = store.drain_notices()
    assert len(notices) == 1 and "play goes on unsaved" in notices[0] and "\n" not in notices[0]
    assert store.load_game("8") is None and store.stats("8").solved == 0  # reads degrade too, without raising
