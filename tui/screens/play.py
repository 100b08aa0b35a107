"""The play screen, one implementation for every puzzle: board, side panel, undo/redo, hints, auto-solve.

The rules come from the ``Puzzle``; the moves are a ``GameHistory`` (tui.game.history), the auto-solve a ``PlaybackController``,
the searches a ``PlaySolver`` (answers come back as tui.messages), and the side panel a ``GameStatus`` whose reactives redraw
only the lines that changed.  Escape or leaving the screen cancels a search; a hidden screen holds its timers.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import cast

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.timer import Timer

from solver import search
from solver.puzzles import ids
from solver.puzzles.base import Proof, Puzzle, Solution

from ..app_view import koma_app
from ..game.clock import GameClock
from ..game.daily import puzzle_id
from ..game.history import HINT, KOMA, PLAYER, GameHistory, resumed
from ..game.jobs import SolverJob
from ..game.live import heartbeat
from ..game.playback import PlaybackController, Step
from ..game.results import Finish, record_finish
from ..game.store import SavedGame
from ..messages import JobDone, JobFailed, JobProgress, OfferMade, WarmedUp
from ..rendering import DirtyOnlyRendering
from ..widgets.board import Board
from ..widgets.keybar import KeyBar
from ..widgets.looks import look_for
from ..widgets.status import GameStatus
from ..widgets.titlebar import TitleBar
from .play_keys import PLAY_BINDINGS
from .play_solver import PlaySolver, failure_text, found_text


class PlayScreen(DirtyOnlyRendering):
    """Play one puzzle: keyboard, mouse, undo/redo, hints and an animated optimal auto-solve."""

    BINDINGS = PLAY_BINDINGS

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
        self.clock = GameClock(lambda: koma_app(self).clock())
        self.clock_timer: Timer | None = None  # ticks once a second while the clock runs
        self.solver = PlaySolver(self, puzzle)
        self.warm, self.distances = self.solver.warm, self.solver.distances  # the same objects, for short
        self.playback = PlaybackController(self.set_interval, lambda move: self.play(move, KOMA))
        self.playback.on_step = self._playback_stepped
        self.won = self.win_recorded = False
        self._proof: tuple[tuple, Proof] | None = None
        self._keys: tuple[bool, ...] = ()  # what the key bar's keys were last drawn for
        self.status: GameStatus  # made in compose, when the app is there to say how to spin
        self.history = self._resume(start, saved)
        if note:
            self.set_reactive(PlayScreen.message, note)

    def _resume(self, start: tuple | None, saved: SavedGame | None) -> GameHistory:
        history = resumed(self.puzzle, saved) if start is None and saved is not None else None
        if history is not None and saved is not None:
            self.clock.seconds, self.hints = saved.seconds, saved.hints
            self.set_reactive(PlayScreen.message, "Welcome back: your game is as you left it.")
            return history
        return GameHistory.starting_at(start if start is not None else self.puzzle.random_state(random.SystemRandom().randrange(2**32)))

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
    def job(self) -> SolverJob | None:
        return self.solver.job

    @property
    def proof(self) -> Proof:
        if self._proof is None or self._proof[0] != self.state:
            self._proof = (self.state, self.puzzle.proof(self.state))
        return self._proof[1]

    # --- layout and life -----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="play-body"):
            yield Board(self.look, self.state, id="board")
            self.status = GameStatus(f"[b]{self.puzzle.title}[/b]  {self.puzzle.size_label}", ascii_only=self.look.ascii,
                                     animate_spinner=koma_app(self).animate_spinner, id="side",
                                     beat=lambda: heartbeat(koma_app(self).store, self.game_id))
            yield self.status
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = f"{self.puzzle.title} {self.puzzle.size_label}" + (f" · daily {self.daily}" if self.daily else "")
        self.call_after_refresh(self.solver.warm_up)  # the board is drawn first; the background work comes after
        self.status.message = self.message
        self.update_status()
        self._save()
        if self.solve_at_once:
            self.call_after_refresh(self.action_solve)

    def on_screen_suspend(self) -> None:
        self._pause_clock()
        self._save()
        self.playback.hold(True)  # a hidden screen does no work
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
        if self.position > 0 and not self.won and self.is_current and self.clock.start():
            self.clock_timer = self.set_interval(1.0, self._tick)

    def _pause_clock(self) -> None:
        self.clock.pause()
        if self.clock_timer is not None:
            self.clock_timer.stop()
            self.clock_timer = None

    def _tick(self) -> None:
        self.status.seconds = int(self.clock.elapsed())

    # --- the side panel -------------------------------------------------------------------------
    def update_status(self) -> None:
        """Set the panel's reactives; only the lines whose text changed redraw."""
        status = self.status
        status.game_id = ids.game_id(self.puzzle, self.start)
        status.moves = self.position
        status.seconds = int(self.clock.elapsed())
        status.distance = self.solver.distance_text(self.state, self.proof.solvable)
        status.proof = self.proof
        status.solver = self.solver.job_text() or self.playback.text()

    def refresh_view(self) -> None:
        """The side panel, and the key bar when a key turned on or off (every binding is checked again then)."""
        self.update_status()
        keys = (self.history.can_undo, self.history.can_redo, self.won, self.playback.active and self.playback.paused)
        if keys != self._keys:
            self._keys = keys
            self.refresh_bindings()

    # --- showing a new position ------------------------------------------------------------------
    def _show(self, animate: bool = True) -> None:
        board = self.query_one(Board)
        board.show(self.state, animate=animate)
        if self.hinted is not None:
            self.hinted = None
            board.set_hint()
        self.solver.measure(self.state, self.start)
        self.refresh_view()
        self._save()

    def _save(self) -> None:
        if self.won:
            return
        history = self.history
        koma_app(self).store.save_game(self.game_id, SavedGame(
            self.puzzle.format(self.start), history.moves, "".join(history.origins), history.position, self.clock.elapsed(), self.hints))
        koma_app(self).show_store_notices()

    # --- playing moves ---------------------------------------------------------------------------
    def play(self, move: str, origin: str = PLAYER) -> bool:
        """Play ``move`` if legal: the player's (``p``; ``h`` if it follows the hint shown) or Koma's playback (``k``)."""
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
        finish = Finish(self.stats_id, self.position, self.clock.seconds, self.distances.get(self.start), self.hints,
                        self.history.koma_played, self.daily, self.game_id, self.puzzle.format(self.start), *self.history.played())
        self.message, notice = record_finish(koma_app(self).store, finish, first=not self.win_recorded)
        if notice:
            self.notify(notice, title="Well done!")
        self.win_recorded = True
        koma_app(self).store.clear_game(self.game_id)
        self.refresh_view()

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

    def play_cell(self, cell: int) -> None:
        move = self.look.move_for_cell(self.puzzle, self.state, cell)
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
        self._travel(self.history.undo)

    def action_redo(self) -> None:
        self._travel(self.history.redo)

    def action_restart(self) -> None:
        if self.position:
            self._travel(self.history.restart, "Back to the start (U redoes your moves).")

    def _travel(self, step: Callable[[], object], message: str = "") -> None:
        """Undo, redo or restart (``step``): Koma stops; a redo that reaches the goal wins again."""
        before = self.position
        if not step():
            self.app.bell()  # nothing to undo or redo
            return
        self._take_over()
        if self.position < before:
            self.won = False  # back before the win: play on
        self.message = message
        self._start_clock()
        self._show()
        if self.position > before and self.puzzle.is_goal(self.state):
            self.on_goal()

    @on(WarmedUp)
    def _warmed_up(self, event: WarmedUp) -> None:
        self.warm.set()
        koma_app(self).warm_seconds.setdefault(self.game_id, event.seconds)
        if event.problem and event.problem != "cancelled":
            self.message = f"Solver unavailable: {event.problem}"
        self.solver.measure(self.state, self.start)
        self.refresh_view()

    # --- solving and hints -----------------------------------------------------------------------
    def action_solve(self) -> None:
        if self.puzzle.is_goal(self.state):
            self.message = "Already solved. Press n for a new game."
        elif self.playback.active or self.job is None or self.job.kind != "solve":
            if self.playback.stop():
                self.message = ""
            self.cancel_job(quiet=True)
            self.start_job("solve")
        elif self.solver.offer is not None:  # the 5x5: play the offer while the proof goes on
            moves, self.message = self.solver.take_offer()
            self.playback.start(moves)
        self.update_status()

    def action_hint(self) -> None:
        state = self.state
        known = self.solver.known_move(state)
        if self.puzzle.is_goal(state):
            self.message = "Already solved."
        elif known is not None:
            self.show_hint(known, self.solver.solution_optimal)
        elif self.job is None:
            self.start_job("hint")

    def start_job(self, kind: str) -> None:
        missing = self.solver.why_not(self.proof)
        if missing:
            self.message = missing
            self.app.bell()
            return
        self.solver.start(kind, self.state)
        self.refresh_view()

    @on(JobProgress)
    def _solve_progress(self, event: JobProgress) -> None:
        if event.job is self.job:
            event.job.progress = event.info
            self.status.solver = self.solver.job_text()

    @on(JobFailed)
    def _solve_failed(self, event: JobFailed) -> None:
        if event.job.kind == "generate":
            self._generated(event)
        elif event.job is self.job:
            self.solver.cancel()
            self.message = failure_text(event.error)
            self.refresh_view()

    @on(JobDone)
    def _solve_done(self, event: JobDone) -> None:
        job, solution = event.job, event.result
        if job.kind == "generate":
            self._generated(event)
            return
        if not isinstance(solution, Solution):
            return  # a measuring job's end: its answers came one by one
        if job.kind == "distance":
            self.solver.learn(solution, "distance")
        elif self.solver.finished(job, solution):
            if job.state == self.state and job.kind == "hint":
                self.show_hint(solution.moves[0], solution.optimal)
            elif job.state == self.state:
                self.message = found_text(solution)
                self.playback.start(list(solution.moves))
            elif job.kind == "solve":  # proved while the offer was played
                self.message = self.solver.proved_text(solution)
        self.refresh_view()

    @on(OfferMade)
    def _offer_made(self, event: OfferMade) -> None:
        if message := self.solver.offered(event.job, event.solution):
            self.message = message
            self.refresh_view()

    def show_hint(self, move: str, optimal: bool = True) -> None:
        cells, lines, what = self.look.hint(self.puzzle, self.state, move)
        self.query_one(Board).set_hint(cells, lines)
        self.hinted = move
        self.hints += 1
        distance = self.distances.get(self.state)
        self.message = (f"Hint: {what}" + (f" ({distance} to go)." if distance is not None else ".") + ("" if optimal else " (Not proven optimal.)"))
        self.update_status()
        self._save()

    def cancel_job(self, quiet: bool = False) -> bool:
        """Stop the solve or hint under way; False if there was none."""
        if not self.solver.cancel():
            return False
        if not quiet:
            self.message = "Cancelled."
        self.refresh_view()
        return True

    def cancel_jobs(self) -> None:
        """Stop every job of this screen: the solver, the distance search and the playback."""
        self.solver.cancel_all()
        self.playback.stop()

    # --- playback ----------------------------------------------------------------------------------
    def _playback_stepped(self, step: Step) -> None:
        if step is Step.MISFIT:
            self.message = "The playback no longer fits the board."
        self.refresh_view()

    def action_pause(self) -> None:
        if self.playback.active:
            self.playback.toggle_pause()
            self.refresh_view()

    def action_speed(self, delta: int) -> None:
        self.playback.change_speed(delta)
        self.update_status()

    def action_step(self, delta: int) -> None:
        if not (self.playback.active and self.playback.paused):
            self.app.bell()
        elif delta > 0:
            self._playback_stepped(self.playback.forward())
        elif self.history.last_origin == KOMA:
            if self.won:
                self.won, self.message = False, ""
            self.playback.back(self.history.moves[self.position - 1])
            self.history.undo()
            self._show()
        else:
            self.app.bell()

    # --- the rest -------------------------------------------------------------------------------------
    def action_escape(self) -> None:
        if self.cancel_job():
            self.solver.measure(self.state, self.start)  # the cancelled job would have answered the distance too
        elif self.playback.stop():
            self.message = "Playback stopped."
            self.refresh_view()
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
            self.new_game(tuple(cast(tuple, value)), "A new game from your board.")
            return
        self.solver.generate(cast("int | None", value) if kind == "distance" else None)

    def _generated(self, event: JobDone | JobFailed) -> None:
        if isinstance(event, JobFailed):
            self.message = str(event.error)
        else:
            distance = event.job.total
            self.new_game(tuple(event.result), f"A new game, exactly {distance} moves from solved." if distance else "A new random game.")

    def new_game(self, state: tuple, note: str = "") -> None:
        self._take_over()
        self._pause_clock()
        self.history = GameHistory.starting_at(state)
        self.hints, self.clock.seconds = 0, 0.0
        self.won = self.win_recorded = False
        self.solver.solution_path, self.solver.solution_moves = [], []
        self.message = note
        self._show()

    def action_copy_id(self) -> None:
        self.app.copy_to_clipboard(self.status.game_id)  # OSC 52: reaches the player's terminal over SSH too
        self.notify(f"Copied the game ID {self.status.game_id}", timeout=3)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if ((action == "undo" and not self.history.can_undo) or (action == "redo" and not self.history.can_redo)
                or (action in ("solve", "hint") and (self.won or not search.methods(self.puzzle)))
                or (action == "step" and not (self.playback.active and self.playback.paused))):
            return None  # greyed out in the key bar
        return not (action == "flip" and parameters and parameters[0] not in self.puzzle.moves(self.state))
