"""The algorithm lab: the articles' methods side by side on one board, each in its own cancellable worker.

8-puzzle: one-way BFS against bidirectional BFS (article 002: 181,440 against 16,088 states on its
board).  Goat: the full BFS, the article's IDA* with its lower bound, and IDA* with pattern
databases.  15-puzzle: IDA* with each heuristic (Manhattan + linear conflict, walking distance, the
pattern databases), on one of Korf's instances that every heuristic solves within seconds; ``a`` and
``h`` load harder boards, where the weak heuristics take minutes or more.  ``r`` runs every method,
one after another so their times do not compete for the CPU; a digit runs one.  Escape cancels at once.
"""

from __future__ import annotations

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Tab

from solver.errors import KomaError
from solver.registry import get_puzzle
from solver.tools.lab import LabResult, lab_methods, run_method
from tui.ascii import Static
from tui.game.formatting import figures_text
from tui.game.solver_jobs import SolverJob
from tui.messages import JobFailed, JobProgress, LabRunFinished
from tui.play.variants import open_puzzle
from tui.widgets.keybar import KeyBar
from tui.widgets.looks import look_for
from tui.widgets.tabbed import FoldingTabs, TabbedScreen
from tui.widgets.titlebar import TitleBar
from tui.workers import run_job

# tab id -> (registry name, label, the article's board, the hardest board)
TABS: dict[str, tuple[str, str, str, str]] = {
    "a-8": ("8", "8-puzzle", "8 6 7/2 5 4/3 _ 1", "6 4 7/8 5 _/3 2 1"),
    "a-goat": ("goat", "Goat", "r-BB/i.dS/l-jW", "WdBB/jSi-/.-lr"),
    # article 000's worked example (60 moves); the first of the 17 positions at 80 moves
    "a-15": ("15", "15-puzzle", "10 8 4 14/15 12 13 _/7 11 6 1/5 9 2 3", "_ 12 9 13/15 11 10 14/3 7 2 5/4 8 6 1"),
}
# The board a tab opens on, where it is not the article's: Korf's (1985) instance 16 in Koma's
# convention, 42 moves, which every heuristic solves within a second (Manhattan + linear conflict
# on the article's 60-move board can take minutes).
DEFAULT_BOARDS = {"a-15": "_ 9 12 4/5 3 2 8/10 1 7 6/11 14 13 15"}
BOARD_NOTES = {"a-15": "Korf's instance 16 (42 moves) at first. a: article 000's board (60 moves: Manhattan "
                       "takes minutes) · h: a position at 80 moves (only the pattern databases finish; without "
                       "the 7-8 tables, a minute or two)."}
TAB = Binding.Group("puzzle", compact=True)


class AlgorithmLabScreen(TabbedScreen):
    """Run the articles' methods on the current board and compare nodes, time and length."""

    BINDINGS = [
        Binding("r", "run_all", "run all", id="algorithm_lab.run_all", tooltip="Run every method, one after another"),
        *[Binding(str(k), f"run_one({k - 1})", f"Run method {k}", id=f"algorithm_lab.run_{k}", show=False,
                  tooltip=f"Run method {k} alone") for k in (1, 2, 3, 4)],
        Binding("h", "board('hardest')", "hardest", id="algorithm_lab.hardest",
                tooltip="A hardest position (the longest optimal distance)"),
        Binding("a", "board('article')", "article", id="algorithm_lab.article", tooltip="The article's board"),
        Binding("n", "board('random')", "random", id="algorithm_lab.random", tooltip="A random solvable board"),
        Binding("p", "play", "play", id="algorithm_lab.play", tooltip="Play this board"),
        Binding("left_square_bracket", "tab(-1)", "", id="algorithm_lab.previous_puzzle", group=TAB,
                tooltip="Previous puzzle"),
        Binding("right_square_bracket", "tab(1)", "puzzle", id="algorithm_lab.next_puzzle", group=TAB,
                tooltip="Next puzzle"),
        Binding("escape", "escape", "back", id="algorithm_lab.escape", tooltip="Back: cancel the runs, else return home"),
    ]

    def __init__(self, tab: str = "a-8", *, ascii_only: bool = False, seed: int | None = None):
        super().__init__(classes="algorithm-lab")
        self.ascii_only = ascii_only
        self.seed = seed
        self.tabs = {t: v for t, v in TABS.items() if lab_methods(get_puzzle(v[0]))}
        self.jobs: dict[str, SolverJob] = {}  # by method
        self.queue: list[str] = []
        self.results: dict[str, LabResult | str] = {}
        self.message = ""
        self._load(tab if tab in self.tabs else next(iter(self.tabs)))

    def _load(self, tab: str, board: str | None = None) -> None:
        name, _, article, _ = self.tabs[tab]
        self.tab = tab
        self.puzzle = get_puzzle(name)
        self.look = look_for(self.puzzle, self.ascii_only)
        self.methods = lab_methods(self.puzzle)
        self.state = tuple(self.puzzle.parse(board or DEFAULT_BOARDS.get(tab, article)))
        self.results = {}

    def compose(self) -> ComposeResult:
        yield TitleBar()
        tabs = FoldingTabs(*[Tab(v[1], id=t) for t, v in self.tabs.items()], active=self.tab, id="algo-tabs")
        tabs.can_focus = False
        yield tabs
        with Vertical(id="algo-body"):
            yield Static(id="algo-board")
            yield Static(id="algo-table")
            yield Static(id="algo-note")
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = "algorithm lab"
        self.refresh_view()

    def on_unmount(self) -> None:
        self.cancel_all()

    # --- puzzles and boards ------------------------------------------------------------------------
    def open_tab(self, tab: str, board: str | None = None) -> None:
        self.cancel_all()
        self._load(tab, board)
        self.message = ""
        self.refresh_view()

    def action_board(self, kind: str) -> None:
        self.cancel_all()
        _, _, article, hardest = self.tabs[self.tab]
        if kind == "random":
            seed = None if self.seed is None else self.seed
            self.state = tuple(self.puzzle.random_state(seed))
            if self.seed is not None:
                self.seed += 1
        else:
            self.state = tuple(self.puzzle.parse(hardest if kind == "hardest" else article))
        self.results = {}
        self.message = ""
        self.refresh_view()

    def action_play(self) -> None:
        open_puzzle(self, self.puzzle, self.state)

    # --- running -------------------------------------------------------------------------------------
    def action_run_all(self) -> None:
        self.cancel_all()
        self.results = {}
        self.queue = [m for m, _ in self.methods]
        self._next()

    def action_run_one(self, index: int) -> None:
        if index >= len(self.methods):
            self.app.bell()
            return
        method = self.methods[index][0]
        if method in self.jobs:
            return
        self.results.pop(method, None)
        self.queue.append(method)
        if not self.jobs:
            self._next()
        self.refresh_view()

    def _next(self) -> None:
        if not self.queue:
            self.refresh_view()
            return
        method, puzzle = self.queue.pop(0), self.puzzle
        job = SolverJob(method, self.state)
        self.jobs[method] = job
        run_job(self, job, lambda job, report: run_method(puzzle, job.state, method, stop=job.stop, progress=report),
                group=f"algo-{method}", answer=LabRunFinished)
        self.refresh_view()

    def method_of(self, job: SolverJob) -> str | None:
        """The method ``job`` runs, if it is still its current run (None: cancelled or replaced since)."""
        return next((method for method, current in self.jobs.items() if current is job), None)

    @on(JobProgress)
    def _progress(self, event: JobProgress) -> None:
        if self.method_of(event.job) is not None:
            event.job.progress = event.info
            self.refresh_view()

    @on(LabRunFinished)
    def _finished(self, event: LabRunFinished) -> None:
        self._settle(event.job, event.result)

    @on(JobFailed)
    def _failed(self, event: JobFailed) -> None:
        error = event.error
        self._settle(event.job, f"failed: {error if isinstance(error, KomaError) else repr(error)}")

    def _settle(self, job: SolverJob, result: LabResult | str) -> None:
        """Record a run's result (or what went wrong) and start the next method waiting."""
        method = self.method_of(job)
        if method is None:
            return
        del self.jobs[method]
        self.results[method] = result
        self._next()

    def cancel_all(self) -> bool:
        """Stop every run at once; True if anything was running or waiting."""
        busy = bool(self.jobs or self.queue)
        self.queue = []
        for method, job in list(self.jobs.items()):
            job.cancel()
            self.workers.cancel_group(self, f"algo-{method}")
            self.results[method] = "cancelled"
        self.jobs = {}
        return busy

    def action_escape(self) -> None:
        if self.cancel_all():
            self.message = "Cancelled."
            self.refresh_view()
            return
        self.app.pop_screen()

    # --- drawing ---------------------------------------------------------------------------------------
    def refresh_view(self) -> None:
        board = self.look.mini(self.state)
        self.query_one("#algo-board", Static).update(
            f"{escape(board)}\n[dim]{escape(self.puzzle.format(self.state))}[/dim]")
        rows = [f"[b]{'#':<2} {'method':<44} {'nodes':>11} {'time':>9} {'moves':>5}[/b]"]
        for k, (method, description) in enumerate(self.methods, 1):
            label = description[:44]
            job = self.jobs.get(method)
            result = self.results.get(method)
            if job is not None:
                cells = f"[dim]running… {escape(figures_text(job.progress))}[/dim]"
            elif method in self.queue:
                cells = "[dim]waiting[/dim]"
            elif isinstance(result, LabResult):
                cells = f"{result.nodes:>11,} {result.seconds:>7.3f} s {result.length:>5}"
            elif isinstance(result, str):
                cells = f"[dim]{escape(result)}[/dim]"
            else:
                cells = "[dim]-[/dim]"
            rows.append(f"{k:<2} {escape(label):<44} {cells}")
        self.query_one("#algo-table", Static).update("\n".join(rows))
        notes = ["r runs every method one after another; 1-4 run one; esc cancels."]
        done = [r for r in self.results.values() if isinstance(r, LabResult)]
        if len(done) >= 2:
            lengths = {r.length for r in done}
            fewest = min(done, key=lambda r: r.nodes)
            most = max(done, key=lambda r: r.nodes)
            same = "the same length" if len(lengths) == 1 else "different lengths!"
            notes.append(f"All optimal, {same}; {fewest.method} needed {most.nodes / max(1, fewest.nodes):,.0f}x "
                         f"fewer nodes than {most.method}.")
        if self.tab in BOARD_NOTES:
            notes.append(f"[dim]{escape(BOARD_NOTES[self.tab])}[/dim]")
        if self.message:
            notes.append(escape(self.message))
        self.query_one("#algo-note", Static).update("\n".join(notes))
