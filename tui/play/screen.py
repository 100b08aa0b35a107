"""The play screen, one implementation for every puzzle: it renders a game and dispatches keys to it.

The game is a :class:`~tui.game.session.GameSession` (its moves, clock, hints, outcome and saves, in
``tui.game``), held by a ``HeldGame`` (the saved game read first, keys typed meanwhile); the auto-solve a
``PlaybackController``, the searches a ``PlaySolver`` (answers come back as tui.messages), and the side panel a
``GameStatus`` whose reactives redraw only the lines that changed.  Where the
game is (loading, ready, playing, solving, playback, paused, won) is one reactive, :attr:`PlayScreen.phase`: its
watcher alone runs the clock and the key bar, and the panel binds to it.  The screen reads its saved game itself
(:meth:`HeldGame.read_saved_game`) and draws no board until the answer: a board it would replace is never shown.
The store's news arrives through :meth:`PlayScreen.storage_news`: the screen never waits for the database.
Escape or leaving the screen cancels a search; a hidden screen holds its timers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.timer import Timer

from solver import solving as search
from solver.puzzle import Puzzle
from tui.app_view import koma_app
from tui.game.daily import implausible_daily_game
from tui.game.history import KOMA, PLAYER
from tui.game.live import heartbeat
from tui.game.phase import Phase
from tui.game.playback import PlaybackController, Step
from tui.game.session import GameSession, Push, Saver, session_view
from tui.game.solver_jobs import SolverJob
from tui.game.writes import Guard
from tui.messages import BoardGenerated, BoardNotGenerated, DistanceMeasured, HintFound, JobFailed, JobProgress, OfferMade, SolutionFound, WarmedUp
from tui.patches.rendering import DirtyOnlyRendering
from tui.play.held_game import HeldGame
from tui.play.keys import PLAY_BINDINGS, bound_key
from tui.play.solving import PlaySolver, failure_text, found_text
from tui.storage.service import Answer, Finished, GameBehind, GameKeptApart, News, SavingDelayed, SavingResumed
from tui.widgets.board import Board
from tui.widgets.game_texts import outcome_message, playback_text, recorded_text, saving_text
from tui.widgets.keybar import KeyBar
from tui.widgets.looks import look_for
from tui.widgets.status import GameStatus
from tui.widgets.titlebar import TitleBar
from tui.workers import read_store


class PlayScreen(DirtyOnlyRendering):
    """Play one puzzle: keyboard, mouse, undo/redo, hints and an animated optimal auto-solve."""

    BINDINGS = PLAY_BINDINGS
    EARLY_BREAKPOINTS = True  # one restyle of the screen as it opens (nothing on it scrolls into view)

    message: reactive[str] = reactive("", init=False)
    phase: reactive[Phase] = reactive(Phase.LOADING, init=False)

    def __init__(self, puzzle: Puzzle, saver: Saver, *, start: tuple | None = None, note: str = "",
                 ascii_only: bool = False, daily: str | None = None, solve: bool = False, now: Callable[[], float] | None = None):
        """Play ``puzzle`` from ``start``; without one (or on a daily board), the saved game is read first and no
        board is drawn until it is (a new board then, if there is none)."""
        super().__init__(classes=f"play -{puzzle.key}")
        self.puzzle = puzzle
        self.reads_saved_game = start is None or bool(daily)  # False: the board given is saved at once (on_mount)
        session = GameSession(puzzle, saver, now or (lambda: koma_app(self).clock()), start=start, daily=daily)
        self.held_game = HeldGame(self, session, reads_saved_game=self.reads_saved_game, taken=self._saved_game_taken,
                                  busy=lambda: self.job is not None or self.playback.active, play=self.play)
        self.set_reactive(PlayScreen.phase, Phase.LOADING if self.reads_saved_game else Phase.READY)
        self.look = look_for(puzzle, ascii_only)
        self.solve_at_once = solve
        self.clock_timer: Timer | None = None  # ticks once a second while the clock runs
        self.shown = True  # False while another screen covers this one (its clock and timers hold)
        self.played = False  # a move was played (or undone, redone) since the game was shown: the clock may run
        self.solver = PlaySolver(self, puzzle)
        self.warm, self.distances = self.solver.warm, self.solver.distances  # the same objects, for short
        self.solver.on_measuring = self.update_status
        self.playback = PlaybackController(self.set_interval, lambda move: self.play(move, KOMA))
        self.playback.on_step = self._playback_stepped
        self._keys: tuple[bool, ...] = ()  # what the key bar's keys were last drawn for
        self._hint_drawn = False
        self.status: GameStatus  # made in compose, when the app is there to say how to spin
        self.board: Board  # made in compose
        if note:
            self.set_reactive(PlayScreen.message, note)

    # --- the game (the session's, read through the screen for short) ----------------------------------
    @property
    def session(self) -> GameSession:
        return self.held_game.session

    history = session_view("history")
    won = session_view("won")
    daily = session_view("daily")
    stats_id = session_view("stats_key")
    game_id = session_view("save_key", "The save key (kept under this name for the screens that open games by it).")
    hints = session_view("hints")
    clock = session_view("clock")
    state = session_view("state")
    start = session_view("start")
    position = session_view("position")
    proof = session_view("proof")

    @property
    def job(self) -> SolverJob | None:
        return self.solver.job


    def key_for(self, binding_id: str, default: str) -> str:
        return bound_key(self, binding_id, default)

    # --- layout and life -----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        if self.held_game.awaiting_saved_game:
            self.held_game.read_saved_game()  # answered at once if the save is still in the outbox, else usually before on_mount
            note = self.held_game.resume_before_composing()
            if note:
                self.set_reactive(PlayScreen.message, note)
            if note is not None:
                self.set_reactive(PlayScreen.phase, self._phase_now())
        yield TitleBar()
        with Horizontal(id="play-body"):
            self.board = Board(self.look, self.state, id="board")
            self.board.visible = self.phase is not Phase.LOADING  # no board before the saved one (watch_phase)
            yield self.board
            self.status = GameStatus(f"[b]{self.puzzle.title}[/b]  {self.puzzle.size_label}", ascii_only=self.look.ascii,
                                     animate_spinner=koma_app(self).animate_spinner, id="side", beat=self._beat)
            yield self.status
        yield KeyBar()
        self.status.data_bind(PlayScreen.phase)

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = f"{self.puzzle.title} {self.puzzle.size_label}" + (f" · daily {self.daily}" if self.daily else "")
        self.call_after_refresh(self.solver.warm_up)  # the board is drawn first; the background work comes after
        if koma_app(self).storage.in_trouble:
            self.storage_news(SavingDelayed(koma_app(self).storage.trouble_reason, 0))
        if not self.reads_saved_game:
            self.session.save()
        elif not self.held_game.take_early_saved_game() and not self.held_game.awaiting_saved_game:
            self.held_game.play_held_moves()  # resumed as the screen was composed (else: read meanwhile, taken now)
        self.status.message = self.message  # after the saved game is taken: its note ("Welcome back…") is the message
        self.update_status()
        if self.solve_at_once:
            self.call_after_refresh(self.action_solve)

    def _beat(self) -> None:
        """The live heartbeat: the game stays in the watch list; the answer says how many watch it."""
        key = self.session.save_key

        def answered(answer: Answer) -> None:
            if answer.known:
                self.status.watchers = answer.value

        read_store(self, lambda store: heartbeat(store, key), answered)

    def on_screen_suspend(self) -> None:
        self.shown = False
        self._run_clock()
        self.session.save()
        self.playback.hold(True)  # a hidden screen does no work
        self.status.hold(True)

    def on_screen_resume(self) -> None:
        self.shown = True
        self._run_clock()
        self.playback.hold(False)
        self.status.hold(False)

    def on_unmount(self) -> None:
        self.cancel_jobs()
        self._run_clock(False)
        if not self.held_game.awaiting_saved_game:
            self.session.save()

    def watch_message(self, message: str) -> None:
        if self.is_mounted:
            self.status.message = message

    # --- the phase: the one place the clock runs or stops and the keys turn on or off -----------
    def _phase_now(self) -> Phase:
        if self.held_game.awaiting_saved_game:
            return Phase.LOADING
        if self.won:
            return Phase.WON
        if self.playback.active:
            return Phase.PAUSED if self.playback.paused else Phase.PLAYBACK
        if self.job is not None:
            return Phase.SOLVING
        return Phase.PLAYING if self.played else Phase.READY

    def watch_phase(self, phase: Phase) -> None:
        # hidden by its own style, not by a class on the screen: a class would restyle the whole screen when the
        # saved game arrives (about 15 ms of opening a puzzle)
        self.board.visible = phase is not Phase.LOADING
        self._run_clock()
        self.refresh_bindings()

    # --- the clock: one tick a second, only while it runs ----------------------------------------
    def _run_clock(self, run: bool | None = None) -> None:
        """Run the clock if the phase says so and the screen is shown (``run`` overrides); the one place it
        starts or stops.  The session's clock starts on the first move (the push), this keeps it and its tick."""
        if run is None:
            run = self.phase.clock_runs and self.played and self.shown
        if run:
            self.clock.start()
            if self.clock_timer is None:
                self.clock_timer = self.set_interval(1.0, self._tick)
        else:
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
        status.game_id = self.session.board_id
        status.moves = self.position
        status.seconds = int(self.clock.elapsed())
        status.distance = self.solver.distance_text(self.state, self.proof.solvable)
        status.proof = self.proof
        status.solver = self.solver.job_text() or playback_text(self.playback.lines(self.key_for, status.line_width()))

    def refresh_view(self) -> None:
        """After the game, the solver or the playback changed: the phase (its watcher runs the clock and the keys),
        the side panel's lines that changed, and the key bar when undo or redo turned on or off."""
        self.phase = self._phase_now()
        self.update_status()
        keys = (self.history.can_undo, self.history.can_redo)
        if keys != self._keys:
            self._keys = keys
            self.refresh_bindings()

    # --- showing a new position ------------------------------------------------------------------
    def _show(self, animate: bool = True, save: bool = False) -> None:
        """Draw the position shown (the session saved it already; ``save`` for a change made here)."""
        board = self.board
        board.show(self.state, animate=animate)
        if self._hint_drawn and self.session.hinted is None:
            self._hint_drawn = False
            board.set_hint()
        self.solver.measure(self.state, self.start)
        self.refresh_view()
        if save:
            self.session.save()

    # --- the game held: the saved one taken, the store's news of it, a new one in its place ---------------
    def _saved_game_taken(self, note: str) -> None:
        if note:
            self.message = note
        self._show(animate=False)

    def storage_news(self, news: News) -> None:
        """Saving delayed or back, a finish recorded, a game kept apart or behind a newer save: one line each, never a
        toast per key."""
        if isinstance(news, SavingDelayed):
            self.status.saving = saving_text(news.reason)
        elif isinstance(news, SavingResumed):
            self.status.saving = saving_text(None, news.seconds)
        elif isinstance(news, GameBehind) and news.key == self.session.save_key and self.session.guard is Guard.NONE:
            self.session.stop_replacing()
            self.message = ("A newer save of this game is stored (played in another session). This game will not "
                            "replace it: open the puzzle again to resume that one.")
        elif isinstance(news, GameKeptApart) and news.key == self.session.save_key:
            self.message = "Your saved game is back. This game was not saved over it: open the puzzle again to resume it."
        elif isinstance(news, Finished) and news.key == self.session.save_key and self.won and self.message:
            unverified = (implausible_daily_game(self.session.stats_key, self.session.position, self.session.clock.seconds)
                          if self.daily else None)
            self.message += recorded_text(news.stats, news.rank, self.daily, self.key_for("play.leaderboard", "b"),
                                          unverified)

    def save_game(self, *, pause: bool = False) -> None:
        """Save the game now (the app's signals and restarts ask it); ``pause`` stops its clock first."""
        self.held_game.save(pause=pause)

    def action_new_game(self) -> None:
        if self.daily:
            self.message = f"This is the daily board: everyone plays the same one. {self.key_for('play.escape', 'Esc')} goes back."
            return
        from tui.play.new_game import NewGameScreen

        self.app.push_screen(NewGameScreen(self.puzzle, self.warm.is_set()), self._new_game_chosen)

    def _new_game_chosen(self, choice: tuple[str, object] | None) -> None:
        if choice is None:
            return
        kind, value = choice
        if kind == "board":
            self.new_game(tuple(cast(tuple, value)), "A new game from your board.")
            return
        self.solver.generate(cast("int | None", value) if kind == "distance" else None)

    def on_board_generated(self, event: BoardGenerated) -> None:
        self.new_game(event.board, f"A new game, exactly {event.distance} moves from solved." if event.distance
                      else "A new random game.")

    def on_board_not_generated(self, event: BoardNotGenerated) -> None:
        self.message = str(event.error)

    def new_game(self, state: tuple, note: str = "") -> None:
        self._take_over()
        self.held_game.replaced()
        self.played = False  # the new board waits for its first move
        self.session.new_game(state)
        self.solver.solution_path, self.solver.solution_moves = [], []
        self.message = note
        self._show()

    # --- playing moves ---------------------------------------------------------------------------
    def play(self, move: str, origin: str = PLAYER) -> bool:
        """Play ``move`` if legal: the player's (``p``; ``h`` if it follows the hint shown) or Koma's playback (``k``)."""
        if origin == PLAYER and self.held_game.hold(move):  # the saved game is being read: played on it
            return True
        before = self.state
        pushed = self.session.push(move, origin)  # the session checks the move: the screen does not again
        if pushed is Push.ILLEGAL:
            if origin != KOMA:
                self.app.bell()
            return False
        if origin != KOMA:  # the player takes over from Koma's playback or search
            self._take_over()
            self.message = ""
            self.solver.moved()
        self.held_game.replaced()  # a move was played: a saved game read late does not replace it
        self.played = True
        self._show()
        if pushed is Push.WON:
            self.on_goal()
        elif origin != KOMA:
            koma_app(self).announce(f"{self.look.move_text(before, move)}, move {self.position}.")
        return True

    def on_goal(self) -> None:
        outcome = self.session.finish(self.distances.get(self.start))
        self.message = outcome_message(outcome)
        koma_app(self).announce(f"Solved in {self.position} moves.")
        if outcome.notice():
            self.notify(outcome.notice(), title="Well done!")
        self.refresh_view()

    def action_arrow(self, direction: str) -> None:
        if self.look.arrows_move:
            self.play(direction)
        else:
            d_row, d_col = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}[direction]
            self.action_cursor(d_row, d_col)

    def action_cursor(self, d_row: int, d_col: int) -> None:
        self.board.move_cursor(d_row, d_col)

    def action_flip(self, move: str) -> None:
        self.play(move)

    def action_activate(self, key: str) -> None:
        if key == "space" and self.playback.active:
            self.action_pause()
            return
        board = self.board
        if self.look.identity_by_cell:  # Ura-omote: Enter turns the cursor's row, Space its column
            row, col = divmod(board.cursor, self.puzzle.width)
            self.play(chr(ord("A") + row) if key == "enter" else str(col + 1))
            return
        self.play_cell(board.cursor)

    def play_cell(self, cell: int) -> None:
        """Slide the piece on ``cell`` into the blank: the whole line between them when it is further along the
        blank's row or column (a click or a tap on it)."""
        moves = self.look.line_moves_for_cell(self.puzzle, self.state, cell)
        if not moves:
            self.app.bell()
        for move in moves:
            if not self.play(move):
                break

    def action_read_board(self) -> None:
        """The board row by row, in the panel and to a screen reader."""
        self.message = "; ".join(self.look.rows_text(self.state)) + "."
        koma_app(self).announce(self.message)

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
        self._travel(self.session.undo)

    def action_redo(self) -> None:
        self._travel(self.session.redo)

    def action_restart(self) -> None:
        if self.position:
            self._travel(self.session.restart, f"Back to the start ({self.key_for('play.redo', 'U')} redoes your moves).")

    def _travel(self, step: Callable[[], bool], message: str = "") -> None:
        """Undo, redo or restart (``step``, the session's): Koma stops; a redo that reaches the goal wins again."""
        if not step():
            self.app.bell()  # nothing to undo or redo
            return
        self.held_game.replaced()
        self.played = True
        self._take_over()
        self.message = message
        self._show()
        if self.session.reached_goal_again:
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
            self.message = f"Already solved. Press {self.key_for('play.new', 'n')} for a new game."
        elif not self._play_offer() and (self.playback.active or self.job is None or self.solver.hinting):  # a waiting offer plays instead
            if self.playback.stop():
                self.message = ""
            self.cancel_job(quiet=True)
            self.start_job()
        self.refresh_view()

    def action_hint(self) -> None:
        state = self.state
        known = self.solver.known_move(state)
        if self.puzzle.is_goal(state):
            self.message = "Already solved."
        elif known is not None:
            self.show_hint(known, self.solver.solution_optimal)
        elif self.job is None:
            self.start_job(hint=True)

    def start_job(self, *, hint: bool = False) -> None:
        missing = self.solver.why_not(self.proof)
        if missing:
            self.message = missing
            self.app.bell()
            return
        self.solver.start(self.state, hint=hint)
        self.refresh_view()

    @on(JobProgress)
    def _solve_progress(self, event: JobProgress) -> None:
        if event.job is self.job:
            event.job.progress = event.info
            self.status.solver = self.solver.job_text()

    @on(JobFailed)
    def _solve_failed(self, event: JobFailed) -> None:
        if event.job is self.job:  # a failed distance is not told: the panel keeps measuring
            self.solver.cancel()
            self.message = failure_text(event.error)
            self.refresh_view()

    @on(DistanceMeasured)
    def _distance_measured(self, event: DistanceMeasured) -> None:
        self.solver.learn(event.solution, measured=True)
        self.refresh_view()

    @on(HintFound)
    def _hint_found(self, event: HintFound) -> None:
        if self.solver.finished(event.job, event.solution) and event.job.state == self.state:
            self.show_hint(event.solution.moves[0], event.solution.optimal)
        self.refresh_view()

    @on(SolutionFound)
    def _solution_found(self, event: SolutionFound) -> None:
        if self.solver.finished(event.job, event.solution) and event.job.state == self.state:
            self.message = found_text(event.solution)
            self.playback.start(list(event.solution.moves))
        elif self.solver.taken is not None and self.job is None and event.job.state != self.state:
            self.message = self.solver.proved_text(event.solution)  # a proof that ends while the offer was played
        self.refresh_view()

    # --- the 24-puzzle's proof (tui.play.proving): the reduction's solution offered while it goes on --------------
    @on(OfferMade)
    def _offer_made(self, event: OfferMade) -> None:
        if message := self.solver.offered(event.job, event.solution):
            self.message = message
            self.refresh_view()

    def _play_offer(self) -> bool:
        """Play the reduction's solution offered while the proof goes on, if one waits; whether it did."""
        if self.solver.offer is None or self.job is None or self.playback.active:
            return False
        moves, self.message = self.solver.take_offer()
        self.playback.start(moves)
        return True

    def show_hint(self, move: str, optimal: bool = True) -> None:
        cells, lines, what = self.look.hint(self.puzzle, self.state, move)
        self.board.set_hint(cells, lines)
        self._hint_drawn = True
        self.session.hint_shown(move)
        distance = self.distances.get(self.state)
        self.message = (f"Hint: {what}" + (f" ({distance} to go)." if distance is not None else ".") + ("" if optimal else " (Not proven optimal.)"))
        self.update_status()

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
        self.refresh_view()

    def action_step(self, delta: int) -> None:
        if not (self.playback.active and self.playback.paused):
            self.app.bell()
        elif delta > 0:
            self._playback_stepped(self.playback.forward())
        else:
            won, move = self.won, self.session.take_back_koma_move()
            if move is None:
                self.app.bell()
                return
            self.message = "" if won else self.message
            self.playback.back(move)
            self._show()

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
        from tui.play.parity_proof import ProofScreen

        self.app.push_screen(ProofScreen(self.puzzle, self.state, self.proof, ascii_only=koma_app(self).ascii_only))

    def action_copy_id(self) -> None:
        self.app.copy_to_clipboard(self.status.game_id)  # OSC 52: reaches the player's terminal over SSH too
        self.notify(f"Copied the game ID {self.status.game_id}", timeout=3)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if ((action == "undo" and not self.history.can_undo) or (action == "redo" and not self.history.can_redo)
                or (action in ("solve", "hint") and (self.won or not search.methods(self.puzzle)))
                or (action == "step" and not (self.playback.active and self.playback.paused))):
            return None  # greyed out in the key bar
        return not (action == "flip" and parameters and parameters[0] not in self.puzzle.moves(self.state))

