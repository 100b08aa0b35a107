"""A speed solve by the speedsolvers' rules (Slidysim, benwh1/slidy), without the UI.

- The scramble is a random state: every solvable board of the size equally likely (never the goal itself).
- The board is shown before the clock starts; inspection is free.  The clock starts on the **first move** (that
  move is at 0 ms) and stops on the move that solves the board.  Times are whole milliseconds from the first move,
  one per tile moved, so a solve's time is its last move's time: the sum of the gaps between its moves.
- A move is a **line move**: ``U3`` slides the three tiles below the blank up at once (a click on a tile in the
  blank's row or column).  Moves are named by the direction the *tile* moves, as everywhere in Koma and in slidy.
- **STM** counts every tile moved (``U3`` is 3); **MTM** counts every run of tile moves in one direction as one
  move, as slidy counts ``U2`` (so two presses of ``U`` in a row are one MTM move, as one click on a 2-tile line
  is); **TPS** is STM per second of the solve's time.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from itertools import groupby, pairwise
from typing import Any

from solver.errors import KomaError
from solver.sliding.model import MAX_SIDE, TILE_DELTA, SlidingPuzzle

SPEED_MIN_SIDE, SPEED_MAX_SIDE = 2, MAX_SIDE  # 2x2 to 20x20, 2xN and Nx2 too (Slidysim's sizes)
DIRECTIONS = "UDLR"
SINGLE = "single"  # one solve; the other events (BLD, marathon, relay) are in .speed_events
KEYBOARD, MOUSE, TOUCH, HOVER = "keyboard", "mouse", "touch", "hover"
CONTROLS = (KEYBOARD, MOUSE, TOUCH, HOVER)  # the input that made a solve's moves ("" when not known: an old or imported
# solve); hover: the blank follows the pointer (Slidysim's hover control)


def speed_puzzle(width: int, height: int) -> SlidingPuzzle:
    """The sliding puzzle of a speed size (2x2 to 20x20, rectangles too); KomaError outside."""
    if not (SPEED_MIN_SIDE <= width <= SPEED_MAX_SIDE and SPEED_MIN_SIDE <= height <= SPEED_MAX_SIDE):
        raise KomaError(f"speed boards go from {SPEED_MIN_SIDE}x{SPEED_MIN_SIDE} to {SPEED_MAX_SIDE}x{SPEED_MAX_SIDE}, "
                        f"not {width}x{height}")
    return SlidingPuzzle(width, height)


def random_scramble(puzzle: SlidingPuzzle, rng: random.Random | None = None) -> tuple[int, ...]:
    """A random-state scramble: a uniformly random permutation, made solvable by a parity bijection (so every
    solvable board is equally likely), drawn again in the (at most 1 in 181,440) case it is the goal."""
    rng = rng or random.SystemRandom()
    while True:
        state = puzzle.random_state(rng.randrange(2**63))
        if not puzzle.is_goal(state):
            return state


@dataclass(frozen=True)
class LineMove:
    """``count`` tiles slid at once in ``direction`` (the way the tiles go): ``U3`` in the notation."""

    direction: str
    count: int = 1

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS or self.count < 1:
            raise KomaError(f"a line move is one of U D L R and a count of 1 or more, not {self.direction}{self.count}")

    def __str__(self) -> str:
        return self.direction + (str(self.count) if self.count > 1 else "")

    @property
    def tiles(self) -> tuple[str, ...]:
        """The single-tile moves it is made of."""
        return (self.direction,) * self.count


def room(puzzle: SlidingPuzzle, state: Sequence[int], direction: str) -> int:
    """How many tiles can slide in ``direction`` at once: those on the far side of the blank in its line."""
    row, col = divmod(list(state).index(0), puzzle.width)
    d_row, d_col = TILE_DELTA[direction]
    if d_row:
        return puzzle.height - 1 - row if d_row < 0 else row
    return puzzle.width - 1 - col if d_col < 0 else col


def line_move_to(puzzle: SlidingPuzzle, state: Sequence[int], cell: int) -> LineMove | None:
    """The line move a click on ``cell`` makes: the tiles from ``cell`` to the blank slide toward it (None when
    ``cell`` is the blank or is not in the blank's row or column)."""
    row, col = divmod(list(state).index(0), puzzle.width)
    if not 0 <= cell < puzzle.cells:
        return None
    r, c = divmod(cell, puzzle.width)
    if r == row and c != col:
        return LineMove("R", col - c) if c < col else LineMove("L", c - col)
    if c == col and r != row:
        return LineMove("D", row - r) if r < row else LineMove("U", r - row)
    return None


def hover_move(puzzle: SlidingPuzzle, state: Sequence[int], cell: int | None, *, held: bool = False) -> LineMove | None:
    """Hover control (Slidysim's): the blank follows the pointer.  The pointer over ``cell`` in the blank's row or
    column slides that line, so the blank ends under the pointer; nothing for a pointer off the board (None), on the
    blank, or off the blank's row and column, and nothing while ``held`` (a button or ctrl held: as in Slidysim, the
    player places the pointer without moving tiles)."""
    if held or cell is None:
        return None
    return line_move_to(puzzle, state, cell)


def apply_line(puzzle: SlidingPuzzle, state: tuple[int, ...], move: LineMove) -> tuple[int, ...]:
    """The board after ``move``; KomaError if fewer than ``move.count`` tiles can slide that way."""
    if room(puzzle, state, move.direction) < move.count:
        raise KomaError(f"move {move} is not possible here: fewer than {move.count} tiles can slide {move.direction}")
    for tile_move in move.tiles:
        state = puzzle.apply(state, tile_move)
    return state


def line_moves(tile_moves: Sequence[str]) -> list[LineMove]:
    """Single-tile moves grouped into runs of one direction (slidy's short form: ``U U R`` -> ``U2 R``)."""
    return [LineMove(direction, len(list(run))) for direction, run in groupby(tile_moves)]


class TileCounts:
    """STM and MTM of the single-tile ``moves`` a solve (or a finished one) holds."""

    moves: Sequence[str]

    @property
    def stm(self) -> int:
        """Every tile moved."""
        return len(self.moves)

    @property
    def mtm(self) -> int:
        """Every run of tile moves in one direction (slidy's ``U3`` is one)."""
        return len(line_moves(self.moves))


@dataclass(frozen=True)
class SpeedResult(TileCounts):
    """A finished (or abandoned: ``dnf``) speed solve: what is kept, exported and averaged.

    ``moves`` are single-tile moves and ``times_ms[k]`` the time of ``moves[k]`` in ms from the first move.  A solve
    that is leg ``leg`` (from 0) of a multi-solve event (relay, marathon: see :mod:`.speed_events`) carries the
    event's ``run`` id, and its times run on from the event's first move (so only leg 0 starts at 0).  ``control`` is
    the input that made most of its moves (:data:`CONTROLS`, "" unknown), ``source`` where an imported solve came from
    ("" for one played in Koma) and ``finished`` when it ended (seconds since the epoch; None while not stored).
    ``memo_ms`` is a blindfolded solve's memorisation time: from the scramble shown to the first move (None for the
    other events, and where it is not known)."""

    width: int
    height: int
    scramble: tuple[int, ...]
    moves: tuple[str, ...]
    times_ms: tuple[int, ...]
    dnf: bool = False
    event: str = SINGLE
    run: str = ""
    leg: int = 0
    control: str = ""
    source: str = ""
    finished: float | None = field(default=None, compare=False)
    memo_ms: int | None = None

    def __post_init__(self) -> None:
        if self.memo_ms is not None and self.memo_ms < 0:
            raise KomaError(f"a memorisation time is never negative, not {self.memo_ms} ms")
        if self.control and self.control not in CONTROLS:
            raise KomaError(f"control {self.control!r} is none of {', '.join(CONTROLS)}")
        if len(self.moves) != len(self.times_ms):
            raise KomaError(f"a solve needs one time per tile moved: {len(self.moves)} moves, {len(self.times_ms)} times")
        if self.times_ms and ((self.times_ms[0] != 0 if self.leg == 0 else self.times_ms[0] < 0)
                              or any(b < a for a, b in pairwise(self.times_ms))):
            raise KomaError("move times must start at 0 ms (the clock starts on the first move) and never go back")
        if self.leg < 0 or (self.leg and not self.run):
            raise KomaError(f"leg {self.leg} needs an event run (and legs count from 0)")

    @property
    def size_label(self) -> str:
        return f"{self.width}x{self.height}"

    @property
    def time_ms(self) -> int:
        """The solve's time: its last move's time (the sum of the gaps from the first move)."""
        return self.times_ms[-1] if self.times_ms else 0

    @property
    def result_ms(self) -> float:
        """What averages take: the time, or infinity for a DNF (it sorts as the worst)."""
        return float("inf") if self.dnf else float(self.time_ms)

    @property
    def tps(self) -> float | None:
        """STM per second from its first move to its last; None for a solve of no measurable time (one move)."""
        duration = self.time_ms - (self.times_ms[0] if self.times_ms else 0)
        return self.stm * 1000 / duration if duration else None

    def final_state(self) -> tuple[int, ...]:
        """The board the moves lead to (KomaError if one is not legal)."""
        puzzle = SlidingPuzzle(self.width, self.height)
        return puzzle.replay(self.scramble, self.moves)[-1]


OPTIMUM_LIMIT_SECONDS = 30.0  # the longest a search for a 4x5, 5x4 or 5x5 scramble's optimum runs (after a solve, in a replay)
TWENTYFOUR_BUILD = "koma tables build sliding --size 5x5"
TWENTY = "5-5-5-4"  # the 4x5's and 5x4's pattern databases (built at first use, in about a second)


@dataclass(frozen=True)
class OptimumPlan:
    """How Koma finds a speed board's optimal length after a solve (and its optimal solution in a replay).

    ``search``: a search runs, in the background, given up after ``limit`` seconds (None: it ends soon: boards of up
    to 16 cells), with the solver's ``heuristic`` if one is named.  Otherwise ``note`` says why not (the 5x5 without
    its tables: how to build them), or is empty (boards beyond 5x5, which Koma does not solve)."""

    search: bool
    limit: float | None = None
    heuristic: str | None = None
    note: str = ""

    def options(self, *, background: bool = False) -> dict[str, Any]:
        """The search's options for :func:`solver.solving.solve`; ``background``: while the player plays on (after a
        solve), on one thread, so a core stays free for the game (a replay's ``o`` takes both)."""
        return {"limit": self.limit, **({"heuristic": self.heuristic} if self.heuristic else {}),
                **({"threads": 1} if background else {})}


def twentyfour_tables_built() -> bool:
    """Whether the 5x5's pattern databases are on disk (a look at the file: nothing is loaded or built)."""
    from solver.sliding.tables import tables_present  # the solver's tables module loads numba: only for the 5x5

    return tables_present("pdb6666")


def optimum_plan(puzzle: SlidingPuzzle) -> OptimumPlan:
    """What Koma can say of ``puzzle``'s optimum: boards of up to 16 cells are solved optimally in moments; the 4x5 and
    5x4 (5-5-5-4 databases) and the 5x5 once its 6-6-6-6 databases are built (on request only) within
    :data:`OPTIMUM_LIMIT_SECONDS`, since a random board of theirs can take hours (the search then says how far it got);
    boards beyond 5x5 have no solver."""
    if puzzle.cells <= 16 and puzzle.solvable_by_koma:
        return OptimumPlan(True)
    if (puzzle.width, puzzle.height) in ((4, 5), (5, 4)):
        return OptimumPlan(True, OPTIMUM_LIMIT_SECONDS, TWENTY)
    if (puzzle.width, puzzle.height) == (5, 5):
        if twentyfour_tables_built():
            return OptimumPlan(True, OPTIMUM_LIMIT_SECONDS)
        return OptimumPlan(False, note=f"optimal: build the 5x5's tables once with `{TWENTYFOUR_BUILD}`")
    return OptimumPlan(False)


def optimum_applies(puzzle: SlidingPuzzle) -> bool:
    """Whether Koma looks for a scramble's optimal length after every solve (see :func:`optimum_plan`)."""
    return optimum_plan(puzzle).search


def searching_text(info: dict[str, Any], limit: float | None) -> str:
    """The optimum's line while its search runs: the bound it works on, the seconds spent (of the budget)."""
    bound, seconds = info.get("bound"), info.get("seconds")
    if bound is None:
        return "optimal: searching…"
    spent = "" if seconds is None else f" · {seconds:.0f} s" + ("" if limit is None else f" of {limit:.0f}")
    return f"optimal: searching… bound {bound}{spent}"


def gave_up_text(lower_bound: int, limit: float) -> str:
    """The optimum's line when its search ran out of time: what it proved."""
    return f"optimal: not found in {limit:.0f} s (at least {lower_bound} moves)"


def timed_steps(result: SpeedResult) -> list[tuple[int, LineMove]]:
    """The solve as it was played, for a replay in real time: each run of tiles moved the same way at the same
    millisecond (one click, or one key) as one line move, with its time."""
    steps: list[tuple[int, LineMove]] = []
    for (at, direction), run in groupby(zip(result.times_ms, result.moves)):
        steps.append((at, LineMove(direction, len(list(run)))))
    return steps


class Play(Enum):
    """What :meth:`SpeedSolve.play` did."""

    ILLEGAL = "illegal"  # not possible here, or the solve is over: nothing changed
    PLAYED = "played"
    SOLVED = "solved"  # played, and the board is solved: the clock stopped
    LEG = "leg"  # played, and one leg of a multi-solve event is solved: the next scramble shows, the clock runs on
    DNF = "dnf"  # a blindfolded solve confirmed on a board that is not solved: it ends as a DNF


class SpeedSolve(TileCounts):
    """One speed solve: the scramble shown, the clock waiting for the first move, the moves and their times.

    ``now`` is a monotonic clock in seconds (the app's; tests drive their own).  A later leg of an event is made
    with the event's ``started_at``: its clock runs already, and its times run on from the event's first move.

    A ``blind`` solve (BLD, as Slidysim plays it) does not end by itself when the board is solved: the player
    confirms it (:meth:`confirm`), and a confirm on a board that is not solved is a DNF.  Its memorisation time runs from
    :meth:`reveal` (the scramble shown) to the first move."""

    def __init__(self, puzzle: SlidingPuzzle, scramble: Sequence[int], now: Callable[[], float], *,
                 event: str = SINGLE, run: str = "", leg: int = 0, started_at: float | None = None,
                 blind: bool = False):
        self.puzzle = puzzle
        self.scramble = tuple(scramble)
        self.state = self.scramble
        self.now = now
        self.event, self.run, self.leg = event, run, leg
        self.moves: list[str] = []
        self.times_ms: list[int] = []
        self.tiles_by_control: dict[str, int] = {}  # tiles moved by each input (keyboard, mouse, touch)
        self.started_at: float | None = started_at
        self.blind = blind
        self.shown_at: float | None = None  # when the scramble was shown (reveal)
        self.memo_ms: int | None = None  # a blind solve's: from the scramble shown to the first move
        self.solved = False
        self.abandoned = False

    def reveal(self) -> None:
        """The scramble is on the screen now: a blind solve's memorisation starts (once)."""
        if self.shown_at is None and self.started_at is None:
            self.shown_at = self.now()

    @property
    def started(self) -> bool:
        return self.started_at is not None

    @property
    def over(self) -> bool:
        return self.solved or self.abandoned

    def elapsed_ms(self) -> int:
        """The clock: 0 before the first move, running until the solve, then the solve's time."""
        if self.started_at is None:
            return 0
        if self.over and self.times_ms:
            return self.times_ms[-1]
        return self._ms_since_start()

    def _ms_since_start(self) -> int:
        assert self.started_at is not None
        return max(self.times_ms[-1] if self.times_ms else 0, round((self.now() - self.started_at) * 1000))

    def play(self, move: LineMove | str, control: str = "") -> Play:
        """Play a line move (or one tile: ``"U"``) if possible, made with ``control`` (:data:`CONTROLS`, "" unknown);
        the first move starts the clock at 0 ms."""
        if isinstance(move, str):
            move = LineMove(move)
        if self.over or room(self.puzzle, self.state, move.direction) < move.count:
            return Play.ILLEGAL
        if self.started_at is None:
            self.started_at = self.now()
            if self.blind and self.shown_at is not None:
                self.memo_ms = max(0, round((self.started_at - self.shown_at) * 1000))
            at = 0
        else:
            at = self._ms_since_start()
        self.state = apply_line(self.puzzle, self.state, move)
        self.moves.extend(move.tiles)
        self.times_ms.extend([at] * move.count)
        if control:
            self.tiles_by_control[control] = self.tiles_by_control.get(control, 0) + move.count
        if self.puzzle.is_goal(self.state) and not self.blind:
            self.solved = True
            return Play.SOLVED
        return Play.PLAYED

    def confirm(self) -> Play:
        """A blind solve's end, told by the player: SOLVED if the board is solved, else a DNF (ILLEGAL before the first
        move, once it is over, or for a solve that is not blind)."""
        if not self.blind or self.over or not self.started:
            return Play.ILLEGAL
        if self.puzzle.is_goal(self.state):
            self.solved = True
            return Play.SOLVED
        self.abandoned = True
        return Play.DNF

    def press(self, cell: int, control: str = MOUSE) -> Play:
        """A click (or tap) on ``cell``: its line slides toward the blank (ILLEGAL off the blank's row and column)."""
        move = line_move_to(self.puzzle, self.state, cell)
        return Play.ILLEGAL if move is None else self.play(move, control)

    def hover(self, cell: int | None, *, held: bool = False) -> Play:
        """The pointer over ``cell`` in hover control (:func:`hover_move`): a line move tagged hover, or ILLEGAL."""
        move = hover_move(self.puzzle, self.state, cell, held=held)
        return Play.ILLEGAL if move is None else self.play(move, HOVER)

    @property
    def control(self) -> str:
        """The input that moved the most tiles ("" when none was told)."""
        counts = self.tiles_by_control
        return max(CONTROLS, key=lambda name: counts.get(name, 0)) if counts else ""

    def abandon(self) -> bool:
        """Give up a started solve: it counts as a DNF.  False if it had not started (nothing to count) or is over."""
        if self.over or not self.started:
            return False
        self.abandoned = True
        return True

    def live_tps(self) -> float | None:
        """STM per second so far (the solve's TPS once solved)."""
        elapsed = self.elapsed_ms()
        return self.stm * 1000 / elapsed if elapsed else None

    def result(self) -> SpeedResult:
        """The solve as kept: a finished one, or a DNF if abandoned; KomaError while it is going on."""
        if not self.over:
            raise KomaError("the solve is not over")
        return SpeedResult(self.puzzle.width, self.puzzle.height, self.scramble, tuple(self.moves),
                           tuple(self.times_ms), dnf=self.abandoned, event=self.event, run=self.run, leg=self.leg,
                           control=self.control, memo_ms=self.memo_ms)

