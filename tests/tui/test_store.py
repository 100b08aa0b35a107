"""The game database: saves, stats, a corrupt file, rows with wrong-typed values (store and Pilot)."""

import json
import os
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from store_helpers import BAD_VALUES, database_with_bad_rows
from tui_helpers import make_app, settled, wait_for

from tui.game.writes import Op, SaveGame
from tui.play.screen import PlayScreen
from tui.screens.home import HomeScreen
from tui.storage.service import GameBehind, apply_op
from tui.storage.store import SCHEMA_VERSION, SavedGame, Stats, Store, inspect


def test_save_load_and_clear(tmp_path):
    store = Store(tmp_path / "koma.db")
    assert store.load_game("8") is None
    store.save_game("8", SavedGame("1 2 3/4 5 6/7 _ 8", ["L", "R"], "pk", 1, 12.5, 2))
    again = Store(tmp_path / "koma.db")  # a second session sees it
    game = again.load_game("8")
    assert game == SavedGame("1 2 3/4 5 6/7 _ 8", ["L", "R"], "pk", 1, 12.5, 2)
    assert list(again.games_in_progress()) == ["8"]
    again.clear_game("8")
    assert store.load_game("8") is None
    assert not store.notices and not again.notices


def test_a_save_with_fewer_changes_never_replaces_the_stored_game(tmp_path):
    """The row keeps the game that has had the most changes (``version``); of two with as many, the one accepted
    later.  A save refused so is news for its session (GameBehind)."""
    store = Store(tmp_path / "koma.db")
    newer = SavedGame("1 2 3/4 5 6/7 _ 8", ["L", "R", "L"], "ppp", 3, 9.0, 0, 7)
    assert store.save_game("8", newer, at=100.0)
    older = SavedGame("1 2 3/4 5 6/7 _ 8", ["L"], "p", 1, 3.0, 0, 5)  # resumed from an older state, saved later
    assert not store.save_game("8", older, at=200.0)
    assert store.load_stamped_game("8") == (newer, 100.0)
    news = apply_op(store, Op(SaveGame("8", older), "local", at=300.0), set(), set())
    assert news == GameBehind("8") and store.load_game("8") == newer
    assert not store.save_game("8", replace(newer, seconds=1.0), at=99.0)  # as many changes, accepted earlier
    assert store.save_game("8", replace(newer, seconds=10.0), at=100.0)  # the same save again (an outbox replays it)
    played_on = SavedGame("1 2 3/4 5 6/7 _ 8", ["L", "R", "L", "R"], "pppp", 4, 12.0, 0, 8)
    assert apply_op(store, Op(SaveGame("8", played_on), "local", at=50.0), set(), set()) is None
    assert store.load_game("8") == played_on  # more changes: it replaces, whatever its clock said


def test_stats_keep_the_best(tmp_path):
    store = Store(tmp_path / "koma.db")
    store.record_win("15", 60, 50, 90.0)
    store.record_win("15", 40, 36, 120.0)  # 4 over beats 10 over
    store.record_win("15", 70, 50, 80.0)  # best time only
    store.record_koma_finish("15")
    stats = store.stats("15")
    assert (stats.solved, stats.by_koma, stats.best_moves, stats.best_optimal, stats.best_seconds) == (3, 1, 40, 36, 80.0)


def test_corrupt_database_is_moved_aside(tmp_path):
    path = tmp_path / "koma.db"
    path.write_bytes(b"this is not a database at all" * 100)
    store = Store(path)
    assert len(store.notices) == 1 and "moved it to koma.db.corrupt-" in store.notices[0]
    assert list(tmp_path.glob("koma.db.corrupt-*"))
    store.save_game("goat", SavedGame("r-BB/i.dS/l-jW"))
    assert store.load_game("goat").start == "r-BB/i.dS/l-jW"
    assert not store.memory_only


def test_unwritable_location_keeps_games_in_memory(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    store = Store(blocker / "sub" / "koma.db")  # parent is a file: cannot create
    assert store.memory_only and len(store.notices) == 1
    store.save_game("8", SavedGame("1 2 3/4 5 6/7 8 _"))
    assert store.load_game("8") is not None


# --- rows with wrong-typed values ------------------------------------------------------------------
def test_wrong_typed_rows_are_skipped_with_a_notice_each(tmp_path):
    path = database_with_bad_rows(tmp_path / "koma.db", SCHEMA_VERSION)
    store = Store(path, player="local")
    assert store.load_game("8") is None and store.load_game("15") is None and store.load_game("goat") is None
    assert store.load_game("ura-3x3") == SavedGame("WBW/BWB/WBW", ["A"], "p", 1, 2.5, 0)
    assert list(store.games_in_progress()) == ["ura-3x3"]
    assert store.stats("8") == Stats() and store.stats("15").solved == 2
    assert [r.player for r in store.leaderboard("2025-01-31", "8")] == ["user:c"]
    notices = store.drain_notices()
    assert len(notices) == 6 and all("\n" not in n and "koma doctor" in n for n in notices)
    for value in BAD_VALUES:
        assert sum(value in n for n in notices) == 1, (value, notices)
    assert store.load_game("8") is None and store.leaderboard("2025-01-31", "8")  # read again: each is told once
    assert store.drain_notices() == []
    store.save_game("8", SavedGame("1 2 3/4 5 6/7 _ 8", ["L"], "p", 1, 3.0))  # a new save replaces the bad row
    assert store.load_game("8").seconds == 3.0
    assert store.record_win("8", 20, 20, 9.0).solved == 1  # counted afresh over the unreadable stats
    assert {r.player for r in store.leaderboard("2025-01-31", "8")} == {"user:c"}


def test_version_2_rows_that_break_the_strict_schema_are_set_aside(tmp_path):
    path = database_with_bad_rows(tmp_path / "koma.db", 2)
    store = Store(path, player="local")
    notices = store.drain_notices()
    assert len(notices) == 1 and "6 damaged rows" in notices[0] and "rejected_rows" in notices[0], notices
    assert list(store.games_in_progress()) == ["ura-3x3"] and store.stats("15").solved == 2
    assert not store.drain_notices()  # nothing damaged is left to read
    rejected = store.backend.query("SELECT source, data FROM rejected_rows")
    assert sorted(source for source, _ in rejected) == ["games", "games", "games", "results", "results", "stats"]
    assert any(json.loads(data)["seconds"] == "abc" for _, data in rejected)  # kept as it was, for inspection
    report = inspect(path)
    assert (report["state"], report["version"], report["bad_rows"]) == ("ok", SCHEMA_VERSION, [])
    assert len(report["rejected_rows"]) == 6


@pytest.mark.parametrize("table, column, value", [
    ("games", "seconds", "abc"), ("games", "position", "x"), ("games", "hints", "many"), ("games", "moves", "not json"),
    ("games", "position", -1), ("stats", "best_seconds", "x"), ("results", "optimal", "x"), ("results", "seconds", "slow"),
])
def test_strict_tables_refuse_wrong_values_when_written(tmp_path, table, column, value):
    store = Store(tmp_path / "koma.db", player="local")
    store.save_game("8", SavedGame("1 2 3/4 5 6/7 _ 8", ["L"], "p", 1, 3.0))
    store.record_win("8", 20, 20, 9.0)
    store.record_daily("2025-01-31", "8", 20, 20, 9.0)
    store.close()
    db = sqlite3.connect(tmp_path / "koma.db")
    with pytest.raises(sqlite3.IntegrityError):
        db.execute(f"UPDATE {table} SET {column} = ?", (value,))
    assert db.execute(f"SELECT count(*) FROM {table}").fetchone() == (1,)


def test_inspect_lists_bad_rows_and_a_newer_schema_without_touching_the_file(tmp_path):
    path = database_with_bad_rows(tmp_path / "koma.db", 2)
    before = path.read_bytes()
    report = inspect(path)
    assert (report["state"], report["version"], report["problem"]) == ("ok", 2, None)
    assert len(report["bad_rows"]) == 6
    for value in BAD_VALUES:
        assert sum(value in row for row in report["bad_rows"]) == 1, (value, report["bad_rows"])
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    newer = inspect(path)
    assert newer["state"] == "newer" and "newer Koma" in newer["problem"]
    assert path.read_bytes()[100:] == before[100:]  # only the header's version number changed, by this test
    assert inspect(tmp_path / "missing.db") == {"path": str(tmp_path / "missing.db"), "state": "missing", "version": None,
                                                "problem": None, "bad_rows": [], "rejected_rows": []}


def notifications(app) -> list[str]:
    return [n.message for n in app._notifications]


def card(app, puzzle: str) -> str:
    return str(app.screen.query_one(f"#card-{puzzle} .about").render())


async def test_bad_rows_stop_neither_the_home_screen_nor_the_play_screen(tmp_path):
    path = database_with_bad_rows(tmp_path / "koma.db", SCHEMA_VERSION)
    app = make_app(tmp_path, store=Store(path, player="local"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), what="the home screen")
        # the storage service reads each card's record off the UI thread, and its notices reach the player
        await wait_for(pilot, lambda: any("seconds is 'abc'" in n for n in notifications(app)), what="the notice")
        await wait_for(pilot, lambda: "not played yet" in card(app, "8"), what="the 8-puzzle's record")
        await wait_for(pilot, lambda: "solved 2" in card(app, "15"), what="the 15-puzzle's record")
        await pilot.press("1")
        await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen), what="the 8-puzzle")
        screen = app.screen
        await wait_for(pilot, lambda: not screen.held_game.awaiting_saved_game, what="the saved game's read")
        assert screen.position == 0 and "Welcome back" not in screen.message  # the damaged save was skipped: a new board
        move = screen.puzzle.moves(screen.state)[0]
        assert screen.play(move)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), what="the home screen again")
        await wait_for(pilot, lambda: "in progress: 1 move" in card(app, "8"), what="the game in progress")
        await settled(pilot)
        for value in BAD_VALUES[:3]:  # read again and again (cards, the play screen): each row is told once
            assert sum(value in n for n in notifications(app)) == 1, (value, notifications(app))
    again = Store(path, player="local")
    assert again.load_game("8").moves == [move] and not again.drain_notices()


CHECKOUT = Path(__file__).resolve().parents[2]


def koma_doctor(data_dir: Path) -> tuple[int, dict]:
    """``koma doctor --json`` of this checkout (the console script imports whichever checkout it was installed
    from: the first on PYTHONPATH wins)."""
    koma = Path(sys.executable).with_name("koma")
    path = os.pathsep.join(p for p in (str(CHECKOUT), os.environ.get("PYTHONPATH", "")) if p)
    done = subprocess.run([str(koma), "doctor", "--json"], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "KOMA_DATA_DIR": str(data_dir), "PYTHONPATH": path})
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)


def test_koma_doctor_lists_bad_rows_set_aside_rows_and_a_newer_schema(tmp_path):
    path = database_with_bad_rows(tmp_path / "koma.db", 2)
    code, report = koma_doctor(tmp_path)  # before Koma upgrades it: the rows as they are
    rows = [p["problem"] for p in report["problems"] if "wrong-typed value" in p["problem"]]
    assert code == 1 and len(rows) == 6 and all(sum(value in row for row in rows) == 1 for value in BAD_VALUES), rows
    Store(path).close()  # Koma starts: the upgrade sets them aside
    code, report = koma_doctor(tmp_path)
    aside = [p["problem"] for p in report["problems"] if "set aside in rejected_rows" in p["problem"]]
    assert code == 1 and len(aside) == 6 and report["game"]["database"]["state"] == "ok"
    assert any('"seconds":"abc"' in row for row in aside), aside
    db = sqlite3.connect(path)
    db.execute("DELETE FROM rejected_rows")
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    before = path.read_bytes()
    code, report = koma_doctor(tmp_path)
    [newer] = [p for p in report["problems"] if "koma.db" in p["problem"]]
    assert code == 1 and "newer Koma" in newer["problem"] and "run the newer Koma" in newer["fix"]
    assert path.read_bytes() == before and not list(tmp_path.glob("koma.db.corrupt-*"))


def test_koma_doctor_on_a_healthy_database_names_no_game_problem(tmp_path):
    store = Store(tmp_path / "koma.db")
    store.save_game("8", SavedGame("1 2 3/4 5 6/7 _ 8", ["L"], "p", 1, 3.0))
    store.close()
    code, report = koma_doctor(tmp_path)
    assert report["game"]["database"]["state"] == "ok" and report["game"]["database"]["version"] == SCHEMA_VERSION
    assert not [p for p in report["problems"] if "koma.db" in p["problem"] or "keymap" in p["problem"]]
    assert code == (1 if any(p["severity"] == "error" for p in report["problems"]) else 0)  # whatever the solver's own checks found


def test_a_memory_store_writes_no_file(tmp_path, monkeypatch):
    """Store(":memory:") keeps a session's games in memory and creates nothing, not even a file named ':memory:'."""
    monkeypatch.chdir(tmp_path)
    store = Store(":memory:")
    store.save_game("8", SavedGame("1 2 3/4 5 6/7 _ 8", ["L"], "p", 1, 3.0))
    assert store.memory_only and store.load_game("8").moves == ["L"] and store.drain_notices() == []
    store.close()
    assert list(tmp_path.iterdir()) == []
