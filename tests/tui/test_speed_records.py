"""Lasting speed records on both backends (SQLite and a real PostgreSQL): kept as solves are stored, surviving any
number of later solves, with moves and TPS beside the times and a dated history; imports (a Slidysim database, text)
kept in one transaction, each solve once; the command line's import, export and records."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from itertools import pairwise

import pytest

from tui.game.averages import average_of
from tui.game.speed import SpeedResult
from tui.game.speed_notation import format_scramble, format_solution, solve_record
from tui.game.speed_records import Entry, bests
from tui.storage.store_choice import open_store

SCRAMBLE = (0, 2, 3, 1, 5, 6, 4, 7, 8)  # U2L2 solves it


def solve(time_ms: int, *, dnf: bool = False, control: str = "keyboard") -> SpeedResult:
    times = (0, time_ms // 3, 2 * time_ms // 3, time_ms)
    return SpeedResult(3, 3, SCRAMBLE, tuple("UULL"), times, dnf=dnf, control=control)


def records_of(store, size="3x3", event="single"):
    return {record.statistic: record for s, e, record in store.speed_records(size, event)}


def test_an_old_personal_best_outlives_2000_later_solves(database):
    store = open_store(database, "user:ann")
    store.record_speed_solve("pb", solve_record(solve(900)), 1000.0)
    for k in range(2000):
        store.record_speed_solve(f"later-{k}", solve_record(solve(2000 + k % 97)), 1001.0 + k)
    assert len(store.speed_solves("3x3")) == 1000  # a read brings back the last 1,000: the PB is not among them
    records = records_of(open_store(database, "user:ann"))
    assert records["single"].time_ms == 900 and records["single"].achieved == 1000.0
    assert records["single"].moves == 4 and records["single"].tps == pytest.approx(4 * 1000 / 900)
    later = [2000 + k % 97 for k in range(2000)]
    best_ao100 = min(average_of(later[i:i + 100]) for i in range(len(later) - 99))
    best_ao100 = min(best_ao100, average_of([900, *later[:99]]))
    assert records["ao100"].time_ms == pytest.approx(best_ao100)
    history = open_store(database, "user:ann").speed_record_history("3x3")
    singles = [record for record in history if record.statistic == "single"]
    assert [r.time_ms for r in singles] == [900]  # no later solve beat it
    assert {"mo3", "ao5", "ao12", "ao25", "ao50", "ao100"} <= {record.statistic for record in history}


def test_records_follow_the_rules_and_a_dnf_is_never_one(database):
    store = open_store(database, "user:ann")
    times = [5000, 4000, 3000, None, 6000]  # None: a DNF
    for k, t in enumerate(times):
        result = solve(4500, dnf=True) if t is None else solve(t)
        store.record_speed_solve(f"op-{k}", solve_record(result), 100.0 + k)
    records = records_of(store)
    assert records["single"].time_ms == 3000
    assert records["mo3"].time_ms == pytest.approx(4000)  # 5000, 4000, 3000: later windows hold the DNF
    assert records["ao5"].time_ms == pytest.approx((4000 + 5000 + 6000) / 3)  # the DNF is the worst, dropped
    expected, _ = bests([Entry(float("inf") if t is None else float(t), 4, None if t is None else 4000 / t, 100.0 + k)
                         for k, t in enumerate(times)])
    assert {name: r.time_ms for name, r in records.items()} == {name: r.time_ms for name, r in expected.items()}
    history = store.speed_record_history("3x3")
    assert [(r.statistic, r.time_ms) for r in history if r.statistic == "single"] == [("single", 5000), ("single", 4000),
                                                                                      ("single", 3000)]
    assert all(a.achieved <= b.achieved for a, b in pairwise(history))


def test_an_import_is_kept_whole_once_and_records_are_worked_out_again(database):
    from tui.game.speed_interop import read_solves
    from tui.storage.speed_transfer import store_import

    store = open_store(database, "user:ann")
    store.record_speed_solve("now", solve_record(solve(5000)), 2_000_000_000.0)
    old = [SpeedResult(3, 3, SCRAMBLE, tuple("UULL"), (0, 100, 200, t), control="mouse", source="csv", finished=1e9 + k)
           for k, t in enumerate((1500, 1200, 1800))]
    from tui.game.speed_interop import export_csv
    text = export_csv(old)
    report = store_import(store, read_solves(text))
    assert report.added == 3 and report.refused == []
    assert store_import(store, read_solves(text)).added == 0  # imported again: nothing twice
    solves = store.speed_solves("3x3")
    assert [r.time_ms for r in solves] == [1500, 1200, 1800, 5000]  # by date: the imported ones are older
    assert [r.source for r in solves] == ["csv", "csv", "csv", ""] and solves[0].control == "mouse"
    records = records_of(store)
    assert records["single"].time_ms == 1200 and records["single"].achieved == 1e9 + 1
    assert records["mo3"].time_ms == pytest.approx(1500)


# --- a Slidysim database -----------------------------------------------------------------------------------

def slidysim_database(path, singles):
    """A file with Slidysim's solve tables, as slidysimSessionTracker reads them (the columns it names)."""
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE solves (id INTEGER PRIMARY KEY, single_start_id INTEGER, single_end_id INTEGER, width INTEGER,
            height INTEGER, memo_time INTEGER, time INTEGER, moves INTEGER, tps INTEGER, solve_type TEXT,
            display_type TEXT, controls TEXT, scrambler TEXT, marathon_length INTEGER, success INTEGER,
            completed INTEGER, timestamp INTEGER);
        CREATE TABLE single_solves (id INTEGER PRIMARY KEY, width INTEGER, height INTEGER, time INTEGER, moves INTEGER,
            tps INTEGER, scramble TEXT, solution TEXT, completed INTEGER, move_times_start_id INTEGER,
            move_times_end_id INTEGER);
        CREATE TABLE move_times (id INTEGER PRIMARY KEY, time INTEGER);
    """)
    next_time = 1
    for k, (result, solve_type, controls, stated_time) in enumerate(singles, 1):
        times = list(result.times_ms)
        first = next_time
        db.executemany("INSERT INTO move_times (id, time) VALUES (?, ?)", [(first + i, t) for i, t in enumerate(times)])
        next_time += len(times)
        tps = round(result.stm * 1e6 / result.time_ms) if result.time_ms else 0
        from solver.sliding.model import SlidingPuzzle
        db.execute("INSERT INTO single_solves VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (
            k, result.width, result.height, stated_time, result.stm * 1000, tps,
            format_scramble(SlidingPuzzle(result.width, result.height), result.scramble), format_solution(result.moves),
            int(not result.dnf), first, next_time - 1))
        db.execute("INSERT INTO solves (id, single_start_id, single_end_id, width, height, time, moves, tps, solve_type, "
                   "display_type, controls, scrambler, completed, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (k, k, k, result.width, result.height, stated_time, result.stm * 1000, tps, solve_type, "Standard",
                    controls, "Random permutation", int(not result.dnf), 1_600_000_000_000 + k * 60_000))
    db.commit()
    db.close()


def koma(*words, env, stdin=None):
    return subprocess.run([sys.executable, "-m", "tui.main", *words], capture_output=True, text=True, env=env,
                          input=stdin, timeout=120)


@pytest.fixture
def player_env(tmp_path, monkeypatch):
    import os

    env = dict(os.environ, KOMA_DATA_DIR=str(tmp_path / "data"), KOMA_PLAYER="user:ann")
    env.pop("KOMA_DATABASE_URL", None)
    return env


def test_a_slidysim_database_imports_its_standard_solves_and_refuses_a_bad_one(tmp_path, player_env):
    good, slow = solve(1234), solve(2500)
    dnf = SpeedResult(3, 3, SCRAMBLE, ("U",), (0,), dnf=True)
    relay = solve(3000)
    path = tmp_path / "slidysim.db"
    slidysim_database(path, [(good, "Standard", "Keyboard", 1234), (slow, "Standard", "Mouse", 2500),
                             (dnf, "Standard", "Mouse", 800), (relay, "2-N relay", "Mouse", 3000),
                             (solve(4000), "Standard", "Keyboard", 9999)])  # its time is not its last move's
    done = koma("speed", "import", str(path), env=player_env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:3] == ["3x3 1.234 (4 moves, 3.241 TPS)", "3x3 2.500 (4 moves, 1.600 TPS)",
                                            "3x3 DNF (1 moves, - TPS)"]
    assert "kept 3 solves" in done.stdout
    problems = done.stderr.strip().splitlines()
    assert problems == ["koma: Slidysim solve 5: the time 9.999 is not the last move's (4.000)",
                        "koma: skipped 1 solves of kinds Koma does not import yet (2-N relay: 1)"]
    exported = koma("speed", "export", "--format", "json", env=player_env)
    rows = json.loads(exported.stdout)
    assert [(r["time"], r["control"], r["source"], r["result"]) for r in rows] == [
        ("1.234", "keyboard", "slidysim-db", "solved"), ("2.500", "mouse", "slidysim-db", "solved"),
        ("0.000", "mouse", "slidysim-db", "DNF")]
    assert rows[0]["date"].startswith("2020-09-13T12:27:40")  # Slidysim's timestamp (ms) 1600000060000
    again = koma("speed", "import", str(path), "--json", env=player_env)
    assert json.loads(again.stdout)["added"] == 0
    records = json.loads(koma("speed", "records", "--json", env=player_env).stdout)["records"]
    assert {(r["statistic"], r["time"]) for r in records} == {("single", "1.234")}


@pytest.mark.parametrize("content, problem", [
    (b"", "nothing to import"),
    (b"\x00\x01\x02 binary", "neither text nor a Slidysim database"),
    (b"[1, 2", "the JSON is not valid"),
    (b"scramble: 0 2 3/1 5 6/4 7 8\nsolution: U2L\nmovetimes: 0,1,2\n", "does not solve"),
])
def test_a_bad_file_is_one_line_and_exit_status_2(tmp_path, player_env, content, problem):
    path = tmp_path / "solves.txt"
    path.write_bytes(content)
    done = koma("speed", "import", str(path), env=player_env)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and problem in done.stderr and "Traceback" not in done.stderr


def test_a_sqlite_file_that_is_not_slidysim_s_is_refused(tmp_path, player_env):
    path = tmp_path / "other.db"
    sqlite3.connect(path).executescript("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
    done = koma("speed", "import", str(path), env=player_env)
    assert done.returncode == 2 and "not a Slidysim database (it has no solves, single_solves, move_times table)" in done.stderr


def test_export_as_links_and_import_from_standard_input(player_env):
    text = "scramble: 0 2 3/1 5 6/4 7 8\nsolution: U2L2\nmovetimes: 0,100,200,400\ncontrol: touch\n"
    assert koma("speed", "import", "-", env=player_env, stdin=text).returncode == 0
    links = koma("speed", "export", "--format", "link", env=player_env).stdout.split()
    assert len(links) == 1 and links[0].startswith("https://slidysim.github.io/replay?r=")
    csv_text = koma("speed", "export", env=player_env).stdout
    assert csv_text.splitlines()[0].startswith("date,size,event") and ",touch,slidy," in csv_text
    bad = koma("speed", "export", "--event", "nonsense", env=player_env)
    assert bad.returncode == 2 and "no speed event is called" in bad.stderr
