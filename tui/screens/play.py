"""The play screen, one implementation for every puzzle: board, counters, distance, parity, solver.

Everything the screen knows about the rules comes from the :class:`~solver.puzzles.base.Puzzle`
(``moves``/``apply``/``is_goal``/``proof``/``solve``/``distance``).  Solver calls run in named
thread workers with a fresh stop flag per job; their answers come back as messages.  Escape
cancels a job at once (stop flag plus ``worker.cancel()``), and so does leaving the screen.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer
from textual.worker import Worker, get_current_worker

from solver import search
from solver.engines.progress import throttled
from solver.engines.stop import new_stop_flag
from solver.errors import Cancelled, KomaError, UnsolvableError
from solver.puzzles.base import Puzzle, Solution

from ..ascii import Header, Static
from ..game.daily import puzzle_id
from ..game.formatting import clock_text, figures_text, plural
from ..game.store import SavedGame
from ..widgets.board import Board
from ..widgets.looks import look_for

SPEEDS = (1.2, 0.8, 0.5, 0.3, 0.18, 0.1, 0.05)  # seconds per move in playback
DEFAULT_SPEED = 3
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
ASCII_SPINNER = "|/-\\"
MOVE = Binding.Group("move", compact=True)
CURSOR = Binding.Group("cursor", compact=True)
SPEED = Binding.Group("speed", compact=True)
STEP = Binding.Group("step", compact=True)


@dataclass
class Job:
    """One solver job: what it is for, the board it works on, and its stop flag."""

    kind: str  # "solve" or "hint"
    state: tuple
    stop: Any = field(default_factory=new_stop_flag)
    worker: Worker | None = None
    progress: str = ""
    began: float = field(default_factory=time.monotonic)


class SolveDone(Message):
    def __init__(self, job: Job, solution: Solution):
        super().__init__()
        self.job, self.solution = job, solution


class SolveFailed(Message):
    def __init__(self, job: Job, text: str):
        super().__init__()
        self.job, self.text = job, text


class SolveProgress(Message):
    def __init__(self, job: Job, info: dict):
        super().__init__()
        self.job, self.info = job, info


class WarmedUp(Message):
    def __init__(self, problem: str = "", seconds: float = 0.0):
        super().__init__()
        self.problem, self.seconds = problem, seconds


class NewBoard(Message):
    def __init__(self, state: tuple, note: str = ""):
        super().__init__()
        self.state, self.note = state, note


class PlayScreen(Screen):
    """Play one puzzle: keyboard, mouse, undo/redo, hints and an animated optimal auto-solve."""

    BINDINGS = [
        Binding("up,k", "arrow('U')", "", id="play.up", group=MOVE),
        Binding("down,j", "arrow('D')", "", id="play.down", group=MOVE),
        Binding("left,h", "arrow('L')", "", id="play.left", group=MOVE),
        Binding("right,l", "arrow('R')", "move", id="play.right", group=MOVE),
        Binding("shift+up", "cursor(-1,0)", "", id="play.cursor_up", tooltip="Cursor up", show=False),
        Binding("shift+down", "cursor(1,0)", "", id="play.cursor_down", tooltip="Cursor down", show=False),
        Binding("shift+left", "cursor(0,-1)", "", id="play.cursor_left", tooltip="Cursor left", show=False),
        Binding("shift+right", "cursor(0,1)", "", id="play.cursor_right", tooltip="Cursor right", show=False),
        Binding("enter", "activate('enter')", "Play cursor", id="play.enter", show=False, tooltip="Move the piece under the cursor"),
        Binding("space", "activate('space')", "Play cursor / pause", id="play.space", show=False,
                tooltip="Move the piece under the cursor, or pause the playback"),
        Binding("s", "solve", "solve", id="play.solve", tooltip="Solve: find an optimal solution in the background and play it back"),
        Binding("t", "hint", "hint", id="play.hint", tooltip="Hint: highlight the next optimal move"),
        Binding("u", "undo", "undo", id="play.undo", tooltip="Undo the last move"),
        Binding("U", "redo", "redo", id="play.redo", tooltip="Redo the move undone", show=False),
        Binding("n", "new_game", "new", id="play.new", tooltip="New game: random, an exact distance, or your own board"),
        Binding("r", "restart", "restart", id="play.restart", tooltip="Restart from the first board (redo brings your moves back)", show=False),
        Binding("p", "proof", "parity", id="play.proof", tooltip="Parity proof: why this board can or cannot be solved"),
        Binding("plus,equals_sign", "speed(1)", "Faster", id="play.faster", tooltip="Faster playback", show=False),
        Binding("minus", "speed(-1)", "Slower", id="play.slower", tooltip="Slower playback", show=False),
        Binding("right_square_bracket", "step(1)", "Step forward", id="play.step_forward", tooltip="Step the paused playback forward", show=False),
        Binding("left_square_bracket", "step(-1)", "Step back", id="play.step_back", tooltip="Step the paused playback back", show=False),
        Binding("escape", "escape", "back", id="play.escape", tooltip="Back: cancel the search or playback, else return home"),
    ]

    def __init__(self, puzzle: Puzzle, *, start: tuple | None = None, saved: SavedGame | None = None,
                 note: str = "", ascii_only: bool = False, daily: str | None = None):
        super().__init__(classes=f"play -{puzzle.key}")
        self.puzzle = puzzle
        self.stats_id = puzzle_id(puzzle)  # stats are per puzzle; a daily game is saved apart
        self.daily = daily  # the day of a daily board, else None
        self.game_id = f"daily/{daily}/{self.stats_id}" if daily else self.stats_id
        self.look = look_for(puzzle, ascii_only)
        self.moves: list[str] = []
        self.origins: list[str] = []
        self.position = 0
        self.hints = 0
        self.seconds = 0.0  # time played before ``running_since``
        self.running_since: float | None = None
        self.note = note
        self.distances: dict[tuple, int] = {}
        self.solution_path: list[tuple] = []  # the latest optimal path: hints follow it for free
        self.solution_moves: list[str] = []
        self.solution_optimal = True
        self.job: Job | None = None
        self.distance_stop = None
        self.playback: list[str] | None = None
        self.paused = False
        self.speed = DEFAULT_SPEED
        self.playback_timer = None
        self.warm = threading.Event()
        self.warm_problem = ""
        self.won = False
        self.win_recorded = False
        self.no_optimal = False  # the puzzle's default method turned out not to be optimal: no live distance
        self.message = ""
        self.spin = 0
        self._resume(start, saved)

    def _resume(self, start: tuple | None, saved: SavedGame | None) -> None:
        if start is None and saved is not None:
            try:
                begin = self.puzzle.parse(saved.start)
                path = list(self.puzzle.replay(begin, saved.moves))
            except KomaError:
                saved = None
            else:
                self.path = path
                self.moves, self.origins = list(saved.moves), saved.origins
                self.origins = list(self.origins)
                self.position, self.seconds, self.hints = saved.position, saved.seconds, saved.hints
                self.note = self.note or "Welcome back: your game is as you left it."
                return
        if start is None:
            start = self.puzzle.random_state(random.SystemRandom().randrange(2**32))
        self.path = [tuple(start)]

    # --- state -------------------------------------------------------------------------------
    @property
    def state(self) -> tuple:
        return self.path[self.position]

    @property
    def start(self) -> tuple:
        return self.path[0]

    @property
    def koma_played(self) -> bool:
        return "k" in self.origins[:self.position]

    def elapsed(self) -> float:
        if self.running_since is None:
            return self.seconds
        return self.seconds + max(0.0, self.app.clock() - self.running_since)

    # --- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="play-body"):
            yield Board(self.look, self.state, id="board")
            with Vertical(id="side"):
                yield Static(id="title")
                yield Static(id="counters")
                yield Static(id="distance")
                yield Static(id="parity")
                yield Static(id="solver")
                yield Static(id="message")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = f"{self.puzzle.title} {self.puzzle.size_label}" + (f" · daily {self.daily}" if self.daily else "")
        self.query_one("#title", Static).update(f"[b]{self.puzzle.title}[/b]  {self.puzzle.size_label}")
        self.set_interval(0.1, self._tick)
        self.warm_up()
        self.message = self.note
        self.refresh_status()
        self._save()

    def on_screen_suspend(self) -> None:
        self._pause_clock()
        self._save()

    def on_screen_resume(self) -> None:
        self._start_clock()

    def on_unmount(self) -> None:
        self.cancel_jobs()
        self._pause_clock()
        self._save()

    # --- the clock -----------------------------------------------------------------------------
    def _start_clock(self) -> None:
        if self.running_since is None and self.position > 0 and not self.won and self.is_current_screen():
            self.running_since = self.app.clock()

    def _pause_clock(self) -> None:
        if self.running_since is not None:
            self.seconds = self.elapsed()
            self.running_since = None

    def is_current_screen(self) -> bool:
        try:
            return self.app.screen is self
        except Exception:  # pragma: no cover - during shutdown
            return False

    def _tick(self) -> None:
        self.spin += 1
        self.refresh_counters()
        if self.job is not None or not self.warm.is_set() or self._distance_pending():
            self.refresh_status()

    # --- status --------------------------------------------------------------------------------
    def spinner(self) -> str:
        frames = ASCII_SPINNER if self.look.ascii else SPINNER
        return frames[self.spin % len(frames)] if self.app.animate_spinner else frames[0]

    def refresh_counters(self) -> None:
        self.query_one("#counters", Static).update(
            f"Moves [b]{self.position}[/b]   Time [b]{clock_text(self.elapsed())}[/b]")

    def _distance_pending(self) -> bool:
        return self.state not in self.distances and bool(search.methods(self.puzzle)) and not self.no_optimal

    def refresh_status(self) -> None:
        self.refresh_counters()
        state = self.state
        distance = self.distances.get(state)
        if self.puzzle.is_goal(state):
            text = "[b]Solved[/b]"
        elif distance is not None:
            text = f"[b]{distance}[/b] move{'s' if distance != 1 else ''} from solved"
        elif not search.methods(self.puzzle) or self.no_optimal:
            text = "distance: no optimal solver for this size yet"
        elif not self.proof.solvable:
            text = "cannot reach the goal"
        elif not self.warm.is_set():
            text = f"{self.spinner()} warming up…"
        elif self.job is not None and self.job.state == self.state:
            text = "distance: the search below will tell"
        else:
            text = f"{self.spinner()} measuring distance…"
        self.query_one("#distance", Static).update(text)
        proof = self.proof
        verdict = "[b]solvable[/b]" if proof.solvable else "[b]NOT solvable[/b]"
        self.query_one("#parity", Static).update(f"Parity: {verdict}\n[dim]{proof.summary}[/dim]")
        self.query_one("#parity", Static).set_class(not proof.solvable, "-bad")
        self.query_one("#solver", Static).update(self.solver_text())
        self.query_one("#message", Static).update(self.message)

    def solver_text(self) -> str:
        if self.job is not None:
            what = "Solving" if self.job.kind == "solve" else "Finding a hint"
            wait = "" if self.warm.is_set() else " (warming up)"
            figures = f"\n{self.job.progress}" if self.job.progress else ""
            return f"{self.spinner()} {what}{wait}…{figures}\n[dim]esc cancels[/dim]"
        if self.playback is not None:
            state = "paused" if self.paused else "playing"
            left = len(self.playback)
            return (f"Koma is {state}: {left} move{'s' if left != 1 else ''} left\n"
                    f"[dim]space pause · +/- speed ({SPEEDS[self.speed]:.2g} s) · \\[ ] step[/dim]")
        return ""

    @property
    def proof(self):
        cached = getattr(self, "_proof", None)
        if cached is None or cached[0] != self.state:
            self._proof = (self.state, self.puzzle.proof(self.state))
        return self._proof[1]

    # --- showing a new position ------------------------------------------------------------------
    def _show(self, animate: bool = True) -> None:
        board = self.query_one(Board)
        board.show(self.state, animate=animate)
        board.set_hint()
        self._measure()
        self.refresh_status()
        self._save()
        self.refresh_bindings()

    def _save(self) -> None:
        if self.won or not hasattr(self, "path"):
            return
        store = getattr(self.app, "store", None)
        if store is None:
            return
        store.save_game(self.game_id, SavedGame(self.puzzle.format(self.start), self.moves, "".join(self.origins),
                                                self.position, self.elapsed(), self.hints))
        self.app.show_store_notices()

    # --- playing moves ---------------------------------------------------------------------------
    def play(self, move: str, origin: str = "p") -> bool:
        """Play ``move`` if it is legal here; ``origin`` is ``p`` (the player) or ``k`` (Koma's playback)."""
        if self.won and origin == "p":
            self.app.bell()
            return False
        if move not in self.puzzle.moves(self.state):
            if origin == "p":
                self.app.bell()
            return False
        if origin == "p":
            if self.playback is not None:
                self.stop_playback("You took over from Koma.")
            if self.job is not None:
                self.cancel_job(quiet=True)
        new = self.puzzle.apply(self.state, move)
        del self.moves[self.position:], self.origins[self.position:], self.path[self.position + 1:]
        self.moves.append(move)
        self.origins.append(origin)
        self.path.append(new)
        self.position += 1
        if origin == "p":
            self.message = ""
        self._start_clock()
        self._show()
        if self.puzzle.is_goal(new):
            self.on_goal()
        return True

    def on_goal(self) -> None:
        self._pause_clock()
        self.won = True
        store = self.app.store
        seconds = self.seconds
        optimal = self.distances.get(self.start)
        if self.koma_played:
            if not self.win_recorded:
                store.record_koma_finish(self.stats_id)
            self.message = (f"[b]Solved by Koma[/b] ({plural(self.position, 'move')}"
                            + (f"; optimal {optimal}" if optimal is not None else "") + "). Not counted as yours.")
        else:
            optimal_text = f"optimal {optimal}" if optimal is not None else "optimal unknown"
            hints = f", {self.hints} hint{'s' if self.hints != 1 else ''}" if self.hints else ""
            self.message = (f"[b]Solved in {plural(self.position, 'move')}; {optimal_text}[/b]\n"
                            f"time {clock_text(seconds)}{hints}")
            if not self.win_recorded:
                stats = store.record_win(self.stats_id, self.position, optimal, seconds)
                self.message += f"\n[dim]solved {stats.solved} · best time {clock_text(stats.best_seconds)}[/dim]"
                if self.daily:
                    rank = store.record_daily(self.daily, self.stats_id, self.position, optimal, seconds, self.hints)
                    if rank is not None:
                        self.message += f"\nDaily {self.daily}: you rank [b]#{rank}[/b] (b: leaderboard)"
                self.notify(f"Solved in {plural(self.position, 'move')}; {optimal_text}. Time {clock_text(seconds)}.",
                            title="Well done!")
        self.win_recorded = True
        store.clear_game(self.game_id)
        self.refresh_status()
        self.refresh_bindings()

    def _unwin(self) -> None:
        if self.won:
            self.won = False
            self.message = ""

    def action_arrow(self, direction: str) -> None:
        if self.look.arrows_move:
            self.play(direction)
        else:
            d_row, d_col = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}[direction]
            self.action_cursor(d_row, d_col)

    def action_cursor(self, d_row: int, d_col: int) -> None:
        self.query_one(Board).move_cursor(d_row, d_col)

    def action_flip(self, move: str) -> None:
        self.play(move)

    def action_activate(self, key: str) -> None:
        if key == "space" and self.playback is not None:
            self.action_pause()
            return
        board = self.query_one(Board)
        if self.look.identity_by_cell:  # Ura-omote: Enter turns the cursor's row, Space its column
            row, col = divmod(board.cursor, self.puzzle.width)
            self.play(chr(ord("A") + row) if key == "enter" else str(col + 1))
            return
        self.play_cell(board.cursor)

    def move_for_cell(self, cell: int) -> str | None:
        """The legal move that carries the piece on ``cell`` into the blank, if any."""
        board = self.query_one(Board)
        piece = next((p for p in board.pieces if p.covers(cell, self.puzzle.width)), None)
        if piece is None or piece.spec.kind == "blank":
            return None
        covered = {piece.spec.cell + k for k in range(piece.spec.span)}
        state = self.state
        for move in self.puzzle.moves(state):
            after = self.puzzle.apply(state, move)
            if any(after[c] != state[c] for c in covered):
                return move
        return None

    def play_cell(self, cell: int) -> None:
        move = self.move_for_cell(cell)
        if move is None:
            self.app.bell()
        else:
            self.play(move)

    @on(Board.CellPressed)
    def _cell_pressed(self, event: Board.CellPressed) -> None:
        if not self.look.identity_by_cell:
            self.play_cell(event.cell)

    @on(Board.LinePressed)
    def _line_pressed(self, event: Board.LinePressed) -> None:
        self.play(event.move)

    # --- undo, redo, restart -----------------------------------------------------------------------
    def action_undo(self) -> None:
        if self.position == 0:
            self.app.bell()
            return
        self.stop_playback("")
        self.cancel_job(quiet=True)
        self._unwin()
        self.position -= 1
        self.message = ""
        self._start_clock()
        self._show()

    def action_redo(self) -> None:
        if self.position >= len(self.moves):
            self.app.bell()
            return
        self.stop_playback("")
        self.cancel_job(quiet=True)
        self.position += 1
        self.message = ""
        self._show()
        if self.puzzle.is_goal(self.state):
            self.on_goal()

    def action_restart(self) -> None:
        if self.position == 0:
            return
        self.stop_playback("")
        self.cancel_job(quiet=True)
        self._unwin()
        self.position = 0
        self.message = "Back to the start (U redoes your moves)."
        self._show()

    # --- distance (live) --------------------------------------------------------------------------
    def _measure(self) -> None:
        """Find the distance of the board shown (and of the start), from the table or in the background."""
        wanted = [s for s in dict.fromkeys([self.state, self.start]) if s not in self.distances]
        if not wanted or not self.warm.is_set() or not search.methods(self.puzzle) or self.no_optimal:
            return
        if self.puzzle.enumerable:  # a table lookup: instant once warm
            for s in wanted:
                try:
                    d = search.distance(self.puzzle, s)
                except KomaError:
                    continue
                if d >= 0:
                    self.distances[s] = d
            return
        wanted = [s for s in wanted if self.puzzle.proof(s).solvable]
        if not wanted:
            return
        if self.distance_stop is not None:
            self.distance_stop[0] = 1
        self.distance_stop = new_stop_flag()
        self.app.stop_flags[id(self.distance_stop)] = self.distance_stop
        self.measure_in_background(wanted, self.distance_stop)

    @work(thread=True, exclusive=True, group="distance", name="distance")
    def measure_in_background(self, states: list[tuple], stop) -> None:
        try:
            for s in states:
                if stop[0]:
                    return
                solution = search.solve(self.puzzle, s, stop=stop)
                self.post_message(SolveDone(Job("distance", s, stop), solution))
        except (Cancelled, KomaError, IndexError):
            return
        finally:
            self.app.stop_flags.pop(id(stop), None)

    # --- warming up ------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="warmup", name="warm-up")
    def warm_up(self) -> None:
        """Load (or build) the depth table, or JIT-compile the search, away from the UI thread."""
        began = time.perf_counter()
        problem = ""
        try:
            if self.puzzle.enumerable:
                self.puzzle.depth_table()
            elif search.methods(self.puzzle):
                near = self.puzzle.goal
                for _ in range(2):
                    near = self.puzzle.apply(near, self.puzzle.moves(near)[0])
                stop = new_stop_flag()
                self.app.stop_flags[id(stop)] = stop
                try:
                    search.solve(self.puzzle, near, stop=stop)
                finally:
                    self.app.stop_flags.pop(id(stop), None)
        except Cancelled:
            problem = "cancelled"
        except Exception as error:  # a solver problem must not take the game down
            problem = str(error) or error.__class__.__name__
        self.post_message(WarmedUp(problem, time.perf_counter() - began))

    @on(WarmedUp)
    def _warmed_up(self, event: WarmedUp) -> None:
        self.warm_problem = event.problem
        self.warm.set()
        self.app.warm_seconds.setdefault(self.game_id, event.seconds)
        if event.problem and event.problem != "cancelled":
            self.message = f"Solver unavailable: {event.problem}"
        self._measure()
        self.refresh_status()
        self.refresh_bindings()

    # --- solving and hints -----------------------------------------------------------------------
    def _solver_missing(self) -> str:
        if not search.methods(self.puzzle):
            return f"Koma has no optimal solver for the {self.puzzle.title} yet."
        if not self.proof.solvable:
            return f"This board cannot be solved: {self.proof.summary}."
        return ""

    def action_solve(self) -> None:
        if self.puzzle.is_goal(self.state):
            self.message = "Already solved. Press n for a new game."
        elif self.playback is not None:
            self.stop_playback("")
            self.start_job("solve")
        elif self.job is None or self.job.kind != "solve":
            self.cancel_job(quiet=True)
            self.start_job("solve")
        self.refresh_status()

    def action_hint(self) -> None:
        state = self.state
        if self.puzzle.is_goal(state):
            self.message = "Already solved."
            self.refresh_status()
            return
        if state in self.solution_path[:-1]:
            self.show_hint(self.solution_moves[self.solution_path.index(state)], self.solution_optimal)
            return
        if self.job is None:
            self.start_job("hint")
            self.refresh_status()

    def start_job(self, kind: str) -> None:
        missing = self._solver_missing()
        if missing:
            self.message = missing
            self.app.bell()
            self.refresh_status()
            return
        job = Job(kind, self.state)
        self.job = job
        if self.distance_stop is not None and not self.puzzle.enumerable:
            self.distance_stop[0] = 1  # the solution answers the distance as well: one search, not two
        self.app.stop_flags[id(job.stop)] = job.stop
        job.worker = self.run_solver(job)
        self.refresh_status()
        self.refresh_bindings()

    @work(thread=True, exclusive=True, group="solver", name="solver")
    def run_solver(self, job: Job) -> None:
        """Wait for the warm-up, then solve ``job.state`` optimally, posting progress and the answer."""
        worker = get_current_worker()
        try:
            while not self.warm.wait(0.02):
                if job.stop[0] or worker.is_cancelled:
                    return
            progress = throttled(lambda info: self.post_message(SolveProgress(job, dict(info))))

            solution = search.solve(self.puzzle, job.state, stop=job.stop, progress=progress)
        except Cancelled:
            return
        except UnsolvableError as error:
            self.post_message(SolveFailed(job, str(error)))
            return
        except KomaError as error:
            self.post_message(SolveFailed(job, f"Koma cannot solve this: {error}"))
            return
        except Exception as error:  # pragma: no cover - a solver bug: report it, keep the game
            self.post_message(SolveFailed(job, f"The solver failed: {error!r}"))
            return
        finally:
            self.app.stop_flags.pop(id(job.stop), None)
        if not job.stop[0]:
            self.post_message(SolveDone(job, solution))

    @on(SolveProgress)
    def _solve_progress(self, event: SolveProgress) -> None:
        if event.job is self.job:
            self.job.progress = figures_text(event.info)
            self.refresh_status()

    @on(SolveFailed)
    def _solve_failed(self, event: SolveFailed) -> None:
        if event.job is self.job:
            self.job = None
            self.message = event.text
            self.refresh_status()
            self.refresh_bindings()

    @on(SolveDone)
    def _solve_done(self, event: SolveDone) -> None:
        solution = event.solution
        path = [tuple(s) for s in solution.path]
        if solution.optimal:
            for k, s in enumerate(path):
                self.distances[s] = len(path) - 1 - k
        if event.job.kind == "distance":
            if not solution.optimal:
                self.no_optimal = True
            self.refresh_status()
            return
        if event.job is not self.job:
            return
        self.job = None
        self.solution_path, self.solution_moves = path, list(solution.moves)
        self.solution_optimal = solution.optimal
        self.app.last_solve_seconds = time.monotonic() - event.job.began
        if event.job.state != self.state:
            self.refresh_status()
            return
        if event.job.kind == "hint":
            self.show_hint(solution.moves[0], solution.optimal)
        else:
            kind = "optimal" if solution.optimal else f"NOT proven optimal: {solution.method} method"
            self.message = (f"Koma found {plural(solution.length, 'move')} ({kind}; {solution.nodes:,} nodes, "
                            f"{solution.seconds:.2f} s).")
            self.start_playback(list(solution.moves))
        self.refresh_status()
        self.refresh_bindings()

    def show_hint(self, move: str, optimal: bool = True) -> None:
        state = self.state
        after = self.puzzle.apply(state, move)
        changed = {i for i in range(len(state)) if after[i] != state[i]}
        board = self.query_one(Board)
        if self.look.identity_by_cell:
            board.set_hint(changed, {move})
            what = f"turn {'row' if move.isalpha() else 'column'} {move} over"
        else:
            board.set_hint({i for i in changed if state[i] != self.look.blank_code})
            what = f"move the highlighted piece {dict(U='up', D='down', L='left', R='right').get(move, move)}"
        self.hints += 1
        distance = self.distances.get(state)
        self.message = f"Hint: {what}" + (f" ({distance} to go)." if distance is not None else ".")
        if not optimal:
            self.message += " (Not proven optimal.)"
        self.refresh_status()
        self._save()

    def cancel_job(self, quiet: bool = False, refresh: bool = True) -> bool:
        job = self.job
        if job is None:
            return False
        job.stop[0] = 1
        if job.worker is not None:
            job.worker.cancel()
        self.job = None
        if not quiet:
            self.message = "Cancelled."
        if refresh:
            self.refresh_status()
            self.refresh_bindings()
        return True

    def cancel_jobs(self) -> None:
        """Stop every job of this screen: the solver, the distance search and the playback."""
        self.cancel_job(quiet=True, refresh=False)
        if self.distance_stop is not None:
            self.distance_stop[0] = 1
        if self.playback_timer is not None:
            self.playback_timer.stop()
        self.workers.cancel_group(self, "solver")
        self.workers.cancel_group(self, "distance")

    # --- playback ----------------------------------------------------------------------------------
    def start_playback(self, moves: list[str]) -> None:
        self.playback = list(moves)
        self.paused = False
        self._restart_playback_timer()

    def _restart_playback_timer(self) -> None:
        if self.playback_timer is not None:
            self.playback_timer.stop()
        self.playback_timer = self.set_interval(SPEEDS[self.speed], self._playback_step)

    def _playback_step(self) -> None:
        if self.playback is None or self.paused:
            return
        self.playback_forward()

    def playback_forward(self) -> None:
        if not self.playback:
            self.stop_playback("")
            return
        move = self.playback.pop(0)
        if not self.play(move, origin="k"):
            self.stop_playback("The playback no longer fits the board.")
            return
        if not self.playback:
            self.stop_playback(self.message)

    def stop_playback(self, message: str) -> None:
        if self.playback is None:
            return
        self.playback = None
        self.paused = False
        if self.playback_timer is not None:
            self.playback_timer.stop()
            self.playback_timer = None
        if message is not None:
            self.message = message
        self.refresh_status()
        self.refresh_bindings()

    def action_pause(self) -> None:
        if self.playback is not None:
            self.paused = not self.paused
            self.refresh_status()
            self.refresh_bindings()

    def action_speed(self, delta: int) -> None:
        self.speed = max(0, min(len(SPEEDS) - 1, self.speed + delta))
        if self.playback is not None:
            self._restart_playback_timer()
            self.refresh_status()

    def action_step(self, delta: int) -> None:
        if self.playback is None or not self.paused:
            self.app.bell()
            return
        if delta > 0:
            self.playback_forward()
        elif self.position > 0 and self.origins[self.position - 1] == "k":
            self.playback.insert(0, self.moves[self.position - 1])
            self._unwin()
            self.position -= 1
            self._show()
        else:
            self.app.bell()

    # --- the rest -------------------------------------------------------------------------------------
    def action_escape(self) -> None:
        if self.cancel_job():
            self._measure()  # the cancelled job would have answered the distance too
            return
        if self.playback is not None:
            self.stop_playback("Playback stopped.")
            return
        self.app.pop_screen()

    def action_proof(self) -> None:
        from .proof import ProofScreen

        self.app.push_screen(ProofScreen(self.puzzle, self.state, self.proof, ascii_only=self.look.ascii))

    def action_new_game(self) -> None:
        if self.daily:
            self.message = "This is the daily board: everyone plays the same one. Esc goes back."
            self.refresh_status()
            return
        from .new_game import NewGameScreen

        self.app.push_screen(NewGameScreen(self.puzzle, self.warm.is_set()), self._new_game_chosen)

    def _new_game_chosen(self, choice) -> None:
        if choice is None:
            return
        kind, value = choice
        if kind == "board":
            self.post_message(NewBoard(tuple(value), "A new game from your board."))
        else:
            self.generate(kind, value)

    @work(thread=True, exclusive=True, group="generate", name="generate")
    def generate(self, kind: str, distance: int | None) -> None:
        seed = random.SystemRandom().randrange(2**32)
        try:
            state = self.puzzle.random_state(seed, distance if kind == "distance" else None)
        except KomaError as error:
            self.post_message(NewBoard((), str(error)))
            return
        note = f"A new game, exactly {distance} moves from solved." if kind == "distance" else "A new random game."
        self.post_message(NewBoard(tuple(state), note))

    @on(NewBoard)
    def _new_board(self, event: NewBoard) -> None:
        if not event.state:
            self.message = event.note
            self.refresh_status()
            return
        self.new_game(event.state, event.note)

    def new_game(self, state: tuple, note: str = "") -> None:
        self.stop_playback("")
        self.cancel_job(quiet=True)
        self.path = [tuple(state)]
        self.moves, self.origins = [], []
        self.position, self.hints, self.seconds = 0, 0, 0.0
        self.running_since = None
        self.won = self.win_recorded = False
        self.solution_path, self.solution_moves = [], []
        self.message = note
        self._show()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "undo" and self.position == 0:
            return None
        if action == "redo" and self.position >= len(self.moves):
            return None
        if action in ("solve", "hint") and (self.won or not search.methods(self.puzzle)):
            return None
        if action == "step" and (self.playback is None or not self.paused):
            return None
        return not (action == "flip" and parameters and parameters[0] not in self.puzzle.moves(self.state))


class UraPlayScreen(PlayScreen):
    """Ura-omote: A.. turn a row over, 1.. a column; arrows move the cursor, Enter/Space turn its lines."""

    BINDINGS = [
        Binding("up,k", "arrow('U')", "", id="play.up", group=CURSOR),
        Binding("down,j", "arrow('D')", "", id="play.down", group=CURSOR),
        Binding("left,h", "arrow('L')", "", id="play.left", group=CURSOR),
        Binding("right,l", "arrow('R')", "cursor", id="play.right", group=CURSOR),
        Binding("enter", "activate('enter')", "row", id="play.enter", tooltip="Turn the cursor's row over"),
        Binding("space", "activate('space')", "column", id="play.space", tooltip="Turn the cursor's column over (or pause the playback)"),
        *[Binding(f"{letter.lower()},{letter}", f"flip('{letter}')", f"Turn row {letter} over",
                  id=f"play.row_{letter.lower()}", show=False) for letter in "ABCDEF"],
        *[Binding(digit, f"flip('{digit}')", f"Turn column {digit} over", id=f"play.column_{digit}", show=False)
          for digit in "123456"],
    ]


DAILY_BINDINGS = [
    Binding("b", "leaderboard", "leaderboard", id="play.leaderboard", tooltip="The daily leaderboard of this puzzle"),
]


class DailyPlayScreen(PlayScreen):
    """A daily board: the same for every player that day; b shows the day's leaderboard."""

    BINDINGS = DAILY_BINDINGS

    def action_leaderboard(self) -> None:
        from .leaderboard import LeaderboardScreen

        self.app.push_screen(LeaderboardScreen(self.stats_id, self.daily))


class DailyUraPlayScreen(UraPlayScreen):
    BINDINGS = DAILY_BINDINGS
    action_leaderboard = DailyPlayScreen.action_leaderboard


def play_screen_for(puzzle: Puzzle, **options) -> PlayScreen:
    if options.get("daily"):
        return (DailyUraPlayScreen if puzzle.key == "ura" else DailyPlayScreen)(puzzle, **options)
    return (UraPlayScreen if puzzle.key == "ura" else PlayScreen)(puzzle, **options)
