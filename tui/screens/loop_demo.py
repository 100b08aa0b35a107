"""Article 003's "mindless" loop method, played out on a 15-puzzle board.

The run comes from :func:`solver.sliding.loop.run_loop_method` in a named thread worker; the screen plays
its boards back at an adjustable speed, shows the tiles' order along the loop as it sorts, and
ties the ending (1, 2, 3, … or 1, 3, 2, …) to the parity proof of the start.  Statistics of the
loop's move counts over many random boards are computed in a cancellable worker and, on request,
compared with the optimal lengths of the first few (IDA*, :mod:`solver.sliding.search`).
"""

from __future__ import annotations

import random
import statistics
from typing import Any, cast

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.timer import Timer

from solver import solving as search
from solver.engines.stop import check_stop
from solver.registry import get_puzzle
from solver.sliding.loop import LoopRun, labels_along_loop, loop_length, run_loop_method
from solver.sliding.model import SlidingPuzzle
from tui.ascii import Static
from tui.game.solver_jobs import SolverJob
from tui.messages import JobFailed, JobProgress, LoopLengthsCounted, LoopRunFinished, OptimalLengthsFound
from tui.patches.rendering import DirtyOnlyRendering
from tui.play.variants import open_puzzle
from tui.widgets.board import Board
from tui.widgets.keybar import KeyBar
from tui.widgets.looks import LoopLook
from tui.widgets.titlebar import TitleBar
from tui.workers import Report, run_job

ARTICLE_BOARD = "10 8 4 14/15 12 13 _/7 11 6 1/5 9 2 3"  # article 000's worked example
SPEEDS = (0.5, 0.25, 0.1, 0.05, 0.02, 0.01)  # seconds per move
DEFAULT_SPEED = 3
STATS_BOARDS = 1000  # random solvable boards (seeds 0..N-1) for the loop's move counts
OPTIMAL_BOARDS = 10  # of those, how many get an optimal solve for comparison
SPEED = Binding.Group("speed", compact=True)


def optimal_method(puzzle) -> str | None:
    """The 15-puzzle's optimal method: IDA* (the loop method is not optimal)."""
    return next((m for m in search.methods(puzzle) if m != "loop"), None)


METHOD_NAMES = {"ida": "IDA*"}


def spread(values) -> str:
    return f"min {min(values):,} · median {statistics.median(values):,.0f} · max {max(values):,}"


class LoopDemoScreen(DirtyOnlyRendering):
    """Watch the loop method sort a 15-puzzle board, and see why it ends where it does."""

    BINDINGS = [
        Binding("space", "pause", "play/pause", id="loop_demo.pause", tooltip="Play or pause the loop method"),
        Binding("plus,equals_sign", "speed(1)", "", id="loop_demo.faster", group=SPEED, tooltip="Faster"),
        Binding("minus", "speed(-1)", "speed", id="loop_demo.slower", group=SPEED, tooltip="Slower"),
        Binding("right_square_bracket", "step", "Step", id="loop_demo.step", show=False,
                tooltip="One move forward (while paused)"),
        Binding("e", "to_end", "end", id="loop_demo.end", tooltip="Jump to the end of the run"),
        Binding("r", "restart", "restart", id="loop_demo.restart", tooltip="Back to the start of the run"),
        Binding("n", "new_board", "new", id="loop_demo.new", tooltip="A random board, solvable or not"),
        Binding("x", "swap", "swap 2", id="loop_demo.swap",
                tooltip="Swap the first two tiles of the start: the other parity, the other ending"),
        Binding("a", "article", "Article's board", id="loop_demo.article", show=False,
                tooltip="Article 000's worked example"),
        Binding("o", "optimal", "optimal", id="loop_demo.optimal",
                tooltip=f"Compare with optimal solutions (IDA*) of the first {OPTIMAL_BOARDS} boards"),
        Binding("p", "play", "play", id="loop_demo.play", tooltip="Play the start board yourself"),
        Binding("escape", "escape", "back", id="loop_demo.escape",
                tooltip="Back: cancel the statistics, else return home"),
    ]

    def __init__(self, board: str = ARTICLE_BOARD, *, ascii_only: bool = False, seed: int | None = None,
                 autoplay: bool = True):
        super().__init__(classes="loop-demo")
        self.ascii_only = ascii_only
        self.puzzle = cast(SlidingPuzzle, get_puzzle("15"))
        self.start = tuple(self.puzzle.parse(board))
        self.rng = random.Random(seed)
        self.run: LoopRun | None = None
        self.position = 0
        self.playing = autoplay
        self.speed = DEFAULT_SPEED
        self.timer: Timer | None = None
        self.stats: dict[str, Any] = {}
        self.loop_job: SolverJob | None = None  # the run of the loop method under way
        self.counts_job: SolverJob | None = None  # the loop's move counts under way
        self.optimal_job: SolverJob | None = None  # the optimal lengths under way (never both)
        self.message = ""

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="loop-body"):
            with Vertical(id="loop-left"):
                yield Board(LoopLook(self.ascii_only), self.start, id="loop-board")
                yield Static(id="loop-legend")
            with Vertical(id="loop-side"):
                yield Static(id="loop-counter")
                yield Static(id="loop-order")
                yield Static(id="loop-parity")
                yield Static(id="loop-stats")
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = "the loop method (article 003)"
        arrows = "v < ^ >" if self.ascii_only else "↓ ← ↑ →"
        jump = "=" if self.ascii_only else "double"
        self.query_one("#loop-legend", Static).update(
            f"[dim]{arrows}: where each cell's tile goes along the loop. {jump.capitalize()} boxes: a jump can "
            "land here (the tile 3 ahead jumps over the 2 between if one is larger; never tile 1).[/dim]")
        self.new_run(self.start)
        self.start_counting()

    def on_screen_suspend(self) -> None:
        if self.timer is not None:
            self.timer.pause()  # a hidden screen does no work

    def on_screen_resume(self) -> None:
        if self.timer is not None:
            self.timer.resume()

    def on_unmount(self) -> None:
        self.cancel_stats()
        if self.timer is not None:
            self.timer.stop()

    # --- the run -------------------------------------------------------------------------------------
    def new_run(self, start: tuple) -> None:
        self.start = tuple(start)
        self.run = None
        self.position = 0
        self.query_one(Board).show(self.start)
        self.loop_job = SolverJob("loop run", self.start)
        run_job(self, self.loop_job, lambda job, report: run_loop_method(job.state), group="loop-run",
                answer=LoopRunFinished)
        self.refresh_view()

    @on(LoopRunFinished)
    def _run_ready(self, event: LoopRunFinished) -> None:
        if event.job is self.loop_job:
            self.loop_job = None
            self._play(event.run)

    @on(JobFailed)
    def _failed(self, event: JobFailed) -> None:
        if event.job is self.loop_job:
            self.loop_job = None
            self.message = f"The loop method failed: {event.error}"
            self._play(None)
        elif event.job is self.stats_job:
            self.counts_job = self.optimal_job = None
            self.message = f"The statistics failed: {event.error}"
            self.refresh_view()
            self.refresh_bindings()

    def _play(self, run: LoopRun | None) -> None:
        """Play ``run`` back from its start (None: there is no run to play)."""
        self.run = run
        self.position = 0
        self._restart_timer()
        self.refresh_view()

    def _restart_timer(self) -> None:
        if self.timer is not None:
            self.timer.stop()
        self.timer = self.set_interval(SPEEDS[self.speed], self._tick)

    def _tick(self) -> None:
        if self.playing and self.run is not None and self.position < self.run.length:
            self.go_to(self.position + 1)

    def go_to(self, position: int) -> None:
        run = self.run
        if run is None:
            return
        self.position = max(0, min(run.length, position))
        state = run.path[self.position]
        moved = None
        if self.position > 0:
            before = run.path[self.position - 1]
            moved = next((i for i in range(16) if before[i] == 0 and state[i] != 0), None)
        self.query_one(Board).show(state, marked=moved)
        self.refresh_view()

    @property
    def finished(self) -> bool:
        return self.run is not None and self.position >= self.run.length

    # --- drawing ---------------------------------------------------------------------------------------
    def refresh_view(self) -> None:
        run = self.run
        proof = self.puzzle.proof(self.start)
        f = proof.fields
        if run is None:
            counter = "Running the loop method…"
        else:
            state = "finished" if self.finished else ("playing" if self.playing else "paused")
            back = f" + {run.length - run.loop_steps} back to the goal" if run.sorted_end else ""
            counter = (f"Move [b]{self.position:,}[/b] of {run.length:,} ({run.loop_steps:,} loop moves{back})\n"
                       f"[dim]{state} · {SPEEDS[self.speed]:g} s per move · space pause · +/- speed · e end[/dim]")
        self.query_one("#loop-counter", Static).update(counter)
        board = run.path[self.position] if run is not None else self.start
        labels = [int(v) for v in labels_along_loop(board) if v != 0]
        order = " ".join(str(v) for v in labels)
        self.query_one("#loop-order", Static).update(f"Along the loop (the article's labels):\n[b]{order}[/b]")
        expected = "1, 2, 3, …, 15" if proof.solvable else "1, 3, 2, 4, …, 15"
        total = (f"{f['inversions']} + blank row {f['blank_row']} = {f['total']}, {f['parity']}")
        parity = (f"Parity of the start: {total}: [b]{'solvable' if proof.solvable else 'NOT solvable'}[/b]. "
                  f"So the loop must end in {expected}.")
        if self.finished and run is not None:
            ending = "1, 2, 3, …, 15" if run.sorted_end else "1, 3, 2, 4, …, 15"
            agrees = run.sorted_end == proof.solvable
            parity += (f"\n[b]It ended in {ending}[/b]" + (", as the parity predicted" if agrees else
                                                          ": the parity said otherwise!")
                       + (" (and 7 more moves bring the blank home)." if run.sorted_end else
                          ": the last two can never be swapped."))
        widget = self.query_one("#loop-parity", Static)
        widget.update(parity)
        widget.set_class(not proof.solvable, "-bad")
        self.query_one("#loop-stats", Static).update(self.stats_text())

    def stats_text(self) -> str:
        lines = []
        loop = self.stats.get("loop")
        if loop:
            lines.append(f"Loop method on {len(loop):,} random solvable boards: {spread(loop)} moves")
        elif (job := self.counts_job) is not None:
            lines.append(f"Loop statistics: {job.done:,} of {job.total:,} boards… [dim](esc cancels)[/dim]")
        elif self.stats.get("loop_cancelled"):
            lines.append("Loop statistics cancelled.")
        method = optimal_method(self.puzzle)
        optimal = self.stats.get("optimal")
        if method is None:
            lines.append("[dim]No optimal solver for this board.[/dim]")
        elif optimal:
            same = self.stats["optimal_loop"]
            ratio = sum(same) / max(1, sum(optimal))
            lines.append(f"Optimal ({METHOD_NAMES.get(method, method)}) on the first {len(optimal)}: "
                         f"{spread(optimal)} moves; the loop took {spread(same)}, {ratio:.1f}x as many")
        elif (job := self.optimal_job) is not None:
            lines.append(f"Optimal solves: {job.done} of {job.total}… [dim](esc cancels)[/dim]")
        else:
            lines.append(f"[dim]o: compare with optimal solutions of {OPTIMAL_BOARDS} of these boards.[/dim]")
        if self.message:
            lines.append(escape(self.message))
        return "\n".join(lines)

    # --- statistics --------------------------------------------------------------------------------------
    @property
    def stats_job(self) -> SolverJob | None:
        """The statistics under way, the loop's move counts or the optimal lengths, if any."""
        return self.counts_job if self.counts_job is not None else self.optimal_job

    def start_counting(self) -> None:
        """Count the loop method's moves on ``STATS_BOARDS`` random boards, in the background."""
        self.cancel_stats()
        self.counts_job = SolverJob("loop lengths", total=STATS_BOARDS)
        run_job(self, self.counts_job, self._count_loop_lengths, group="loop-stats", answer=LoopLengthsCounted)
        self.refresh_view()

    def start_comparing(self) -> None:
        """Solve the first ``OPTIMAL_BOARDS`` of those boards optimally, in the background."""
        self.cancel_stats()
        self.optimal_job = SolverJob("optimal lengths", total=OPTIMAL_BOARDS)
        run_job(self, self.optimal_job, self._find_optimal_lengths, group="loop-stats",
                answer=lambda job, found: OptimalLengthsFound(job, *found))
        self.refresh_view()

    def _count_loop_lengths(self, job: SolverJob, report: Report) -> list[int]:
        """In a thread: the loop method's move counts on random solvable boards (seeds 0..N-1)."""
        lengths: list[int] = []
        for seed in range(job.total):
            check_stop(job.stop)
            lengths.append(loop_length(self.puzzle.random_state(seed))[0])
            report({"done": seed + 1})
        return lengths

    def _find_optimal_lengths(self, job: SolverJob, report: Report) -> tuple[list[int], list[int]]:
        """In a thread: the optimal lengths of the first random boards (seeds 0..N-1), and the loop's counts on them."""
        optimal: list[int] = []
        loop: list[int] = []
        method = optimal_method(self.puzzle)
        for seed in range(job.total):
            check_stop(job.stop)
            board = self.puzzle.random_state(seed)
            optimal.append(search.solve(self.puzzle, board, method, stop=job.stop).length)
            loop.append(loop_length(board)[0])
            report({"done": seed + 1})
        return optimal, loop

    @on(JobProgress)
    def _stats_progress(self, event: JobProgress) -> None:
        if event.job is self.stats_job:
            event.job.done = int(event.info["done"])
            self.refresh_view()

    @on(LoopLengthsCounted)
    def _lengths_counted(self, event: LoopLengthsCounted) -> None:
        if event.job is self.counts_job:
            self.counts_job = None
            self.stats["loop"] = event.lengths
            self.refresh_view()
            self.refresh_bindings()

    @on(OptimalLengthsFound)
    def _optimal_found(self, event: OptimalLengthsFound) -> None:
        if event.job is self.optimal_job:
            self.optimal_job = None
            self.stats["optimal"], self.stats["optimal_loop"] = event.optimal, event.loop
            self.refresh_view()
            self.refresh_bindings()

    def cancel_stats(self) -> bool:
        job = self.stats_job
        if job is None:
            return False
        job.cancel()
        self.workers.cancel_group(self, "loop-stats")
        if job is self.counts_job:
            self.stats["loop_cancelled"] = True
        self.counts_job = self.optimal_job = None
        return True

    # --- actions -----------------------------------------------------------------------------------------
    def action_pause(self) -> None:
        if self.finished:
            self.go_to(0)
            self.playing = True
        else:
            self.playing = not self.playing
        self.refresh_view()

    def action_speed(self, delta: int) -> None:
        self.speed = max(0, min(len(SPEEDS) - 1, self.speed + delta))
        self._restart_timer()
        self.refresh_view()

    def action_step(self) -> None:
        self.playing = False
        self.go_to(self.position + 1)

    def action_to_end(self) -> None:
        if self.run is not None:
            self.go_to(self.run.length)

    def action_restart(self) -> None:
        self.go_to(0)

    def action_new_board(self) -> None:
        board = list(self.puzzle.goal)
        self.rng.shuffle(board)
        self.message = ""
        self.new_run(tuple(board))

    def action_swap(self) -> None:
        self.message = ""
        self.new_run(self.puzzle.swap_first_tiles(self.start))

    def action_article(self) -> None:
        self.new_run(self.puzzle.parse(ARTICLE_BOARD))

    def action_optimal(self) -> None:
        if optimal_method(self.puzzle) is None:
            self.message = "No optimal solver for this board."
            self.app.bell()
            self.refresh_view()
            return
        self.start_comparing()

    def action_play(self) -> None:
        open_puzzle(self, self.puzzle, self.start)

    def action_escape(self) -> None:
        if self.cancel_stats():
            self.message = "Cancelled."
            self.refresh_view()
            self.refresh_bindings()
            return
        self.app.pop_screen()
