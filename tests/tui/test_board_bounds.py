"""Daily boards read only their top and the player's own row (issue 54), on both backends (a SQLite file and a real
PostgreSQL database), with 100,000 results on a board: the top, the player's rank and the total are right, and each
read goes by an index (the query plan says so), never through every row.  ``python tests/tui/test_board_bounds.py``
times the Daily screen's reads on both backends."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tui.game.speed import SpeedResult
from tui.game.speed_notation import solve_record
from tui.storage import store as store_module
from tui.storage.store_choice import is_postgres, open_store

DAY, PUZZLE, EVENT = "2025-01-31", "8", "daily/2025-01-31"
ROWS = 100_000
SOLVE = SpeedResult(3, 3, (0, 2, 3, 1, 5, 6, 4, 7, 8), tuple("UULL"), (0, 200, 350, 500), event=EVENT)


def numbers(url: str, start: int, stop: int) -> str:
    """A FROM clause giving ``k`` = start .. stop - 1 on the backend of ``url``."""
    if is_postgres(url):
        return f"generate_series({start}, {stop - 1}) AS n(k)"
    return f"(WITH RECURSIVE n(k) AS (SELECT {start} UNION ALL SELECT k + 1 FROM n WHERE k < {stop - 1}) SELECT k FROM n)"


def filled(url: str, rows: int = ROWS, other_days: int = 0):
    """A store with ``rows`` results on the day's board of the 8-puzzle (every tenth without a known optimum) and
    ``rows`` first solves on its speed board, as the fixture data a big day leaves; and as many on each of
    ``other_days`` earlier days."""
    store = open_store(url, "user:me", "me")
    assert not store.memory_only
    deadline = getattr(store.backend, "statement_seconds", None)
    if deadline is not None:  # filling 100,000 rows on a busy box may outlast a game's deadline for one statement
        store.backend.statement_seconds = 120.0
    record = solve_record(SOLVE)
    query = (lambda sql, args: store.backend.query(sql.replace("%", "%%"), args)) if is_postgres(url) else store.backend.query
    for back in range(other_days + 1):
        day = f"2025-01-{31 - back:02d}"
        for start in range(0, rows, 20_000):  # statements of a few seconds at most (each has a deadline)
            part = numbers(url, start, min(rows, start + 20_000))
            query(
                "INSERT INTO results (day, puzzle, player, moves, optimal, seconds, hints, finished) "
                f"SELECT ?, ?, 'user:p' || CAST(k AS TEXT), 20 + (k * 7919) % 1000, CASE WHEN k % 10 = 0 THEN NULL ELSE 20 "
                f"END, 1.0 + (k * 31) % 500, 0, 0.0 FROM {part}", (day, PUZZLE))
            query(
                "INSERT INTO speed_solves (player, op, size, event, run, leg, scramble, moves, times, time_ms, dnf, "
                "finished) SELECT 'user:p' || CAST(k AS TEXT), ? || CAST(k AS TEXT), '3x3', ?, '', 0, ?, ?, "
                "'0,1,2,' || CAST(3 + (k * 7919) % 60000 AS TEXT), 3 + (k * 7919) % 60000, "
                f"CASE WHEN k % 50 = 0 THEN 1 ELSE 0 END, 1.0 FROM {part}",
                (f"op{day}-", f"daily/{day}", record.scramble, record.moves))
        store.backend.query("INSERT INTO speed_firsts (event, size, player, solve, dnf, time_ms, finished) "
                            "SELECT event, size, player, id, dnf, time_ms, finished FROM speed_solves WHERE event = ?",
                            (f"daily/{day}",))
    if is_postgres(url):
        store.backend.query("ANALYZE", ())
    if deadline is not None:
        store.backend.statement_seconds = deadline  # the reads under test keep the game's deadline
    return store


def others(rows: int) -> list[tuple]:
    """The rank keys of the fixture's results (as :func:`filled` makes them)."""
    return [((20 + (k * 7919) % 1000) - 20 if k % 10 else 10**9, 20 + (k * 7919) % 1000, 1.0 + (k * 31) % 500,
             f"user:p{k}") for k in range(rows)]


def expected_rank(rows: int, moves: int, optimal: int, seconds: float) -> int:
    mine = (moves - optimal, moves, seconds, "user:me")
    return 1 + sum(other < mine for other in others(rows))


def test_a_daily_board_reads_its_top_and_the_players_row(database):
    store = filled(database)
    store.record_daily(DAY, PUZZLE, 900, 20, 30.0)
    board = store.daily_board(DAY, PUZZLE, top=5)
    assert board.total == ROWS + 1 and board.mine is not None and board.mine.moves == 900
    assert board.my_rank == expected_rank(ROWS, 900, 20, 30.0) == store.rank(DAY, PUZZLE)
    assert [(r.moves - r.optimal, r.moves, r.seconds, r.player) for r in board.top] == sorted(others(ROWS))[:5]
    assert store.daily_result(DAY, PUZZLE) == board.mine


def test_a_daily_speed_board_reads_its_top_and_the_players_first_solve(database):
    store = filled(database)
    later = SpeedResult(3, 3, SOLVE.scramble, SOLVE.moves, (0, 1, 2, 4), event=EVENT)
    earlier = SpeedResult(3, 3, SOLVE.scramble, SOLVE.moves, (0, 100, 200, 30_000), event=EVENT)
    store.record_speed_solve("mine-2", solve_record(later), 20.0)
    store.record_speed_solve("mine-1", solve_record(earlier), 10.0)  # the outbox brings the first solve late
    store.record_speed_solve("mine-1", solve_record(earlier), 10.0)  # and again: recorded once
    standing = store.speed_standing(EVENT, "3x3", top=3)
    assert standing.mine is not None and standing.mine.result.time_ms == 30_000  # the first solve counts, not the best
    times = [3 + (k * 7919) % 60000 for k in range(ROWS) if k % 50]
    assert standing.my_rank == 1 + sum(t < 30_000 for t in times)
    assert [e.result.time_ms for e in standing.top] == sorted(times)[:3]


def plan(store, sql: str, args: tuple) -> str:
    explain = "EXPLAIN " if store.backend.notifies else "EXPLAIN QUERY PLAN "  # PostgreSQL's, SQLite's
    rows = store.backend.query(explain + sql, args)
    return " | ".join(str(row[-1]) for row in rows)


def test_the_board_reads_go_by_index(database):
    store = filled(database, 20_000, other_days=4)  # a board among others: a scan of every row is no good
    me = ("user:me",)
    reads = {
        "top": (store_module.SELECT_RESULTS, (DAY, PUZZLE, 100), "results_by_rank"),
        "rank": (store_module.COUNT_AHEAD, (5, 25, 3.0, *me, DAY, PUZZLE), "Index"),  # the day's rows, counted
        "speed top": (store_module.SELECT_EVENT_SOLVES, (EVENT, "3x3", 100), "speed_firsts_by_time"),
        "speed rank": (store_module.COUNT_FIRSTS_AHEAD, (EVENT, "3x3", 0, 500, *me), "speed_firsts"),
    }
    for what, (sql, args, index) in reads.items():
        shown = plan(store, sql, args)
        assert index in shown.replace("INDEX", "Index"), (what, shown)
        assert "Seq Scan on results" not in shown and "Seq Scan on speed_firsts" not in shown, (what, shown)
        assert "SCAN results" not in shown and "SCAN speed_firsts" not in shown, (what, shown)
    top = plan(store, store_module.SELECT_RESULTS, (DAY, PUZZLE, 100))
    assert "TEMP B-TREE" not in top.split("USING INDEX results_by_rank")[0], top  # no sort of every row first


def time_the_daily_screen(url: str, rows: int = ROWS, tries: int = 5) -> tuple[float, float]:
    """The Daily screen's reads (the board's top, the player's rank, the speed board) with ``rows`` on each board:
    the best and the median of ``tries`` in seconds."""
    store = filled(url, rows)
    store.record_daily(DAY, PUZZLE, 900, 20, 30.0)
    store.record_speed_solve("mine", solve_record(SOLVE), 10.0)
    seconds = []
    for _ in range(tries):
        began = time.perf_counter()
        store.daily_board(DAY, PUZZLE)
        store.speed_standing(EVENT, "3x3", 3)
        seconds.append(time.perf_counter() - began)
    return min(seconds), sorted(seconds)[len(seconds) // 2]


if __name__ == "__main__":
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from postgres_server import start_postgres

    with tempfile.TemporaryDirectory() as folder:
        best, median = time_the_daily_screen(f"sqlite:///{folder}/koma.db")
        print(f"SQLite, {ROWS} rows a board: best {best * 1000:.1f} ms, median {median * 1000:.1f} ms")
    server, why_not = start_postgres()
    if server is None:
        sys.exit(f"no PostgreSQL: {why_not}")
    try:
        best, median = time_the_daily_screen(server.new_database())
        print(f"PostgreSQL, {ROWS} rows a board: best {best * 1000:.1f} ms, median {median * 1000:.1f} ms")
    finally:
        server.stop()
