"""A speed solve in the community's notation (benwh1/slidy, Slidysim), to export and import.

- The **scramble** is slidy's inline form: rows of tile numbers separated by spaces, rows by ``/``, ``0`` for the
  blank (``1 2 3/4 5 6/7 8 0`` is the 3x3 goal).  The size is the rows' shape.
- The **solution** is slidy's short form: the direction each *tile* moves, ``U D L R`` (Koma's convention too),
  a run of moves in one direction written once with its count: ``U2RDL3`` (``U U R D L L L``).  Reading, spaces
  are allowed and ``UU`` is ``U2``.
- The **move times** are Slidysim's: one per tile moved, whole milliseconds from the first move (so the first is
  ``0`` and the tiles of one line move share its time), separated by commas.

An export is one ``key: value`` line each::

    size: 3x3
    scramble: 8 6 7/2 5 4/3 0 1
    solution: U2RDL3...
    movetimes: 0,120,120,...
    time: 5.123
    result: DNF          (only for a solve given up)

``time`` is the last move's time and is checked on import.  A solve without ``movetimes`` (slidy's own notation has
none) needs its ``time``: its moves are then spread evenly over it (the time, moves and TPS stay exact; a replay
plays it at an even pace).  ``control: keyboard|mouse|touch`` is written when known and read back; lines with other
keys (the figures ``stm``, ``mtm``, ``tps`` Koma writes for people) are read past.  Bad input raises KomaError with a
one-line message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from solver.errors import BoardError, KomaError, shown
from solver.sliding.model import SlidingPuzzle
from tui.game.averages import seconds_text
from tui.game.speed import SINGLE, SpeedResult, line_moves, speed_puzzle
from tui.game.writes import RecordSpeedSolve

MAX_SOLUTION_TILES = 1_000_000  # a count beyond it is a typo, never a solve
_MOVE = re.compile(r"([UDLR])(\d*)")
_TIME = re.compile(r"(?:(\d+):)?(\d+)(?:\.(\d{1,3}))?")


def format_scramble(puzzle: SlidingPuzzle, state: Sequence[int]) -> str:
    """``1 2 3/4 5 6/7 8 0``: slidy's inline form."""
    w = puzzle.width
    return "/".join(" ".join(str(t) for t in state[r * w:(r + 1) * w]) for r in range(puzzle.height))


def parse_scramble(text: str) -> tuple[SlidingPuzzle, tuple[int, ...]]:
    """The puzzle (its size from the rows) and the board of a scramble in the inline form."""
    rows = [row.split() for row in (text or "").strip().split("/")]
    if not rows or not rows[0]:
        raise BoardError("the scramble is empty")
    if len(rows) < 2:
        raise BoardError("a scramble is rows of tiles separated by '/', e.g. 1 2 3/4 5 6/7 8 0")
    puzzle = speed_puzzle(len(rows[0]), len(rows))
    return puzzle, puzzle.parse(text)


def format_solution(moves: Sequence[str]) -> str:
    """Single-tile moves in the short form: ``U U R D L L L`` -> ``U2RDL3``."""
    return "".join(str(move) for move in line_moves(moves))


def parse_solution(text: str) -> tuple[str, ...]:
    """The single-tile moves of a solution in the short form (spaces allowed; ``U2`` = ``UU``)."""
    compact = re.sub(r"\s+", "", text or "")
    moves: list[str] = []
    position = 0
    while position < len(compact):
        match = _MOVE.match(compact, position)
        if match is None:
            raise KomaError(f"{shown(compact[position:position + 8])} is not a move; moves are U, D, L, R (the way "
                            "the tile goes), with a count such as U3")
        direction, count_text = match.groups()
        count = 1 if not count_text else int(count_text) if len(count_text) <= 7 else 0
        if count < 1 or len(moves) + count > MAX_SOLUTION_TILES:
            raise KomaError(f"move {shown(match.group(0))} has a count out of range (1 to {MAX_SOLUTION_TILES:,})")
        moves.extend(direction * count)
        position = match.end()
    return tuple(moves)


def format_times(times_ms: Sequence[int]) -> str:
    return ",".join(str(t) for t in times_ms)


def parse_times(text: str) -> tuple[int, ...]:
    """Move times: whole milliseconds separated by commas (or spaces)."""
    times = []
    for token in re.split(r"[\s,]+", (text or "").strip()):
        if not token:
            continue
        if not token.isascii() or not token.isdigit() or len(token) > 10:
            raise KomaError(f"move time {shown(token)} is not a whole number of milliseconds")
        times.append(int(token))
    return tuple(times)


def parse_time(text: str) -> int:
    """``12.345`` or ``1:02.345`` (seconds) as milliseconds."""
    match = _TIME.fullmatch((text or "").strip())
    if match is None:
        raise KomaError(f"time {shown(text)} is not seconds such as 12.345 or 1:02.345")
    minutes, seconds, fraction = match.groups()
    return (int(minutes or 0) * 60 + int(seconds)) * 1000 + int((fraction or "0").ljust(3, "0"))


def export_solve(result: SpeedResult) -> str:
    """The solve as text (see the module's docstring)."""
    puzzle = SlidingPuzzle(result.width, result.height)
    lines = [f"size: {result.size_label}", f"scramble: {format_scramble(puzzle, result.scramble)}",
             f"solution: {format_solution(result.moves)}", f"movetimes: {format_times(result.times_ms)}",
             f"time: {seconds_text(result.time_ms)}"]
    if result.event != SINGLE:
        lines.append(f"event: {result.event}")
    if result.run:
        lines += [f"run: {result.run}", f"leg: {result.leg}"]
    if result.dnf:
        lines.append("result: DNF")
    if result.control:
        lines.append(f"control: {result.control}")
    tps = f"{result.tps:.3f}" if result.tps is not None else "-"
    lines.append(f"stm: {result.stm}  mtm: {result.mtm}  tps: {tps}")
    return "\n".join(lines) + "\n"


def spread_times(tiles: int, time_ms: int) -> tuple[int, ...]:
    """``tiles`` move times spread evenly from 0 to ``time_ms`` (for a solve known by its time alone)."""
    if tiles <= 1:
        return (0,) * tiles
    return tuple(round(k * time_ms / (tiles - 1)) for k in range(tiles))


def import_solve(text: str, *, source: str = "") -> SpeedResult:
    """A solve from its export (or slidy's notation with a ``time:`` instead of move times): the moves must be legal
    from the scramble and (unless a DNF) reach the goal, with one time per tile moved; ``source`` marks it imported."""
    fields: dict[str, str] = {}
    for number, line in enumerate((text or "").splitlines(), 1):
        if not line.strip():
            continue
        key, colon, value = line.partition(":")
        if not colon:
            raise KomaError(f"line {number} is not 'key: value': {shown(line)}")
        fields.setdefault(key.strip().lower(), value.strip())
    for needed in ("scramble", "solution"):
        if needed not in fields:
            raise KomaError(f"the solve has no '{needed}:' line")
    if "movetimes" not in fields and "time" not in fields:
        raise KomaError("the solve has no 'movetimes:' line (nor a 'time:' to spread its moves over)")
    puzzle, scramble = parse_scramble(fields["scramble"])
    if "size" in fields and fields["size"].lower() != puzzle.size_label:
        raise KomaError(f"size {shown(fields['size'])} does not match the scramble's {puzzle.size_label}")
    moves = parse_solution(fields["solution"])
    times = (parse_times(fields["movetimes"]) if "movetimes" in fields
             else spread_times(len(moves), parse_time(fields["time"])))
    dnf = fields.get("result", "").upper() == "DNF"
    leg = fields.get("leg", "0")
    if not leg.isascii() or not leg.isdigit() or len(leg) > 3:
        raise KomaError(f"leg {shown(leg)} is not a leg's number (0, 1, 2 …)")
    result = SpeedResult(puzzle.width, puzzle.height, scramble, moves, times, dnf=dnf,
                         event=fields.get("event", SINGLE) or SINGLE, run=fields.get("run", ""), leg=int(leg),
                         control=fields.get("control", "").lower(), source=source)
    if "time" in fields and parse_time(fields["time"]) != result.time_ms:
        raise KomaError(f"time {shown(fields['time'])} is not the last move's time ({seconds_text(result.time_ms)})")
    try:
        final = result.final_state()
    except KomaError as error:
        raise KomaError(f"the solution does not play from the scramble: {error}") from None
    if not dnf and not puzzle.is_goal(final):
        raise KomaError("the solution does not solve the scramble (and the solve is not marked 'result: DNF')")
    return result


def solve_record(result: SpeedResult) -> RecordSpeedSolve:
    """A solve as the store keeps it (the typed write that carries it): the notation's strings."""
    puzzle = SlidingPuzzle(result.width, result.height)
    return RecordSpeedSolve(result.size_label, result.event, format_scramble(puzzle, result.scramble),
                            format_solution(result.moves), format_times(result.times_ms), result.time_ms, result.dnf,
                            result.run, result.leg, result.control, result.source, result.finished, result.memo_ms)


def solve_from_record(record: RecordSpeedSolve) -> SpeedResult:
    """A solve from :func:`solve_record`'s strings (KomaError naming the problem); the moves are not replayed."""
    puzzle, scramble = parse_scramble(record.scramble)
    if record.size != puzzle.size_label:
        raise KomaError(f"size {shown(record.size)} does not match the scramble's {puzzle.size_label}")
    return SpeedResult(puzzle.width, puzzle.height, scramble, parse_solution(record.moves), parse_times(record.times),
                       dnf=record.dnf, event=record.event or SINGLE, run=record.run, leg=record.leg,
                       control=record.control, source=record.source, finished=record.finished,
                       memo_ms=record.memo_ms)
