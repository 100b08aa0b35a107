"""The Speed screen: timed solves of random-state scrambles by the speedsolvers' rules, 2x2 to 20x20.

The solve is a :class:`~tui.game.speed.SpeedSolve` (the clock starts on the first move, each tile's time kept) and
the session's figures come from :mod:`tui.game.averages`; the screen draws the board and the panel and dispatches
keys and clicks.  A click on a tile in the blank's row or column slides the whole line (one line move); the arrows
slide one tile, the way the tile goes, or the way the blank goes once ``i`` turns the scheme over.  Every key has
a binding id (``speed.up`` …) for ``keymap.toml``.  ``-``/``+`` step through the usual sizes and ``s`` takes any
size typed (``2x7``); a size the terminal cannot show is refused with the terminal it needs.  In BLD, space (or
enter) confirms the solve.  ``c`` steps through the colour schemes (Slidysim's Fringe, Rows-Columns, Rows, Columns,
Grids) and ``m`` turns hover control on (the blank follows the pointer, where the terminal reports its motion); both
are remembered per player (:class:`~tui.game.writes.SetSpeedLooks`).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.timer import Timer

from solver import ids
from solver import solving as search
from solver.errors import GaveUp
from tui.app_view import koma_app
from tui.ascii import Static
from tui.config.daily_secret import daily_secret
from tui.game.averages import AVERAGES, SessionSummary, result_text, seconds_text
from tui.game.daily import daily_board
from tui.game.solver_jobs import SolverJob
from tui.game.speed import (
    HOVER,
    KEYBOARD,
    MOUSE,
    SINGLE,
    LineMove,
    Play,
    SpeedResult,
    SpeedSolve,
    gave_up_text,
    optimum_plan,
    searching_text,
    speed_puzzle,
)
from tui.game.speed_events import BY_KEY, DAILY_PREFIX, Event, EventResult, EventRun, SpeedSession, daily_event, event_for
from tui.game.speed_layout import board_fits, too_small
from tui.game.speed_notation import export_solve, solve_record
from tui.game.speed_schemes import PLAIN, SCHEME_NAMES, SCHEMES, next_scheme
from tui.game.writes import SetSpeedLooks
from tui.messages import JobFailed, JobProgress
from tui.patches.rendering import DirtyOnlyRendering
from tui.screens.speed_event import SpeedEventScreen, event_name
from tui.screens.speed_import import SpeedImportScreen
from tui.screens.speed_replay import SpeedReplayScreen
from tui.screens.speed_session import SpeedSessionScreen
from tui.screens.speed_size import SpeedSizeScreen
from tui.widgets.board import Board
from tui.widgets.keybar import KeyBar
from tui.widgets.looks import SpeedLook
from tui.widgets.status import shown_id
from tui.widgets.titlebar import TitleBar
from tui.workers import Report, read_store, run_job

SIZES = ((3, 3), (3, 4), (4, 3), (4, 4), (4, 5), (5, 4), (5, 5), (6, 6), (7, 7), (8, 8), (9, 9), (10, 10))  # races'
SPEED_SIZES = ((2, 2), *SIZES, *((n, n) for n in range(11, 21)))  # what - and + step through; s takes any other
DEFAULT_SIZE = (4, 4)
TICK_SECONDS = 0.1  # the running clock's redraw; each move redraws it too
OPPOSITE = {"U": "D", "D": "U", "L": "R", "R": "L"}
ARROWS = {"tile": "arrows: tile", "blank": "arrows: blank"}  # which way an arrow slides: the tile's, the blank's
MOVE = Binding.Group("move", compact=True)

SPEED_BINDINGS: list[BindingType] = [
    Binding("up,k", "arrow('U')", "", id="speed.up", group=MOVE),
    Binding("down,j", "arrow('D')", "", id="speed.down", group=MOVE),
    Binding("left,h", "arrow('L')", "", id="speed.left", group=MOVE),
    Binding("right,l", "arrow('R')", "move", id="speed.right", group=MOVE),
    Binding("space,enter", "next", "next", id="speed.next",
            tooltip="A new scramble (a solve under way is given up: a DNF); in BLD, confirm the solve"),
    Binding("minus", "size(-1)", "smaller", id="speed.smaller", tooltip="A smaller board"),
    Binding("plus,equals_sign", "size(1)", "larger", id="speed.larger", tooltip="A larger board"),
    Binding("s", "type_size", "size", id="speed.size", show=False,
            tooltip="Type any size from 2x2 to 20x20 (WxH: 2x7, 12x12)"),
    Binding("i", "scheme", "keys", id="speed.scheme", tooltip="Arrows move a tile, or the blank"),
    Binding("c", "colours", "colours", id="speed.colours",
            tooltip="Colour the tiles by layer: Fringe, Rows-Columns, Rows, Columns, Grids (Slidysim's schemes), or plain"),
    Binding("m", "hover", "hover", id="speed.hover",
            tooltip="Hover control: the blank follows the pointer (where the terminal reports pointer motion)"),
    Binding("x", "event", "event", id="speed.event",
            tooltip="Choose the event: single, BLD, a marathon (x5, x10, x42, x100 or any length), Slidysim's relays "
                    "(2-N, width, height, everything-up-to) down from the size chosen"),
    Binding("v", "session", "session", id="speed.session",
            tooltip="The session: a plot of its times, its averages, the records, and replays"),
    Binding("r", "replay", "replay", id="speed.replay", tooltip="Replay the last solve in real time"),
    Binding("e", "export", "export", id="speed.export", tooltip="Copy the last solve in slidy's notation"),
    Binding("o", "import", "import", id="speed.import",
            tooltip="Bring solves in: Slidysim replay links or database, slidy's notation, CSV or JSON"),
    Binding("y", "copy_id", "copy ID", id="speed.copy_id", show=False, tooltip="Copy the scramble's game ID"),
    Binding("escape", "back", "back", id="speed.back", tooltip="Back home (a solve under way is a DNF)"),
]


@dataclass
class OptimumFound(Message):
    """The optimal length of the session's solve ``index`` (``index`` -1: the job's batch is done); ``length`` -1:
    the search ran out of its time budget (``limit`` seconds), having proved no solution is under ``lower_bound``."""

    job: SolverJob
    index: int
    length: int
    lower_bound: int = 0
    limit: float = 0.0
    moves: tuple[str, ...] = ()  # the optimal solution itself, where the search found one (not the distance alone)


def optimum_of(job: SolverJob, report: Report, index: int, result: SpeedResult) -> OptimumFound | None:
    """The optimal length of solve ``index``'s scramble, searched in this (worker) thread within the plan's time budget
    (its progress reported with the solve's ``index``); None when no optimum was proved (the 5x5's tables did not load:
    the solver fell back to a reduction and said why)."""
    puzzle = speed_puzzle(result.width, result.height)
    plan = optimum_plan(puzzle)
    limit = plan.limit
    if limit is None:  # boards of up to 16 cells: moments
        return OptimumFound(job, index, search.distance(puzzle, result.scramble, stop=job.stop))
    try:
        solution = search.solve(puzzle, result.scramble, stop=job.stop, **plan.options(background=True),
                                progress=lambda info: report({**info, "index": index, "limit": limit}))
    except GaveUp as gave_up:
        return OptimumFound(job, index, -1, gave_up.lower_bound, limit)
    return OptimumFound(job, index, solution.length, moves=tuple(solution.moves)) if solution.optimal else None


def figures_line(stm: int, mtm: int, tps: float | None) -> str:
    return f"STM {stm}  MTM {mtm}  TPS {'-' if tps is None else f'{tps:.2f}'}"


def result_lines(result: EventResult, *, confirmed: bool = False) -> str:
    """What the panel says of a finished run (a solve, or a multi-solve event; ``confirmed``: a BLD confirmed by the
    player); a BLD's memorisation time too."""
    memo = "" if result.memo_ms is None else f"\nmemo {seconds_text(result.memo_ms)}"
    if result.dnf:
        if confirmed:
            return (f"[b]DNF[/b]: confirmed on a board that was not solved (last move at "
                    f"{seconds_text(result.time_ms)}){memo}")
        return f"[b]DNF[/b] (given up at {seconds_text(result.time_ms)}){memo}"
    what = "Solved" if result.event.key == SINGLE else result.event.title
    legs = f" ({len(result.legs)} solves)" if len(result.legs) > 1 else ""
    marked = "" if result.unverified is None else (
        f"\n[b]unverified[/b]: {escape(result.unverified)} (kept off the boards)")
    hover = " · hover" if result.legs and result.legs[-1].control == HOVER else ""  # leaderboards split by control
    return (f"[b]{what} in {seconds_text(result.time_ms)}[/b]{legs}{hover}\n"
            + figures_line(result.stm, result.mtm, result.tps) + memo + marked)


def averages_text(label: str, summary: SessionSummary) -> str:
    """The session's figures by their usual names: current and best of single, mo3, ao5 … ao100."""
    dnfs = f", {summary.dnfs} DNF" if summary.dnfs else ""
    lines = [f"[b]Session {label}[/b]: {summary.count} solve{'s' if summary.count != 1 else ''}{dnfs}",
             f"{'':6} {'current':>9} {'best':>9}",
             f"{'single':6} {result_text(summary.single.current):>9} {result_text(summary.single.best):>9}"]
    for name, _size in AVERAGES:
        figure = summary.averages[name]
        lines.append(f"{name:6} {result_text(figure.current):>9} {result_text(figure.best):>9}")
    sd = "-" if summary.std_dev is None else seconds_text(summary.std_dev)
    lines.append(f"mean {result_text(summary.mean)}  σ {sd}")
    return "\n".join(lines)


class SpeedScreen(DirtyOnlyRendering):
    """Speed solves, one after another, with the session's averages; events of several solves run on one clock."""

    BINDINGS = SPEED_BINDINGS
    help_key = "speed"  # help (?) opens on the speed rules

    def __init__(self, size: tuple[int, int] = DEFAULT_SIZE, *, ascii_only: bool = False,
                 rng: random.Random | None = None, event: str = SINGLE, daily: str | None = None):
        """``rng`` draws the scrambles (by default the system's; tests give a seeded one).  ``daily``: the first
        solve is that day's board of the size (the 8- or 15-puzzle's daily board), for the daily speed board."""
        super().__init__(classes="speed")
        self.ascii_only = ascii_only
        self.rng = rng or random.SystemRandom()
        self.size_wh = size
        self.event: Event = daily_event(daily) if daily else event_for(event)
        self.daily_scramble = daily_board(speed_puzzle(*size), daily, daily_secret()) if daily else None
        self.scheme = "tile"
        self.colours = PLAIN  # the board's colour scheme (the player's, once read)
        self.hover = False  # hover control: the blank follows the pointer
        self.clock_timer: Timer | None = None
        self.clock_drawn_at = 0.0  # when the clock line was last drawn (time.monotonic)
        self.last: SpeedResult | None = None  # the last solve (or leg) kept: replay and export take it
        self.optimum_job: SolverJob | None = None  # finding the optimal lengths of the solves in optimum_wanted
        self.optimum_wanted: list[int] = []  # session indices of solves whose optimum is not sought yet
        self.run = self._new_run()

    # --- the solve -----------------------------------------------------------------------------------
    def _new_run(self) -> EventRun:
        scramble, self.daily_scramble = self.daily_scramble, None  # the daily board is played once, then random ones
        if scramble is None and self.event.key.startswith(DAILY_PREFIX):
            self.event = BY_KEY[SINGLE]
        return EventRun(self.event, self.size_wh, self._clock, self.rng, scramble=scramble)

    def _clock(self) -> float:
        return koma_app(self).clock()

    @property
    def solve(self) -> SpeedSolve:
        """The solve under way (the leg under way of a multi-solve event)."""
        return self.run.solve

    @property
    def session(self) -> SpeedSession:
        return koma_app(self).speed_session

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="speed-body"):
            yield self._board()
            with Vertical(id="speed-side"):
                yield Static(id="speed-title")
                yield Static(id="speed-id")
                yield Static(id="speed-clock")
                yield Static(id="speed-figures")
                yield Static(id="speed-message")
                yield Static(id="speed-optimum")
                yield Static(id="speed-averages")
        yield KeyBar()

    def _board(self) -> Board:
        puzzle = self.solve.puzzle
        return Board(SpeedLook(puzzle.width, puzzle.height, self.ascii_only, scheme=self.colours), self.solve.state,
                     id="speed-board")

    async def _show_board(self) -> None:
        """The solve's board: the same widget when the size stays, a new one when it changes."""
        board = self.query_one("#speed-board", Board)
        if (board.columns, board.rows) == (self.solve.puzzle.width, self.solve.puzzle.height):
            board.hide_numbers(False)
            board.show(self.solve.state)
        else:
            await board.remove()
            await self.query_one("#speed-body", Horizontal).mount(self._board(), before=0)

    def on_mount(self) -> None:
        self.title = "Koma"
        self._show_all("The clock starts on your first move: look as long as you like.")
        self.call_after_refresh(self._check_fit)
        read_store(self, lambda store: store.speed_looks(), self._looks_read)

    def _looks_read(self, answer) -> None:
        """The player's remembered colour scheme and hover control (kept as they are when the store cannot say)."""
        if not answer.known:
            return
        scheme, hover = answer.value
        self.colours = scheme if scheme in SCHEMES else PLAIN
        self.hover = hover
        self._colour_board()
        self._show_title()

    def on_unmount(self) -> None:
        self._give_up()
        self._stop_clock()
        if self.optimum_job is not None:
            self.optimum_job.cancel()

    def _show_all(self, message: str) -> None:
        self.solve.reveal()  # the scramble is shown: a BLD's memorisation starts
        puzzle = self.solve.puzzle
        self.sub_title = f"Speed {self.event.label(self.size_wh)} {self.event.title}"
        self._show_title()
        self.query_one("#speed-id", Static).update(f"[dim]ID {shown_id(ids.game_id(puzzle, self.solve.scramble))}[/dim]")
        self.query_one("#speed-message", Static).update(message)
        self.query_one("#speed-optimum", Static).update("")
        self._show_clock()
        self._show_averages()

    def _tick(self) -> None:
        """The running clock's redraw, skipped when a move redrew it within the tick (at 15 TPS, most ticks)."""
        if time.monotonic() - self.clock_drawn_at >= TICK_SECONDS:
            self._show_clock()

    def _show_clock(self) -> None:
        self.clock_drawn_at = time.monotonic()
        stm, mtm = self.run.stm, self.run.mtm
        elapsed = self.solve.elapsed_ms()
        # every key and clock tick redraws these two lines: Content, not markup (parsing is most of the cost), and no
        # layout pass (each stays one line)
        self.query_one("#speed-clock", Static).update(Content.assemble("Time ", (seconds_text(elapsed), "bold")),
                                                      layout=False)
        self.query_one("#speed-figures", Static).update(
            Content(figures_line(stm, mtm, stm * 1000 / elapsed if elapsed else None)), layout=False)

    def _show_averages(self) -> None:
        summary = self.session.summary(self.event, self.size_wh)
        self.query_one("#speed-averages", Static).update(averages_text(self.event.label(self.size_wh), summary))

    def _start_clock(self) -> None:
        if self.clock_timer is None:
            self.clock_timer = self.set_interval(TICK_SECONDS, self._tick)

    def _stop_clock(self) -> None:
        if self.clock_timer is not None:
            self.clock_timer.stop()
            self.clock_timer = None

    async def play(self, move: LineMove | None = None, cell: int | None = None, *, control: str = MOUSE,
                   held: bool = False) -> Play:
        """One move (a line move from a key, the click on ``cell``, or the pointer over it in hover control: ``control``
        HOVER, nothing while ``held``); the board, clock and figures follow."""
        if control == HOVER:
            outcome = self.run.hover(cell, held=held)
        else:
            outcome = (self.run.press(cell, control) if cell is not None else self.run.play(move, KEYBOARD) if move
                       else Play.ILLEGAL)
        if outcome is Play.ILLEGAL:
            return outcome
        board = self.query_one("#speed-board", Board)
        if outcome is Play.LEG:  # the next scramble of the event, on the clock that runs on
            await self._show_board()
            leg = self.solve.puzzle
            self.query_one("#speed-message", Static).update(
                f"[b]{self.event.title}[/b]: {leg.size_label}, solve {len(self.run.legs) + 1} of {len(self.run.sizes)}")
            self.query_one("#speed-id", Static).update(
                f"[dim]ID {shown_id(ids.game_id(self.solve.puzzle, self.solve.scramble))}[/dim]")
        else:
            board.show(self.solve.state)  # one repaint, at any TPS
            if self.event.blind:
                board.hide_numbers(outcome is not Play.SOLVED)  # BLD: the numbers go with the first move
        self._show_clock()
        if outcome is Play.SOLVED:
            self._finish()
        else:
            self._start_clock()
        return outcome

    def _keep_run(self) -> None:
        """Count the run's solves in the session (once it is over), hand each to the store (never waits), and find
        their scrambles' optimal lengths in the background where that is cheap."""
        for result in self.run.legs:
            index = self.session.add(result)
            self.last = result
            koma_app(self).storage.write(solve_record(result))
            if result.dnf:
                continue
            plan = optimum_plan(speed_puzzle(result.width, result.height))
            if plan.search:
                self.optimum_wanted.append(index)
            if result is self.last:
                self._show_optimum(plan.note if not plan.search else searching_text({}, plan.limit))
        if self.optimum_wanted and self.optimum_job is None:
            self._find_optimum()

    def _show_optimum(self, text: str) -> None:
        self.query_one("#speed-optimum", Static).update(text)

    def _find_optimum(self) -> None:
        """Solve the scrambles waiting, one after another, in one thread worker; each answer comes back as it is
        found (:class:`OptimumFound`)."""
        session, wanted = self.session, list(self.optimum_wanted)
        self.optimum_wanted.clear()
        job = self.optimum_job = SolverJob("speed-optimum")

        def compute(job: SolverJob, report: Report) -> None:
            for index in wanted:
                self.post_message(JobProgress(job, {"index": index}))
                found = optimum_of(job, report, index, session.results[index])
                if found is not None:
                    self.post_message(found)
            self.post_message(OptimumFound(job, -1, -1))  # the batch is done

        run_job(self, job, compute, group="speed-optimum", answer=None)

    def on_optimum_found(self, event: OptimumFound) -> None:
        if event.job is not self.optimum_job:
            return
        if event.index < 0:
            self.optimum_job = None
            if self.optimum_wanted:
                self._find_optimum()
            return
        if event.length >= 0:
            self.session.optimal[event.index] = event.length
            if event.moves:
                self.session.optimal_moves[event.index] = event.moves
        if self.last is not self.session.results[event.index]:
            return
        if event.length < 0:
            self._show_optimum(gave_up_text(event.lower_bound, event.limit))
            return
        efficiency = self.session.efficiency(event.index)
        self._show_optimum(f"optimal {event.length} · efficiency {efficiency:.0%}" if efficiency is not None else "")

    def on_job_progress(self, event: JobProgress) -> None:
        """The optimum's search, bound by bound, on the line of the solve it is for (the last one)."""
        if event.job is not self.optimum_job:
            return
        index = event.info.get("index", -1)
        if 0 <= index < len(self.session.results) and self.session.results[index] is self.last:
            self._show_optimum(searching_text(event.info, event.info.get("limit")))

    def on_job_failed(self, event: JobFailed) -> None:
        if event.job is not self.optimum_job:
            return
        self.optimum_job = None
        self._show_optimum(f"optimal: not found ({event.error})")
        if self.optimum_wanted:
            self._find_optimum()

    async def confirm(self) -> Play:
        """A BLD solve's confirm: solved, or a DNF when the board is not; the numbers show again either way."""
        outcome = self.run.confirm()
        if outcome is Play.ILLEGAL:
            return outcome
        board = self.query_one("#speed-board", Board)
        board.hide_numbers(False)
        board.show(self.solve.state)
        self._show_clock()
        self._finish(confirmed=True)
        return outcome

    def _finish(self, *, confirmed: bool = False) -> None:
        self._stop_clock()
        self._keep_run()
        self._show_clock()
        self.query_one("#speed-message", Static).update(result_lines(self.run.result(), confirmed=confirmed)
                                                        + "\n[dim]space: next scramble[/dim]")
        self._show_averages()

    def _give_up(self) -> None:
        """A run under way is given up: it counts as a DNF."""
        if self.run.abandon():
            self._keep_run()

    async def _next(self, message: str = "") -> None:
        """A new scramble (of a new size: a new board widget)."""
        self._give_up()
        self._stop_clock()
        self.run = self._new_run()
        await self._show_board()
        self._show_all(message or "A new scramble. The clock starts on your first move.")

    # --- input -----------------------------------------------------------------------------------------
    async def action_arrow(self, direction: str) -> None:
        await self.play(LineMove(OPPOSITE[direction] if self.scheme == "blank" else direction))

    async def on_board_cell_pressed(self, event: Board.CellPressed) -> None:
        event.stop()
        await self.play(cell=event.cell)

    async def on_board_pointer_over(self, event: Board.PointerOver) -> None:
        """Hover control: the pointer on another cell of the blank's line slides it (a hover move)."""
        event.stop()
        if self.hover:
            await self.play(cell=event.cell, control=HOVER, held=event.held)

    async def action_next(self) -> None:
        """A new scramble; in a BLD solve under way, the confirm (Slidysim's space)."""
        if self.event.blind and self.solve.started and not self.run.over:
            await self.confirm()
            return
        await self._next()

    async def action_size(self, delta: int) -> None:
        if self.size_wh in SPEED_SIZES:
            index = SPEED_SIZES.index(self.size_wh) + delta
        else:  # a typed size: the next listed one of more (or fewer) cells
            cells = self.size_wh[0] * self.size_wh[1]
            index = (next((k for k, (w, h) in enumerate(SPEED_SIZES) if w * h > cells), len(SPEED_SIZES)) if delta > 0
                     else max((k for k, (w, h) in enumerate(SPEED_SIZES) if w * h < cells), default=-1))
        if 0 <= index < len(SPEED_SIZES):
            await self.choose_size(SPEED_SIZES[index])

    def on_resize(self) -> None:
        self.call_after_refresh(self._check_fit)

    def _check_fit(self) -> None:
        """Say, in the panel, what terminal the board needs when this one cannot show it whole."""
        board = self.query_one("#speed-board", Board)
        if board.size.width and not board_fits(board.columns, board.rows, board.size.width, board.size.height):
            self.query_one("#speed-message", Static).update(
                too_small(board.columns, board.rows, *self.app.size)
                or f"The {board.columns}x{board.rows} board does not fit beside the panel.")

    async def choose_size(self, size: tuple[int, int]) -> bool:
        """Play ``size`` from the next scramble on; refused, in one line saying the terminal it needs, when the
        board's room cannot show it (False)."""
        room = self.query_one("#speed-board", Board).size
        if not board_fits(*size, room.width, room.height):
            refusal = too_small(*size, *self.app.size) or f"The {size[0]}x{size[1]} board does not fit beside the panel."
            self.query_one("#speed-message", Static).update(refusal)
            self.notify(refusal, severity="warning", timeout=6)  # whole, where a narrow panel cuts the line
            self.app.bell()
            return False
        self.size_wh = size
        await self._next(f"Speed on the {size[0]}x{size[1]}. The clock starts on your first move.")
        return True

    def action_type_size(self) -> None:
        self.app.push_screen(SpeedSizeScreen(self.size_wh), self._size_typed)

    async def _size_typed(self, size: tuple[int, int] | None) -> None:
        if size is not None:
            await self.choose_size(size)

    def action_event(self) -> None:
        """The event dialog: single, BLD, a marathon of any length, a relay over a range of sizes."""
        self.app.push_screen(SpeedEventScreen(self.event), self._event_chosen)

    async def _event_chosen(self, event: Event | None) -> None:
        if event is not None:
            self.event = event
            await self._next(f"Event: [b]{event_name(event)}[/b]. The clock starts on your first move.")

    def action_scheme(self) -> None:
        self.scheme = "blank" if self.scheme == "tile" else "tile"
        self._show_title()

    def action_colours(self) -> None:
        """The next colour scheme, remembered for the player."""
        self.colours = next_scheme(self.colours)
        self._colour_board()
        self._remember_looks()  # the panel's title names it

    def _colour_board(self) -> None:
        board = self.query_one("#speed-board", Board)
        if isinstance(board.look, SpeedLook) and board.look.scheme != self.colours:
            board.look.colour_by(self.colours)
            board.restyle()

    def action_hover(self) -> None:
        """Hover control on or off, remembered for the player."""
        self.hover = not self.hover
        self._remember_looks()
        self.notify("Hover control on: the blank follows the pointer (hold a button or ctrl to place it)."
                    if self.hover else "Hover control off.", timeout=3)

    def _remember_looks(self) -> None:
        koma_app(self).storage.write(SetSpeedLooks(self.colours, self.hover))
        self._show_title()

    def _show_title(self) -> None:
        event = "" if self.event.key == SINGLE else f" {self.event.title}"
        looks = "".join((f" · {SCHEME_NAMES[self.colours]}" if self.colours != PLAIN else "",
                         " · hover" if self.hover else ""))
        self.query_one("#speed-title", Static).update(
            f"[b]Speed[/b]{event}  {self.solve.puzzle.size_label}  [dim]{ARROWS[self.scheme]}{looks}[/dim]")

    def action_export(self) -> None:
        if self.last is None:
            self.notify("No solve to export yet.", timeout=3)
            return
        self.app.copy_to_clipboard(export_solve(self.last))
        self.notify("Copied the last solve (slidy's notation).", timeout=3)

    def action_import(self) -> None:
        self.app.push_screen(SpeedImportScreen())

    def action_session(self) -> None:
        self.app.push_screen(SpeedSessionScreen(self.event, self.size_wh, ascii_only=self.ascii_only))

    def action_replay(self) -> None:
        if self.last is None or (self.solve.started and not self.run.over):
            self.app.bell()
            return
        self.app.push_screen(SpeedReplayScreen(self.last, ascii_only=self.ascii_only,
                                               koma_moves=self.session.koma_solution(self.last)))

    def action_copy_id(self) -> None:
        game_id = ids.game_id(self.solve.puzzle, self.solve.scramble)
        self.app.copy_to_clipboard(game_id)
        self.notify(f"Copied the game ID {shown_id(game_id)}", timeout=3)

    def action_back(self) -> None:
        self._give_up()
        self.app.pop_screen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("export", "replay") and self.last is None:
            return None
        return True
