"""The play screen, one implementation for every puzzle: board, side panel, undo/redo, hints, auto-solve.

Everything the screen knows about the rules comes from the :class:`~solver.puzzles.base.Puzzle`;
the game's moves are a :class:`~tui.game.history.GameHistory`, the auto-solve animation a
:class:`~tui.game.playback.PlaybackController`, and the side panel a :class:`~tui.widgets.status.GameStatus`
that redraws only the lines whose reactives changed.  Solver calls run in named thread workers, one
:class:`~tui.game.jobs.SolverJob` each; their answers come back as messages (:mod:`tui.messages`).
Escape cancels a job at once, and so does leaving the screen.  A hidden screen holds its timers.
"""

from __future__ import annotations

import random
import threading
import time
from typing import cast

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer

from solver import search
from solver.engines.progress import throttled
from solver.errors import Cancelled, KomaError, UnsolvableError
from solver.puzzles.base import Proof, Puzzle, Solution

from ..app_view import koma_app
from ..ascii import Header
from ..game.daily import puzzle_id
from ..game.formatting import clock_text, figures_text, plural
from ..game.history import HINT, KOMA, ORIGINS, PLAYER, GameHistory
from ..game.jobs import SolverJob
from ..game.playback import PlaybackController, Step
from ..game.store import SavedGame
from ..messages import JobDone, JobFailed, JobProgress, NewBoard, WarmedUp
from ..widgets.board import Board
from ..widgets.looks import look_for
from ..widgets.status import SPIN, GameStatus

MOVE = Binding.Group("move", compact=True)
CURSOR = Binding.Group("cursor", compact=True)
DIRECTIONS = {"U": "up", "D": "down", "L": "left", "R": "right"}


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

    message: reactive[str] = reactive("", init=False)

    def __init__(self, puzzle: Puzzle, *, start: tuple | None = None, saved: SavedGame | None = None,
                 note: str = "", ascii_only: bool = False, daily: str | None = None, solve: bool = False):
        super().__init__(classes=f"play -{puzzle.key}")
        self.puzzle = puzzle
        self.stats_id = puzzle_id(puzzle)  # stats are per puzzle; a daily game is saved apart
        self.daily = daily  # the day of a daily board, else None
        self.game_id = f"daily/{daily}/{self.stats_id}" if daily else self.stats_id
        self.look = look_for(puzzle, ascii_only)
        self.solve_at_once = solve
        self.hints = 0
        self.hinted: str | None = None  # the move the hint on the board shows
        self.seconds = 0.0  # time played before ``running_since``
        self.running_since: float | None = None
        self.clock_timer: Timer | None = None
        self.distances: dict[tuple, int] = {}
        self.solution_path: list[tuple] = []  # the latest optimal path: hints follow it for free
        self.solution_moves: list[str] = []
        self.solution_optimal = True
        self.job: SolverJob | None = None
        self.distance_job: SolverJob | None = None
        self.playback = PlaybackController(self.set_interval, lambda move: self.play(move, KOMA))
        self.playback.on_step = self._playback_stepped
        self.warm = threading.Event()
        self.won = self.win_recorded = False
        self.no_optimal = False  # the puzzle's default method turned out not to be optimal: no live distance
        self._proof: tuple[tuple, Proof] | None = None
        self.status: GameStatus  # made in compose, when the app is there to say how to spin
        self.history = self._resume(start, saved)
        if note:
            self.set_reactive(PlayScreen.message, note)

    def _resume(self, start: tuple | None, saved: SavedGame | None) -> GameHistory:
        if start is None and saved is not None:
            try:
                begin = self.puzzle.parse(saved.start)
                path = list(self.puzzle.replay(begin, saved.moves))
                origins = [o if o in ORIGINS else PLAYER for o in saved.origins]  # a letter from elsewhere: the player's
                history = GameHistory(path, list(saved.moves), origins, saved.position)
            except (KomaError, ValueError):
                pass
            else:
                self.seconds, self.hints = saved.seconds, saved.hints
                self.set_reactive(PlayScreen.message, "Welcome back: your game is as you left it.")
                return history
        if start is None:
            start = self.puzzle.random_state(random.SystemRandom().randrange(2**32))
        return GameHistory.starting_at(start)

    # --- state -------------------------------------------------------------------------------
    @property
    def state(self) -> tuple:
        return self.history.state

    @property
    def start(self) -> tuple:
        return self.history.start

    @property
    def position(self) -> int:
        return self.history.position

    @property
    def moves(self) -> list[str]:
        return self.history.moves

    @property
    def origins(self) -> list[str]:
        return self.history.origins

    @property
    def proof(self) -> Proof:
        if self._proof is None or self._proof[0] != self.state:
            self._proof = (self.state, self.puzzle.proof(self.state))
        return self._proof[1]

    def elapsed(self) -> float:
        if self.running_since is None:
            return self.seconds
        return self.seconds + max(0.0, koma_app(self).clock() - self.running_since)

    # --- layout and life -----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="play-body"):
            yield Board(self.look, self.state, id="board")
            self.status = GameStatus(f"[b]{self.puzzle.title}[/b]  {self.puzzle.size_label}", ascii_only=self.look.ascii,
                                     animate_spinner=koma_app(self).animate_spinner, id="side")
            yield self.status
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = f"{self.puzzle.title} {self.puzzle.size_label}" + (f" · daily {self.daily}" if self.daily else "")
        self.warm_up()
        self.status.message = self.message
        self.update_status()
        self._save()
        if self.solve_at_once:
            self.call_after_refresh(self.action_solve)

    def on_screen_suspend(self) -> None:
        self._pause_clock()
        self._save()
        self.playback.hold(True)
        self.status.hold(True)

    def on_screen_resume(self) -> None:
        self._start_clock()
        self.playback.hold(False)
        self.status.hold(False)

    def on_unmount(self) -> None:
        self.cancel_jobs()
        self._pause_clock()
        self._save()

    def watch_message(self, message: str) -> None:
        if self.is_mounted:
            self.status.message = message

    # --- the clock: one tick a second, only while it runs ----------------------------------------
    def _start_clock(self) -> None:
        if self.running_since is None and self.position > 0 and not self.won and self.is_current:
            self.running_since = koma_app(self).clock()
            self.clock_timer = self.set_interval(1.0, self._tick)

    def _pause_clock(self) -> None:
        if self.running_since is not None:
            self.seconds = self.elapsed()
            self.running_since = None
        if self.clock_timer is not None:
            self.clock_timer.stop()
            self.clock_timer = None

    def _tick(self) -> None:
        self.status.seconds = int(self.elapsed())

    # --- the side panel -------------------------------------------------------------------------
    def _distance_pending(self) -> bool:
        return self.state not in self.distances and bool(search.methods(self.puzzle)) and not self.no_optimal

    def update_status(self) -> None:
        """Set the panel's reactives; only the lines whose text changed redraw."""
        status = self.status
        status.moves = self.position
        status.seconds = int(self.elapsed())
        status.distance = self.distance_text()
        status.proof = self.proof
        status.solver = self.solver_text()

    def distance_text(self) -> str:
        state = self.state
        distance = self.distances.get(state)
        if self.puzzle.is_goal(state):
            return "[b]Solved[/b]"
        if distance is not None:
            return f"[b]{distance}[/b] move{'s' if distance != 1 else ''} from solved"
        if not search.methods(self.puzzle) or self.no_optimal:
            return "distance: no optimal solver for this size yet"
        if not self.proof.solvable:
            return "cannot reach the goal"
        if not self.warm.is_set():
            return f"{SPIN} warming up…"
        if self.job is not None and self.job.state == state:
            return "distance: the search below will tell"
        return f"{SPIN} measuring distance…"

    def solver_text(self) -> str:
        if self.job is not None:
            what = "Solving" if self.job.kind == "solve" else "Finding a hint"
            wait = "" if self.warm.is_set() else " (warming up)"
            figures = f"\n{figures_text(self.job.progress)}" if self.job.progress else ""
            return f"{SPIN} {what}{wait}…{figures}\n[dim]esc cancels[/dim]"
        return self.playback.text()

    # --- showing a new position ------------------------------------------------------------------
    def _show(self, animate: bool = True) -> None:
        board = self.query_one(Board)
        board.show(self.state, animate=animate)
        if self.hinted is not None:
            self.hinted = None
            board.set_hint()
        self._measure()
        self.update_status()
        self._save()
        self.refresh_bindings()

    def _save(self) -> None:
        if self.won:
            return
        history = self.history
        koma_app(self).store.save_game(self.game_id, SavedGame(
            self.puzzle.format(self.start), history.moves, "".join(history.origins), history.position, self.elapsed(), self.hints))
        koma_app(self).show_store_notices()

    # --- playing moves ---------------------------------------------------------------------------
    def play(self, move: str, origin: str = PLAYER) -> bool:
        """Play ``move`` if it is legal here; ``origin`` is the player's (``p``) or Koma's playback (``k``)."""
        if move not in self.puzzle.moves(self.state) or (self.won and origin != KOMA):
            if origin != KOMA:
                self.app.bell()
            return False
        if origin != KOMA:  # the player takes over from Koma's playback or search
            self._take_over()
            self.message = ""
            if move == self.hinted:
                origin = HINT
        self.history.play(move, self.puzzle.apply(self.state, move), origin)
        self._start_clock()
        self._show()
        if self.puzzle.is_goal(self.state):
            self.on_goal()
        return True

    def on_goal(self) -> None:
        self._pause_clock()
        self.won = True
        store = koma_app(self).store
        seconds, moves = self.seconds, plural(self.position, "move")
        optimal = self.distances.get(self.start)
        if self.history.koma_played:
            if not self.win_recorded:
                store.record_koma_finish(self.stats_id)
            self.message = (f"[b]Solved by Koma[/b] ({moves}" + (f"; optimal {optimal}" if optimal is not None else "")
                            + "). Not counted as yours.")
        else:
            optimal_text = f"optimal {optimal}" if optimal is not None else "optimal unknown"
            hints = f", {plural(self.hints, 'hint')}" if self.hints else ""
            message = f"[b]Solved in {moves}; {optimal_text}[/b]\ntime {clock_text(seconds)}{hints}"
            if not self.win_recorded:
                stats = store.record_win(self.stats_id, self.position, optimal, seconds)
                message += f"\n[dim]solved {stats.solved} · best time {clock_text(stats.best_seconds)}[/dim]"
                if self.daily:
                    rank = store.record_daily(self.daily, self.stats_id, self.position, optimal, seconds, self.hints)
                    if rank is not None:
                        message += f"\nDaily {self.daily}: you rank [b]#{rank}[/b] (b: leaderboard)"
                self.notify(f"Solved in {moves}; {optimal_text}. Time {clock_text(seconds)}.", title="Well done!")
            self.message = message
        self.win_recorded = True
        store.clear_game(self.game_id)
        self.update_status()
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
        if key == "space" and self.playback.active:
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
        piece = next((p for p in self.query_one(Board).pieces if p.covers(cell, self.puzzle.width)), None)
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
    def _take_over(self) -> None:
        self.playback.stop()
        self.cancel_job(quiet=True)

    def action_undo(self) -> None:
        if not self.history.can_undo:
            self.app.bell()
            return
        self._take_over()
        self._unwin()
        self.history.undo()
        self.message = ""
        self._start_clock()
        self._show()

    def action_redo(self) -> None:
        if not self.history.can_redo:
            self.app.bell()
            return
        self._take_over()
        self.history.redo()
        self.message = ""
        self._show()
        if self.puzzle.is_goal(self.state):
            self.on_goal()

    def action_restart(self) -> None:
        if self.position == 0:
            return
        self._take_over()
        self._unwin()
        self.history.restart()
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
        if wanted:
            if self.distance_job is not None:
                self.distance_job.cancel()
            self.distance_job = SolverJob("distance", wanted[0], items=list(range(len(wanted))))
            self.measure_in_background(self.distance_job, wanted)

    @work(thread=True, exclusive=True, group="distance", name="distance")
    def measure_in_background(self, job: SolverJob, states: list[tuple]) -> None:
        with koma_app(self).stop_flags.registered(job):
            try:
                for s in states:
                    if job.cancelled:
                        return
                    self.post_message(JobDone(job, search.solve(self.puzzle, s, stop=job.stop)))
            except (Cancelled, KomaError, IndexError):
                return

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
                with koma_app(self).stop_flags.registered(SolverJob("warm-up", near)) as job:
                    search.solve(self.puzzle, near, stop=job.stop)
        except Cancelled:
            problem = "cancelled"
        except Exception as error:  # a solver problem must not take the game down
            problem = str(error) or error.__class__.__name__
        self.post_message(WarmedUp(problem, time.perf_counter() - began))

    @on(WarmedUp)
    def _warmed_up(self, event: WarmedUp) -> None:
        self.warm.set()
        koma_app(self).warm_seconds.setdefault(self.game_id, event.seconds)
        if event.problem and event.problem != "cancelled":
            self.message = f"Solver unavailable: {event.problem}"
        self._measure()
        self.update_status()
        self.refresh_bindings()

    # --- solving and hints -----------------------------------------------------------------------
    def action_solve(self) -> None:
        if self.puzzle.is_goal(self.state):
            self.message = "Already solved. Press n for a new game."
        elif self.playback.active or self.job is None or self.job.kind != "solve":
            if self.playback.stop():
                self.message = ""
            self.cancel_job(quiet=True)
            self.start_job("solve")
        self.update_status()

    def action_hint(self) -> None:
        state = self.state
        if self.puzzle.is_goal(state):
            self.message = "Already solved."
        elif state in self.solution_path[:-1]:
            self.show_hint(self.solution_moves[self.solution_path.index(state)], self.solution_optimal)
        elif self.job is None:
            self.start_job("hint")

    def start_job(self, kind: str) -> None:
        missing = ""
        if not search.methods(self.puzzle):
            missing = f"Koma has no optimal solver for the {self.puzzle.title} yet."
        elif not self.proof.solvable:
            missing = f"This board cannot be solved: {self.proof.summary}."
        if missing:
            self.message = missing
            self.app.bell()
            return
        self.job = SolverJob(kind, self.state)
        if self.distance_job is not None and not self.puzzle.enumerable:
            self.distance_job.cancel()  # the solution answers the distance as well: one search, not two
        self.run_solver(self.job)
        self.update_status()
        self.refresh_bindings()

    @work(thread=True, exclusive=True, group="solver", name="solver")
    def run_solver(self, job: SolverJob) -> None:
        """Wait for the warm-up, then solve ``job.state`` optimally, posting progress and the answer."""
        with koma_app(self).stop_flags.registered(job):
            try:
                while not self.warm.wait(0.02):
                    if job.cancelled:
                        return
                progress = throttled(lambda info: self.post_message(JobProgress(job, dict(info))))
                solution = search.solve(self.puzzle, job.state, stop=job.stop, progress=progress)
            except Cancelled:
                return
            except UnsolvableError as error:
                self.post_message(JobFailed(job, str(error)))
                return
            except KomaError as error:
                self.post_message(JobFailed(job, f"Koma cannot solve this: {error}"))
                return
            except Exception as error:  # pragma: no cover - a solver bug: report it, keep the game
                self.post_message(JobFailed(job, f"The solver failed: {error!r}"))
                return
        if not job.cancelled:
            self.post_message(JobDone(job, solution))

    @on(JobProgress)
    def _solve_progress(self, event: JobProgress) -> None:
        if event.job is self.job:
            event.job.progress = event.info
            self.status.solver = self.solver_text()

    @on(JobFailed)
    def _solve_failed(self, event: JobFailed) -> None:
        if event.job is self.job:
            self.job = None
            self.message = event.error
            self.update_status()
            self.refresh_bindings()

    @on(JobDone)
    def _solve_done(self, event: JobDone) -> None:
        solution: Solution = event.result
        path = [tuple(s) for s in solution.path]
        if solution.optimal:
            for k, s in enumerate(path):
                self.distances[s] = len(path) - 1 - k
        job = event.job
        if job.kind == "distance":
            self.no_optimal = self.no_optimal or not solution.optimal
        elif job is self.job:
            self.job = None
            self.solution_path, self.solution_moves = path, list(solution.moves)
            self.solution_optimal = solution.optimal
            koma_app(self).last_solve_seconds = time.monotonic() - job.began
            if job.state == self.state and job.kind == "hint":
                self.show_hint(solution.moves[0], solution.optimal)
            elif job.state == self.state:
                kind = "optimal" if solution.optimal else f"NOT proven optimal: {solution.method} method"
                self.message = (f"Koma found {plural(solution.length, 'move')} ({kind}; {solution.nodes:,} nodes, "
                                f"{solution.seconds:.2f} s).")
                self.playback.start(list(solution.moves))
            self.refresh_bindings()
        self.update_status()

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
            what = f"move the highlighted piece {DIRECTIONS.get(move, move)}"
        self.hinted = move
        self.hints += 1
        distance = self.distances.get(state)
        self.message = (f"Hint: {what}" + (f" ({distance} to go)." if distance is not None else ".")
                        + ("" if optimal else " (Not proven optimal.)"))
        self.update_status()
        self._save()

    def cancel_job(self, quiet: bool = False) -> bool:
        """Stop the solve or hint under way (its worker and its kernel); False if there was none."""
        job = self.job
        if job is None:
            return False
        job.cancel()
        self.workers.cancel_group(self, "solver")
        self.job = None
        if not quiet:
            self.message = "Cancelled."
        self.update_status()
        self.refresh_bindings()
        return True

    def cancel_jobs(self) -> None:
        """Stop every job of this screen: the solver, the distance search and the playback."""
        if self.job is not None:
            self.job.cancel()
            self.job = None
        if self.distance_job is not None:
            self.distance_job.cancel()
        self.playback.stop()
        self.workers.cancel_group(self, "solver")
        self.workers.cancel_group(self, "distance")

    # --- playback ----------------------------------------------------------------------------------
    def _playback_stepped(self, step: Step) -> None:
        if step is Step.MISFIT:
            self.message = "The playback no longer fits the board."
        self.update_status()
        self.refresh_bindings()

    def action_pause(self) -> None:
        if self.playback.active:
            self.playback.toggle_pause()
            self.update_status()
            self.refresh_bindings()

    def action_speed(self, delta: int) -> None:
        self.playback.change_speed(delta)
        self.update_status()

    def action_step(self, delta: int) -> None:
        if not (self.playback.active and self.playback.paused):
            self.app.bell()
        elif delta > 0:
            self._playback_stepped(self.playback.forward())
        elif self.history.last_origin == KOMA:
            self._unwin()
            self.playback.back(self.moves[self.position - 1])
            self.history.undo()
            self._show()
        else:
            self.app.bell()

    # --- the rest -------------------------------------------------------------------------------------
    def action_escape(self) -> None:
        if self.cancel_job():
            self._measure()  # the cancelled job would have answered the distance too
        elif self.playback.stop():
            self.message = "Playback stopped."
            self.update_status()
            self.refresh_bindings()
        else:
            self.app.pop_screen()

    def action_proof(self) -> None:
        koma_app(self).open_proof(self.puzzle, self.state, self.proof)

    def action_new_game(self) -> None:
        if self.daily:
            self.message = "This is the daily board: everyone plays the same one. Esc goes back."
            return
        koma_app(self).open_new_game(self.puzzle, self.warm.is_set(), self._new_game_chosen)

    def _new_game_chosen(self, choice: tuple[str, object] | None) -> None:
        if choice is None:
            return
        kind, value = choice
        if kind == "board":
            self.post_message(NewBoard(tuple(cast(tuple, value)), "A new game from your board."))
        else:
            self.generate(kind, cast("int | None", value))

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
        if event.state:
            self.new_game(event.state, event.note)
        else:
            self.message = event.note

    def new_game(self, state: tuple, note: str = "") -> None:
        self._take_over()
        self._pause_clock()
        self.history = GameHistory.starting_at(state)
        self.hints, self.seconds = 0, 0.0
        self.won = self.win_recorded = False
        self.solution_path, self.solution_moves = [], []
        self.message = note
        self._show()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if (action == "undo" and not self.history.can_undo) or (action == "redo" and not self.history.can_redo):
            return None
        if action in ("solve", "hint") and (self.won or not search.methods(self.puzzle)):
            return None
        if action == "step" and not (self.playback.active and self.playback.paused):
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
        koma_app(self).action_leaderboard(self.stats_id, self.daily)


class DailyUraPlayScreen(UraPlayScreen):
    BINDINGS = DAILY_BINDINGS
    action_leaderboard = DailyPlayScreen.action_leaderboard


def play_screen_for(puzzle: Puzzle, **options) -> PlayScreen:
    if options.get("daily"):
        return (DailyUraPlayScreen if puzzle.key == "ura" else DailyPlayScreen)(puzzle, **options)
    return (UraPlayScreen if puzzle.key == "ura" else PlayScreen)(puzzle, **options)
