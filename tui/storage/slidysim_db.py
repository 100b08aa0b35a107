"""Reading a Slidysim database file (its SQLite ``solves``, ``single_solves`` and ``move_times`` tables), read-only.

Slidysim keeps each attempt in ``solves`` (its kind ``solve_type``: Standard, BLD, 2-N relay …; ``controls``;
``scrambler``; ``timestamp`` in ms; the range ``single_start_id``..``single_end_id`` of its singles), each single in
``single_solves`` (``width``, ``height``, ``time`` in ms, ``moves`` and ``tps`` times 1000, ``scramble``,
``solution``, ``completed``, the range ``move_times_start_id``..``move_times_end_id``) and every tile's time in
``move_times``, as slidysimSessionTracker reads them.  The rows become :class:`SlidysimSingle`; turning them into
Koma's solves (and checking them) is :func:`tui.game.speed_interop.from_slidysim`'s.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from solver.errors import KomaError, one_line
from tui.game.speed_interop import SlidysimSingle

SQLITE_MAGIC = b"SQLite format 3\x00"
SINGLES = (
    "SELECT s.id, s.width, s.height, s.time, s.moves, s.tps, s.scramble, s.solution, s.completed, "
    "s.move_times_start_id, s.move_times_end_id, p.solve_type, p.controls, p.timestamp, p.scrambler "
    "FROM single_solves s JOIN solves p ON s.id BETWEEN p.single_start_id AND p.single_end_id ORDER BY s.id")
MOVE_TIMES = "SELECT time FROM move_times WHERE id BETWEEN ? AND ? ORDER BY id"
NEEDED_TABLES = ("solves", "single_solves", "move_times")


def is_sqlite_file(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def read_slidysim(path: Path) -> list[SlidysimSingle]:
    """Every single of the Slidysim database at ``path``, oldest first; KomaError (one line) for a file that is
    not one."""
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except (sqlite3.Error, ValueError) as problem:
        raise KomaError(f"{path.name} cannot be opened as a database: {one_line(str(problem))}") from None
    try:
        tables = {str(row[0]) for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        missing = [name for name in NEEDED_TABLES if name not in tables]
        if missing:
            raise KomaError(f"{path.name} is not a Slidysim database (it has no {', '.join(missing)} table)")
        singles = []
        for row in db.execute(SINGLES).fetchall():
            (ident, width, height, time, moves, tps, scramble, solution, completed, first, last, solve_type, controls,
             timestamp, scrambler) = row
            times: tuple[int, ...] = ()
            if first is not None and last is not None:
                times = tuple(int(t) for (t,) in db.execute(MOVE_TIMES, (first, last)))
            singles.append(SlidysimSingle(
                int(ident), int(width), int(height), int(time or 0), int(moves or 0), int(tps or 0), str(scramble or ""),
                str(solution or ""), bool(completed), times, str(solve_type or ""), str(controls or ""),
                None if timestamp is None else float(timestamp), str(scrambler or "")))
        return singles
    except sqlite3.Error as problem:
        raise KomaError(f"{path.name} cannot be read as a Slidysim database: {one_line(str(problem))}") from None
    except (TypeError, ValueError) as problem:
        raise KomaError(f"{path.name} has a Slidysim row Koma cannot read: {one_line(str(problem))}") from None
    finally:
        db.close()
